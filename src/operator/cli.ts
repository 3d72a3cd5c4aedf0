// The operator CLI: `npm run -s operator -- <command>` in development, `node dist/operator/cli.js
// <command>` in production. A command prints one JSON value on stdout and nothing else (anything a
// library logs goes to stderr), so its output pipes into jq. Errors go to stderr: exit 1 when the
// command failed, 2 on a usage error. `--help` after any command or group prints its usage on stdout.
// The commands and their parsing: commands/.
import crypto from "node:crypto";
import os from "node:os";
import { loadConfig } from "../config.ts";
import { createDb, type Db } from "../db.ts";
import { audited } from "../schema/core/audit.ts";
import { CommandFailed, UsageError, type Command, type CommandInput } from "./command.ts";
import { commandUsage, parse, usage } from "./commands/index.ts";

// stdout carries the result only: console output of libraries goes to stderr.
console.log = console.info = console.debug = console.error;

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Runs a command; one that writes commits together with its audit entry (who: OPERATOR_NAME or the OS user). */
function execute(command: Command, input: CommandInput): Promise<unknown> {
  if (!command.writes) return command.run(input);
  const actor = `operator:${process.env.OPERATOR_NAME || os.userInfo().username}`;
  const entry = {
    channel: "operator",
    apiKeyId: null,
    contactId: null,
    actor,
    buyerCompanyId: null,
    supplierFacilityId: null,
    operation: command.name,
    traceId: crypto.randomUUID(),
    at: new Date(),
  };
  return audited(input.db(), entry, (tx) => command.run({ ...input, db: () => tx }), command.writes);
}

async function main(argv: string[]): Promise<void> {
  const parsed = parse(argv);
  if ("help" in parsed) {
    process.stdout.write(`${parsed.help}\n`);
    return;
  }
  const { command, args, values } = parsed;
  const config = loadConfig();
  let db: Db | undefined;
  try {
    print(
      await execute(command, { args, values, config, db: () => (db ??= createDb(config.databaseUrl, { max: 2 })) }),
    );
  } catch (error) {
    if (error instanceof UsageError) error.usage ??= commandUsage(command);
    throw error;
  } finally {
    await db?.$disconnect();
  }
}

try {
  await main(process.argv.slice(2));
  process.exit(0);
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n${error.usage ?? usage()}\n`);
    process.exit(2);
  }
  if (error instanceof CommandFailed) print(error.result);
  process.stderr.write(`operator: ${(error as Error).message}\n`);
  process.exit(1);
}
