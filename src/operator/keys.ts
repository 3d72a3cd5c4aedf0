// `operator keys issue|list|revoke`: API keys are issued by the operator, never by the API.
import type { Db } from "../db.ts";
import { hashSecret, newApiKey, newSecret } from "../schema/core/keys.ts";
import { keyLimits } from "../schema/core/viewer.ts";

export async function issueKey(
  db: Db,
  options: {
    contactEmail: string;
    kind: "buyer" | "supplier" | "partner";
    expiresAt?: Date;
    rateLimit?: { requests: number; windowSeconds: number };
    /** GraphQL's points per window instead of the default (docs/api.md, "GraphQL cost and budget"). */
    graphqlBudget?: { points: number; windowSeconds: number };
  },
): Promise<{ id: number; apiKey: string; svcKey: string }> {
  const contact = await db.contact.findUnique({ where: { email: options.contactEmail.toLowerCase() } });
  if (!contact) throw new Error(`no contact with email ${options.contactEmail}`);
  if ((options.kind === "buyer") !== (contact.buyerFacilityId !== null)) {
    throw new Error(
      `a ${options.kind} key needs a contact at a ${options.kind === "buyer" ? "buyer" : "supplier"} facility`,
    );
  }
  const svcKey = newSecret();
  const row = await db.apiKey.create({
    data: {
      apiKey: newApiKey(),
      secretHash: hashSecret(svcKey),
      kind: options.kind,
      contactId: contact.id,
      expiresAt: options.expiresAt ?? null,
      rateLimitRequests: options.rateLimit?.requests ?? null,
      rateLimitWindowSeconds: options.rateLimit?.windowSeconds ?? null,
      graphqlBudgetPoints: options.graphqlBudget?.points ?? null,
      graphqlBudgetWindowSeconds: options.graphqlBudget?.windowSeconds ?? null,
    },
  });
  return { id: row.id, apiKey: row.apiKey, svcKey };
}

export async function revokeKey(
  db: Db,
  apiKey: string,
  now = new Date(),
): Promise<{ apiKey: string; revokedAt: string }> {
  const row = await db.apiKey.findUnique({ where: { apiKey } });
  if (!row) throw new Error(`no key ${apiKey}`);
  const revoked =
    row.revokedAt ?? (await db.apiKey.update({ where: { id: row.id }, data: { revokedAt: now } })).revokedAt!;
  return { apiKey, revokedAt: revoked.toISOString() };
}

export type KeyStatus = "active" | "revoked" | "expired";

export interface KeyFilter {
  contactEmail?: string;
  kind?: "buyer" | "supplier" | "partner";
  buyerCompanyId?: number;
  supplierFacilityId?: number;
  status?: KeyStatus;
}

/**
 * Keys, oldest first, with whom they belong to and whether they still authenticate. The public half
 * (`apiKey`) is what `keys revoke` takes; the secret is stored only as a digest and never shown.
 */
export async function listKeys(db: Db, filter: KeyFilter = {}, now = new Date()) {
  const rows = await db.apiKey.findMany({
    where: {
      kind: filter.kind,
      contact: {
        email: filter.contactEmail?.toLowerCase(),
        buyerFacility: filter.buyerCompanyId === undefined ? undefined : { buyerCompanyId: filter.buyerCompanyId },
        supplierFacilityId: filter.supplierFacilityId,
      },
    },
    include: { contact: { include: { buyerFacility: true } } },
    orderBy: { id: "asc" },
  });
  // The fixture refs of keys applied with `operator apply` (OperatorRef kind "apiKey", as apply.ts writes it).
  const refs = await db.operatorRef.findMany({ where: { kind: "apiKey", entityId: { in: rows.map((r) => r.id) } } });
  const refOf = new Map(refs.map((r) => [r.entityId, r.ref]));
  const statusOf = (r: (typeof rows)[number]): KeyStatus =>
    r.revokedAt ? "revoked" : r.expiresAt && r.expiresAt <= now ? "expired" : "active";
  return rows
    .map((r) => ({
      id: r.id,
      ref: refOf.get(r.id) ?? null,
      apiKey: r.apiKey,
      kind: r.kind,
      status: statusOf(r),
      contact: r.contact.email,
      buyerCompanyId: r.contact.buyerFacility?.buyerCompanyId ?? null,
      buyerFacilityId: r.contact.buyerFacilityId,
      supplierFacilityId: r.contact.supplierFacilityId,
      ...keyLimits(r),
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt?.toISOString() ?? null,
      revokedAt: r.revokedAt?.toISOString() ?? null,
    }))
    .filter((k) => filter.status === undefined || k.status === filter.status);
}
