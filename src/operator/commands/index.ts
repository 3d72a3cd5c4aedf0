// Every operator command, and how argv picks one: its name's words, then its options (parseArgs,
// strict) and positional arguments. `--help` anywhere after a command or a group asks for its usage.
import { parseArgs } from "node:util";
import { UsageError, type Command, type CommandInput } from "../command.ts";
import { auditCommands } from "./audit.ts";
import { eventCommands } from "./events.ts";
import { fixtureCommands } from "./fixtures.ts";
import { keyCommands } from "./keys.ts";
import { webhookCommands } from "./webhooks.ts";

export const COMMANDS: Command[] = [
  ...fixtureCommands,
  ...keyCommands,
  ...webhookCommands,
  ...eventCommands,
  ...auditCommands,
];

const usageLine = (c: Command) => `operator ${c.name} ${c.usage}`.trimEnd();
export const usage = (commands: Command[] = COMMANDS) =>
  `usage:\n${commands.map((c) => `  ${usageLine(c)}`).join("\n")}`;

export const OVERVIEW = `${usage()}

Run \`operator <command> --help\` for what a command does and its options.
Every command prints one JSON value on stdout. Exit codes: 0 done, 1 failed, 2 usage error.
The CLI uses DATABASE_URL, REDIS_URL and WEBHOOK_ALLOW_INSECURE_URLS from the environment, then .env,
then the built-in defaults (as .env.example lists them). Guide: docs/operator.md (also served at
/docs/operator).`;

function commandHelp(c: Command): string {
  const options = Object.entries(c.options ?? {}).map(([name, o]) => [
    `--${name}${o.value ? ` ${o.value}` : ""}`,
    o.help,
  ]);
  options.push(["-h, --help", "this help"]);
  const width = Math.max(...options.map(([flag]) => flag.length)) + 2;
  return `usage: ${usageLine(c)}\n\n${c.help}\n\noptions:\n${options.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`).join("\n")}`;
}

/** The usage a usage error of a command ends with. */
export const commandUsage = (c: Command) => `usage: ${usageLine(c)}\n(operator ${c.name} --help for its options)`;

const wantsHelp = (args: string[]) => args.includes("--help") || args.includes("-h");

export type Parsed = { help: string } | { command: Command; args: string[]; values: CommandInput["values"] };

/** What argv asks for: a help text, or a command with its arguments. Throws UsageError. */
export function parse(argv: string[]): Parsed {
  if (argv.length === 0) throw new UsageError("no command");
  if (argv[0] === "help" || wantsHelp(argv.slice(0, 1))) return { help: OVERVIEW };
  const command = COMMANDS.find((c) => c.name.split(" ").every((word, i) => argv[i] === word));
  if (!command) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `));
    if (group.length && (argv.length === 1 || wantsHelp(argv.slice(1, 2)))) {
      const text = `${usage(group)}\n\nRun \`operator ${argv[0]} <command> --help\` for a command's options.`;
      if (argv.length > 1) return { help: text };
      throw new UsageError(`${argv[0]}: which command?`, text);
    }
    throw new UsageError("unknown command");
  }
  const rest = argv.slice(command.name.split(" ").length);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message, commandUsage(command));
  }
  if (parsed.values.help) return { help: commandHelp(command) };
  const expected = command.args ?? [];
  const given = parsed.positionals;
  if (given.length < expected.length)
    throw new UsageError(`missing <${expected[given.length]}>`, commandUsage(command));
  if (given.length > expected.length)
    throw new UsageError(`unexpected argument ${given[expected.length]}`, commandUsage(command));
  return { command, args: given, values: parsed.values };
}
