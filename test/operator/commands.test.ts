// The operator CLI's argument handling, for every command (in process; cli.test.ts and
// webhook-tools.test.ts run the real CLI): `--help` everywhere, strict options, argument counts.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/operator/command.ts";
import { COMMANDS, OVERVIEW, parse } from "../../src/operator/commands/index.ts";

const usageError = (argv: string[]) => {
  try {
    parse(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`${argv.join(" ")} parsed`);
};

describe("operator --help", () => {
  it("lists every command's usage", () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) expect(parse(argv)).toEqual({ help: OVERVIEW });
    for (const c of COMMANDS) expect(OVERVIEW).toContain(`\n  operator ${c.name} `.trimEnd());
    expect(COMMANDS.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "apply",
        "keys issue",
        "keys list",
        "keys revoke",
        "webhooks add",
        "webhooks list",
        "webhooks rotate",
        "webhooks test",
        "webhooks disable",
        "webhooks enable",
        "webhooks delete",
        "webhooks deliveries",
        "webhooks redeliver",
        "webhooks redeliver-failures",
        "events explain",
      ]),
    );
  });

  it("on every command gives its usage, what it does and each option, before checking anything else", () => {
    for (const c of COMMANDS) {
      for (const flag of ["--help", "-h"]) {
        const parsed = parse([...c.name.split(" "), flag]);
        expect("help" in parsed, c.name).toBe(true);
        const help = (parsed as { help: string }).help;
        expect(help.startsWith(`usage: operator ${c.name}`), c.name).toBe(true);
        expect(help, c.name).toContain(c.help.split("\n")[0]);
        for (const option of Object.keys(c.options ?? {}))
          expect(help, `${c.name} --${option}`).toMatch(new RegExp(`\\n  --${option}\\b.* {2,}\\S`));
      }
    }
  });

  it("on a group lists the group's commands; a group without a command is a usage error", () => {
    const help = parse(["webhooks", "--help"]) as { help: string };
    expect(help.help).toContain("operator webhooks test <endpointId> --event");
    expect(help.help).not.toContain("operator keys");
    const error = usageError(["keys"]);
    expect(error.message).toBe("keys: which command?");
    expect(error.usage).toContain("operator keys revoke <apiKey>");
  });
});

describe("arguments", () => {
  it("parses a command's options and positionals", () => {
    expect(parse(["webhooks", "test", "4", "--event", "workorder.create"])).toMatchObject({
      args: ["4"],
      values: { event: "workorder.create" },
    });
    expect(parse(["webhooks", "redeliver-failures", "4", "--since", "2026-01-01T00:00:00Z", "--force"])).toMatchObject({
      args: ["4"],
      values: { force: true },
    });
  });

  it("refuses unknown commands and options, and missing or extra arguments, with the command's usage", () => {
    expect(usageError(["frobnicate"]).message).toBe("unknown command");
    expect(usageError([]).message).toBe("no command");
    const unknownOption = usageError(["keys", "list", "--secret"]);
    expect(unknownOption.message).toContain("'--secret'");
    expect(unknownOption.usage).toMatch(/^usage: operator keys list /);
    expect(usageError(["keys", "revoke"]).message).toBe("missing <apiKey>");
    expect(usageError(["events", "explain", "1", "2"]).message).toBe("unexpected argument 2");
    expect(usageError(["webhooks", "test", "1", "--event"]).message).toContain("--event");
  });
});
