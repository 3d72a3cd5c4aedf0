// `operator audit`: the audit log of every tenant, operator entries included (docs/audit.md).
import { operatorAuditLog } from "../../schema/audit/public.ts";
import { int, str, time, type Command } from "../command.ts";

export const auditCommands: Command[] = [
  {
    name: "audit",
    usage:
      "[--buyer-company <id>] [--since <ISO time>] [--until <ISO time>] [--operation <name>] [--channel <name>] [--key <apiKeyId>] [--record-id <id>] [--limit <n>] [--offset <n>]",
    help: `The audit log, newest first: one entry per committed change through REST, GraphQL or this CLI,
with who (key, contact or operator:<user>), the operation, the record ids, the time and the trace id.
Prints {count, data}. Commands of this CLI that change something write their entry in the same
transaction; the operator's name is OPERATOR_NAME, else the OS user.`,
    options: {
      "buyer-company": { type: "string", value: "<id>", help: "only this buyer company's entries" },
      since: { type: "string", value: "<ISO time>", help: "entries at or after this time" },
      until: { type: "string", value: "<ISO time>", help: "entries before this time" },
      operation: {
        type: "string",
        value: "<name>",
        help: 'one operation (a mutation name, or a command such as "keys issue")',
      },
      channel: { type: "string", value: "<name>", help: "buyer, supplier, partners, graphql or operator" },
      key: { type: "string", value: "<apiKeyId>", help: "one API key's entries (its database id)" },
      "record-id": { type: "string", value: "<id>", help: "entries that wrote this record" },
      limit: { type: "string", value: "<n>", help: "page size (default 25, at most 100)" },
      offset: { type: "string", value: "<n>", help: "entries to skip" },
    },
    run: ({ values, db }) =>
      operatorAuditLog(db(), {
        buyerCompanyId: int(str(values, "buyer-company"), "--buyer-company"),
        since: time(str(values, "since"), "--since"),
        until: time(str(values, "until"), "--until"),
        operation: str(values, "operation"),
        channel: str(values, "channel"),
        apiKeyId: int(str(values, "key"), "--key"),
        recordId: str(values, "record-id"),
        limit: int(str(values, "limit"), "--limit"),
        offset: int(str(values, "offset"), "--offset"),
      }),
  },
];
