// `operator keys issue|list|revoke`.
import { UsageError, int, str, type Command } from "../command.ts";
import { issueKey, listKeys, revokeKey, type KeyStatus } from "../keys.ts";

const KINDS = ["buyer", "supplier", "partner"] as const;
const STATUSES: KeyStatus[] = ["active", "revoked", "expired"];

/** `<a>/<b>`, both positive whole numbers, as [a, b]; undefined when not given; else a usage error. */
function pair(value: string | undefined, usage: string): [number, number] | undefined {
  if (value === undefined) return undefined;
  const match = value.match(/^([1-9]\d*)\/([1-9]\d*)$/);
  if (!match) throw new UsageError(usage);
  return [Number(match[1]), Number(match[2])];
}

export const keyCommands: Command[] = [
  {
    name: "keys issue",
    usage:
      "--contact <email> --kind buyer|supplier|partner [--expires-at <ISO time>] [--rate-limit <requests>/<seconds>] [--graphql-budget <points>/<seconds>]",
    help: `Issues an API key (X-API-KEY + SVC-KEY pair) for an existing contact.
Prints {id, apiKey, svcKey}. The svcKey is shown only here: store it.
A buyer key needs a contact at a buyer facility; supplier and partner keys a contact at a supplier facility.`,
    options: {
      contact: { type: "string", value: "<email>", help: "the key's contact (by email, any case); required" },
      kind: { type: "string", value: "buyer|supplier|partner", help: "the interface the key may call; required" },
      "expires-at": { type: "string", value: "<ISO time>", help: "the key stops authenticating at this time" },
      "rate-limit": {
        type: "string",
        value: "<requests>/<seconds>",
        help: "instead of the default 10 requests per 20 s window",
      },
      "graphql-budget": {
        type: "string",
        value: "<points>/<seconds>",
        help: "GraphQL's budget instead of the default 5000 points per 20 s window",
      },
    },
    writes: (result: { id: number }) => [result.id],
    async run({ values, db }) {
      const contact = str(values, "contact");
      const kind = str(values, "kind");
      if (!contact || !KINDS.includes(kind as (typeof KINDS)[number]))
        throw new UsageError("--contact and --kind are required");
      const rateLimit = str(values, "rate-limit");
      const limit = rateLimit?.match(/^([1-9]\d*)\/([1-9]\d*)$/);
      if (rateLimit && !limit) throw new UsageError("--rate-limit is <requests>/<seconds>, both positive");
      const graphqlBudget = pair(
        str(values, "graphql-budget"),
        "--graphql-budget is <points>/<seconds>, both positive",
      );
      const expires = str(values, "expires-at");
      const expiresAt = expires ? new Date(expires) : undefined;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError("--expires-at must be an ISO 8601 time");
      return issueKey(db(), {
        contactEmail: contact,
        kind: kind as (typeof KINDS)[number],
        expiresAt,
        rateLimit: limit ? { requests: Number(limit[1]), windowSeconds: Number(limit[2]) } : undefined,
        graphqlBudget: graphqlBudget && { points: graphqlBudget[0], windowSeconds: graphqlBudget[1] },
      });
    },
  },
  {
    name: "keys list",
    usage:
      "[--contact <email>] [--kind buyer|supplier|partner] [--buyer-company <id>] [--supplier-facility <id>] [--status active|revoked|expired]",
    help: `Lists API keys, oldest first: id, fixture ref, apiKey (the public half, for keys revoke), kind,
status, contact, tenant ids, rate-limit and GraphQL budget overrides, created/expires/revoked times. Secrets are never shown.`,
    options: {
      contact: { type: "string", value: "<email>", help: "only this contact's keys" },
      kind: { type: "string", value: "buyer|supplier|partner", help: "only keys of this kind" },
      "buyer-company": {
        type: "string",
        value: "<id>",
        help: "only keys of contacts at this buyer company's facilities",
      },
      "supplier-facility": { type: "string", value: "<id>", help: "only keys of contacts at this supplier facility" },
      status: { type: "string", value: "active|revoked|expired", help: "only keys in this state" },
    },
    async run({ values, db }) {
      const kind = str(values, "kind");
      if (kind !== undefined && !KINDS.includes(kind as (typeof KINDS)[number]))
        throw new UsageError("--kind is buyer, supplier or partner");
      const status = str(values, "status");
      if (status !== undefined && !STATUSES.includes(status as KeyStatus))
        throw new UsageError("--status is active, revoked or expired");
      return listKeys(db(), {
        contactEmail: str(values, "contact"),
        kind: kind as (typeof KINDS)[number] | undefined,
        status: status as KeyStatus | undefined,
        buyerCompanyId: int(str(values, "buyer-company"), "--buyer-company"),
        supplierFacilityId: int(str(values, "supplier-facility"), "--supplier-facility"),
      });
    },
  },
  {
    name: "keys revoke",
    usage: "<apiKey>",
    args: ["apiKey"],
    help: `Revokes a key at once (its X-API-KEY value, as keys list shows it). Prints {apiKey, revokedAt};
revoking again prints the first time.`,
    writes: (result: { apiKey: string }) => [result.apiKey],
    run: ({ args: [apiKey], db }) => revokeKey(db(), apiKey),
  },
];
