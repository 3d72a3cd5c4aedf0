// What an operator command is (its words, usage, options and action) and the option parsers the
// commands share. cli.ts finds the command, parses its options, prints help and the result.
import type { Config } from "../config.ts";
import type { Db } from "../db.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  /** The value's placeholder in help (`<email>`); none for boolean flags. */
  value?: string;
  help: string;
}

export interface CommandInput {
  /** The positional arguments after the command's name, as many as `args` names. */
  args: string[];
  values: Record<string, string | boolean | undefined>;
  config: Config;
  /** The database, opened on first use (closed by the CLI). */
  db(): Db;
}

export interface Command {
  /** The words that name it: `keys issue`. */
  name: string;
  /** The rest of its usage line: arguments and options (`<apiKey>`, `--contact <email> …`). */
  usage: string;
  /** What it does and prints (the first line is the summary in `operator --help`). */
  help: string;
  /** Names of its positional arguments (all required). */
  args?: string[];
  options?: Record<string, OptionSpec>;
  /**
   * For a command that changes something: the ids of the records it wrote, read from its result. The
   * CLI then runs it in one transaction with its audit entry (docs/audit.md).
   */
  writes?(result: any): unknown[];
  run(input: CommandInput): Promise<unknown>;
}

/** Bad arguments: exit 2, the message and then `usage` (the CLI fills in the command's). */
export class UsageError extends Error {
  constructor(
    message: string,
    public usage?: string,
  ) {
    super(message);
  }
}

/** The command ran but what it tried did not succeed: `result` is printed on stdout, the message on stderr, exit 1. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly result: unknown,
  ) {
    super(message);
  }
}

export function str(values: CommandInput["values"], name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function int(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

export function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime()))
    throw new UsageError(`${name} must be an ISO 8601 time`);
  return at;
}

/** `--buyer-company` / `--supplier-facility`, shared by the commands that filter or pick an owner. */
export const OWNER_OPTIONS: Record<string, OptionSpec> = {
  "buyer-company": {
    type: "string",
    value: "<id>",
    help: "a buyer company (database id, e.g. from the refs of an apply)",
  },
  "supplier-facility": { type: "string", value: "<id>", help: "a supplier facility (database id)" },
};

export function owner(values: CommandInput["values"]) {
  return {
    buyerCompanyId: int(str(values, "buyer-company"), "--buyer-company"),
    supplierFacilityId: int(str(values, "supplier-facility"), "--supplier-facility"),
  };
}
