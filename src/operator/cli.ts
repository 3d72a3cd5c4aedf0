// The operator CLI: `npm run operator -- <command>`. Every command prints one JSON object on stdout;
// errors go to stderr with exit code 1 (2 for usage).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { createDb, type Db } from "../db.ts";
import { audited } from "../schema/core/audit.ts";
import { operatorAuditLog } from "../schema/audit/public.ts";
import { applyFixture, FixtureError } from "./apply.ts";
import { issueKey, revokeKey } from "./keys.ts";
import {
  addEndpoint, DELIVERY_STATUSES, endpointDeliveries, listEndpoints, redeliver, redeliverEndpointFailures, rotateEndpointSecret,
  type DeliveryStatus,
} from "../schema/webhooks/public.ts";

const USAGE = `usage:
  operator apply <fixture.json>
  operator keys issue --contact <email> --kind buyer|supplier|partner [--expires-at <ISO time>] [--rate-limit <requests>/<seconds>]
  operator keys revoke <apiKey>
  operator webhooks add (--buyer-company <id> | --supplier-facility <id>) --url <https url> --events <e1,e2> [--mode test|production]
  operator webhooks rotate <endpointId>
  operator webhooks list [--buyer-company <id>] [--supplier-facility <id>]
  operator webhooks deliveries <endpointId> [--status pending|delivered|failed|expired] [--since <ISO time>] [--limit <n>] [--offset <n>]
  operator webhooks redeliver <webhookId> [--force]
  operator webhooks redeliver-failures <endpointId> --since <ISO time> [--force]
  operator audit [--buyer-company <id>] [--since <ISO time>] [--until <ISO time>] [--operation <name>] [--channel <name>]
                 [--key <apiKeyId>] [--record-id <id>] [--limit <n>] [--offset <n>]

Every command that changes something writes an audit entry in the same transaction (who: OPERATOR_NAME
or the OS user).`;

class UsageError extends Error {}

function int(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime())) throw new UsageError(`${name} must be an ISO 8601 time`);
  return at;
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      contact: { type: "string" }, kind: { type: "string" }, "expires-at": { type: "string" }, "rate-limit": { type: "string" },
      "buyer-company": { type: "string" }, "supplier-facility": { type: "string" }, url: { type: "string" },
      events: { type: "string" }, mode: { type: "string" },
      // delivery log and replay
      status: { type: "string" }, since: { type: "string" }, limit: { type: "string" }, offset: { type: "string" }, force: { type: "boolean" },
      // audit log
      until: { type: "string" }, operation: { type: "string" }, channel: { type: "string" }, key: { type: "string" }, "record-id": { type: "string" },
    },
  });
  const [group, action, arg] = positionals;
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { max: 2 });
  // A change and its audit entry commit together; `ids` names the records it wrote.
  const traceId = crypto.randomUUID();
  const actor = `operator:${process.env.OPERATOR_NAME || os.userInfo().username}`;
  const change = <T>(operation: string, work: (db: Db) => Promise<T>, ids: (result: T) => unknown[]) =>
    audited(db, { channel: "operator", apiKeyId: null, contactId: null, actor, buyerCompanyId: null, supplierFacilityId: null, operation, traceId, at: new Date() }, work, ids);
  try {
    if (group === "apply" && action) {
      const text = fs.readFileSync(action, "utf8");
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch (error) {
        throw new FixtureError([`${action} is not valid JSON: ${(error as Error).message}`]);
      }
      return await change("apply", (db) => applyFixture(db, input, { allowInsecureWebhooks: config.webhookAllowInsecureUrls }), (r) => Object.entries(r.refs).map(([ref, id]) => `${ref}:${id}`));
    }
    if (group === "keys" && action === "issue") {
      const kind = values.kind;
      if (!values.contact || (kind !== "buyer" && kind !== "supplier" && kind !== "partner")) throw new UsageError("--contact and --kind are required");
      const limit = values["rate-limit"]?.match(/^([1-9]\d*)\/([1-9]\d*)$/);
      if (values["rate-limit"] && !limit) throw new UsageError("--rate-limit is <requests>/<seconds>, both positive");
      const expiresAt = values["expires-at"] ? new Date(values["expires-at"]) : undefined;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError("--expires-at must be an ISO 8601 time");
      return await change("keys issue", (db) => issueKey(db, {
        contactEmail: values.contact!, kind, expiresAt,
        rateLimit: limit ? { requests: Number(limit[1]), windowSeconds: Number(limit[2]) } : undefined,
      }), (r) => [r.id]);
    }
    if (group === "keys" && action === "revoke" && arg) return await change("keys revoke", (db) => revokeKey(db, arg), (r) => [r.apiKey]);
    if (group === "webhooks" && action === "add") {
      if (!values.url || !values.events) throw new UsageError("--url and --events are required");
      const mode = values.mode ?? "production";
      if (mode !== "test" && mode !== "production") throw new UsageError("--mode is test or production");
      const { url, events } = values;
      return await change("webhooks add", (db) => addEndpoint(db, {
        buyerCompanyId: int(values["buyer-company"], "--buyer-company"), supplierFacilityId: int(values["supplier-facility"], "--supplier-facility"),
        url, events: events.split(",").map((e) => e.trim()), mode, allowInsecure: config.webhookAllowInsecureUrls,
      }), (r) => [r.id]);
    }
    if (group === "webhooks" && action === "rotate" && arg) {
      const id = int(arg, "endpointId")!;
      return await change("webhooks rotate", (db) => rotateEndpointSecret(db, id), (r) => [r.id]);
    }
    if (group === "webhooks" && action === "list") {
      return await listEndpoints(db, {
        buyerCompanyId: int(values["buyer-company"], "--buyer-company"), supplierFacilityId: int(values["supplier-facility"], "--supplier-facility"),
      });
    }
    // Delivery log and replay (docs/events.md). --force: past the three-hour rule (operator only).
    if (group === "webhooks" && action === "deliveries" && arg) {
      const status = values.status;
      if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) throw new UsageError(`--status is one of ${DELIVERY_STATUSES.join(", ")}`);
      return await endpointDeliveries(db, int(arg, "endpointId")!, {
        status: status as DeliveryStatus | undefined, since: time(values.since, "--since"),
        limit: int(values.limit, "--limit"), offset: int(values.offset, "--offset"),
      });
    }
    if (group === "webhooks" && (action === "redeliver" || action === "redeliver-failures") && arg) {
      const since = time(values.since, "--since");
      if (action === "redeliver-failures" && !since) throw new UsageError("--since is required");
      const force = values.force === true;
      if (action === "redeliver") return await change("webhooks redeliver", (db) => redeliver(db, arg, force), (r) => [r.webhookId]);
      const endpointId = int(arg, "endpointId")!;
      return await change("webhooks redeliver-failures", (db) => redeliverEndpointFailures(db, endpointId, since!, force), (r) => r.redelivered);
    }
    if (group === "audit" && !action) {
      return await operatorAuditLog(db, {
        buyerCompanyId: int(values["buyer-company"], "--buyer-company"), since: time(values.since, "--since"), until: time(values.until, "--until"),
        operation: values.operation, channel: values.channel, apiKeyId: int(values.key, "--key"), recordId: values["record-id"],
        limit: int(values.limit, "--limit"), offset: int(values.offset, "--offset"),
      });
    }
    throw new UsageError("unknown command");
  } finally {
    await db.$disconnect();
  }
}

try {
  const result = await run(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`operator: ${(error as Error).message}\n`);
  process.exit(1);
}
