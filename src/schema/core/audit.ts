// The audit log (docs/audit.md): every committed mutation, through REST, GraphQL or the operator CLI,
// leaves one AuditEntry written in the mutation's own transaction: who (key, contact), what
// (operation, record ids), when and the trace id. A mutation that fails leaves none (it did nothing).
import { defaultFieldResolver, getNamedType, type GraphQLSchema } from "graphql";
import type { Db, Tx } from "../../db.ts";
import type { Context } from "./context.ts";
import { inTransaction, joinable } from "./transaction.ts";
import type { Viewer } from "./viewer.ts";

interface AuditActor {
  /** A REST interface (buyer, supplier, partners), graphql, or operator. */
  channel: string;
  apiKeyId: number | null;
  contactId: number | null;
  /** The contact's e-mail, or operator:<os user>. */
  actor: string;
  /** Whose log the entry is in: a buyer key's company; a supplier or partner key's facility. */
  buyerCompanyId: number | null;
  supplierFacilityId: number | null;
}

export interface AuditEntryInput extends AuditActor {
  operation: string;
  recordType: string | null;
  recordIds: string[];
  traceId: string;
  at: Date;
}

function actorOf(viewer: Viewer, channel: string): AuditActor {
  const buyer = viewer.kind === "buyer";
  return {
    channel,
    apiKeyId: viewer.keyId,
    contactId: viewer.contactId,
    actor: viewer.email,
    buyerCompanyId: buyer ? viewer.buyerCompanyId : null,
    supplierFacilityId: buyer ? null : viewer.supplierFacilityId,
  };
}

async function recordAudit(tx: Tx | Db, entry: AuditEntryInput): Promise<void> {
  await tx.auditEntry.create({ data: entry });
}

/** Argument names that name the record a mutation writes (top level, or in its `input`). */
const ID_ARGS = ["id", "ids", "woId", "webhookId"];

function idsIn(value: unknown, keys: string[], into: Set<string>) {
  if (!value || typeof value !== "object") return;
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    for (const id of Array.isArray(v) ? v : [v])
      if (typeof id === "number" || typeof id === "string" || typeof id === "bigint") into.add(String(id));
  }
}

/** The records a mutation wrote: the ids its arguments name and those of the record(s) it returned. */
function recordIdsOf(args: Record<string, unknown>, result: unknown): string[] {
  const ids = new Set<string>();
  idsIn(args, ID_ARGS, ids);
  idsIn(args.input, ID_ARGS, ids);
  const returned =
    result && typeof result === "object" && Array.isArray((result as { data?: unknown }).data)
      ? (result as { data: unknown[] }).data
      : result;
  for (const record of Array.isArray(returned) ? returned : [returned])
    idsIn(record, ["id", "webhookId", "redelivered"], ids);
  return [...ids];
}

/** A mutation's transaction may take this long (bulk writes); Prisma's default is 5 s. */
const MUTATION_TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 60_000 };

/**
 * Runs every mutation of `schema` in a transaction (joined when the request already has one, e.g. an
 * Idempotency-Key) with its audit entry. The resolver gets `ctx.db` = that transaction, so every rule's
 * inTransaction joins it and the entry commits with the work or not at all.
 */
export function applyAudit(schema: GraphQLSchema): void {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    if ((field as { audited?: true }).audited) continue;
    const resolve = field.resolve ?? defaultFieldResolver;
    const recordType = getNamedType(field.type).name;
    // ctx itself (not a copy) carries the transaction while the resolver runs: Pothos keys what the
    // resolver's query loaded by the context object, and a copy would make every selected relation of
    // the answer load again afterwards (and fail for a record the mutation deleted). Mutation fields
    // run one after another, so swapping ctx.db and putting it back is safe.
    field.resolve = (parent, args, ctx: Context, info) => {
      const db = ctx.db;
      return inTransaction(
        db,
        async (tx) => {
          ctx.db = joinable(tx);
          try {
            const result = await resolve(parent, args, ctx, info);
            await recordAudit(tx, {
              ...actorOf(ctx.viewer, ctx.channel),
              operation: field.name,
              recordType,
              recordIds: recordIdsOf(args, result),
              traceId: ctx.traceId,
              at: ctx.now(),
            });
            return result;
          } finally {
            ctx.db = db;
          }
        },
        MUTATION_TRANSACTION_LIMITS,
      );
    };
    Object.assign(field, { audited: true });
  }
}

/**
 * For writes outside GraphQL (the operator CLI): `work` runs in a transaction with the entry, its
 * record ids read from what it returns.
 */
export function audited<T>(
  db: Db,
  entry: Omit<AuditEntryInput, "recordIds" | "recordType"> & { recordType?: string },
  work: (db: Db) => Promise<T>,
  ids: (result: T) => unknown[] = () => [],
): Promise<T> {
  return inTransaction(
    db,
    async (tx) => {
      const result = await work(joinable(tx));
      await recordAudit(tx, { ...entry, recordType: entry.recordType ?? null, recordIds: ids(result).map(String) });
      return result;
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}
