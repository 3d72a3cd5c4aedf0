// Reading the audit log (entries are written by core/audit.ts in each mutation's transaction): a buyer
// key reads its own company's entries over GraphQL, the operator every entry from the CLI.
import type { Db, Prisma } from "../../db.ts";
import { badInput, forbidden } from "../core/errors.ts";
import type { Viewer } from "../core/viewer.ts";

const DEFAULT_AUDIT_LIMIT = 25;
const MAX_AUDIT_LIMIT = 100;

/** The one scope of the feature: a buyer key sees the entries of its company's keys. */
export function auditScope(viewer: Viewer): Prisma.AuditEntryWhereInput {
  if (viewer.kind !== "buyer" || viewer.buyerCompanyId === null) throw forbidden("the audit log is for buyer keys");
  return { buyerCompanyId: viewer.buyerCompanyId };
}

export interface AuditFilter {
  /** Entries at or after / before this time. */
  since?: Date | null;
  until?: Date | null;
  operation?: string | null;
  channel?: string | null;
  apiKeyId?: number | null;
  contactId?: number | null;
  recordType?: string | null;
  /** Entries that name this record id. */
  recordId?: string | null;
  /** Operator only: one company's entries. */
  buyerCompanyId?: number | null;
  limit?: number | null;
  offset?: number | null;
}

/** One page of entries, newest first; filters are ANDed with the scope. */
export async function listAudit<T = Prisma.AuditEntryGetPayload<object>>(
  db: Db,
  scope: Prisma.AuditEntryWhereInput,
  filter: AuditFilter,
  query: object = {},
) {
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw badInput("offset must not be negative");
  const limit = filter.limit ?? DEFAULT_AUDIT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw badInput("limit must be at least 1");
  const where: Prisma.AuditEntryWhereInput = {
    AND: [
      scope,
      filter.since ? { at: { gte: filter.since } } : {},
      filter.until ? { at: { lt: filter.until } } : {},
      filter.operation ? { operation: filter.operation } : {},
      filter.channel ? { channel: filter.channel } : {},
      filter.apiKeyId != null ? { apiKeyId: filter.apiKeyId } : {},
      filter.contactId != null ? { contactId: filter.contactId } : {},
      filter.recordType ? { recordType: filter.recordType } : {},
      filter.recordId ? { recordIds: { has: filter.recordId } } : {},
      filter.buyerCompanyId != null ? { buyerCompanyId: filter.buyerCompanyId } : {},
    ],
  };
  const [data, count] = await Promise.all([
    db.auditEntry.findMany({
      ...query,
      where,
      orderBy: [{ at: "desc" }, { id: "desc" }],
      skip: offset,
      take: Math.min(limit, MAX_AUDIT_LIMIT),
    }),
    db.auditEntry.count({ where }),
  ]);
  return { data: data as T[], count };
}

/** An entry as the operator CLI prints it. */
const auditJson = (e: Prisma.AuditEntryGetPayload<object>) => ({
  ...e,
  id: e.id.toString(),
  at: e.at.toISOString(),
});

// ---- the operator's command

export async function operatorAuditLog(db: Db, filter: AuditFilter) {
  const page = await listAudit(db, {}, filter);
  return { count: page.count, data: page.data.map(auditJson) };
}
