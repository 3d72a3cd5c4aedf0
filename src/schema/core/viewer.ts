// Who is calling: resolved from X-API-KEY + SVC-KEY before anything else, for REST and GraphQL alike.
import type { Db } from "../../db.ts";
import type { Interface } from "./interfaces.ts";
import { secretMatches } from "./keys.ts";

export type KeyKind = "buyer" | "supplier" | "partner";

export interface Viewer {
  keyId: number;
  kind: KeyKind;
  contactId: number;
  email: string;
  displayName: string;
  /** The contact's roles (see permissions.ts). */
  roles: string[];
  /** Buyer keys: the key's company. Internal-team supplier and partner keys: the buyer the team serves. */
  buyerCompanyId: number | null;
  buyerFacilityId: number | null;
  supplierFacilityId: number | null;
  supplierCompanyId: number | null;
  /** A supplier key of a third-party company: buyer-private fields are masked for it. */
  isThirdParty: boolean;
  rateLimit: { requests: number; windowSeconds: number } | null;
  /** GraphQL's points budget per window when the operator set one on the key (http/graphql-cost.ts). */
  graphqlBudget: { points: number; windowSeconds: number } | null;
}

export const INTERFACE_OF_KIND: Record<KeyKind, Interface> = {
  buyer: "buyer",
  supplier: "supplier",
  partner: "partners",
};

/** A key as stored, with what its viewer is made of: what authentication reads (and the API caches). */
export interface KeyRecord {
  id: number;
  secretHash: string;
  kind: KeyKind;
  expiresAt: Date | null;
  revokedAt: Date | null;
  rateLimitRequests: number | null;
  rateLimitWindowSeconds: number | null;
  graphqlBudgetPoints: number | null;
  graphqlBudgetWindowSeconds: number | null;
  contactId: number;
  email: string;
  nameGiven: string;
  nameFamily: string;
  roles: string[];
  buyerFacilityId: number | null;
  buyerFacilityCompanyId: number | null;
  supplierFacilityId: number | null;
  supplierCompanyId: number | null;
  internalTeamOfId: number | null;
}

/** One statement: the key with its contact, facility and company, or null when there is no such key. */
export async function loadKey(db: Db, apiKey: string): Promise<KeyRecord | null> {
  const rows = await db.$queryRaw<KeyRecord[]>`
    SELECT k.id, k."secretHash", k.kind::text AS kind, k."expiresAt", k."revokedAt",
           k."rateLimitRequests", k."rateLimitWindowSeconds", k."graphqlBudgetPoints", k."graphqlBudgetWindowSeconds",
           c.id AS "contactId", c.email, c."nameGiven", c."nameFamily", c.roles,
           c."buyerFacilityId", bf."buyerCompanyId" AS "buyerFacilityCompanyId",
           c."supplierFacilityId", sf."supplierCompanyId", sc."internalTeamOfId"
      FROM "ApiKey" k
      JOIN "Contact" c ON c.id = k."contactId"
      LEFT JOIN "BuyerFacility" bf ON bf.id = c."buyerFacilityId"
      LEFT JOIN "SupplierFacility" sf ON sf.id = c."supplierFacilityId"
      LEFT JOIN "SupplierCompany" sc ON sc.id = sf."supplierCompanyId"
     WHERE k."apiKey" = ${apiKey}`;
  return rows[0] ?? null;
}

/** Whether a key pair is worth looking up at all (both halves given, neither absurdly long). */
export const plausibleKeyPair = (apiKey: string, secret: string) =>
  Boolean(apiKey && secret && apiKey.length <= 200 && secret.length <= 200);

/** Whether `secret` is the stored key's secret (compared in constant time) and the key is live at `now`. */
export function keyAdmits(row: KeyRecord, secret: string, now: Date): boolean {
  if (!secretMatches(secret, row.secretHash)) return false;
  return !(row.revokedAt || (row.expiresAt && row.expiresAt <= now));
}

/**
 * The viewer a stored key stands for, whoever asks (null: the key lost its facility). Frozen: the key
 * cache hands the same viewer to every request of the key, and what is kept per viewer (the compiled
 * statements of core/statement-answers.ts) is kept by its identity.
 */
export function viewerOfKey(row: KeyRecord): Viewer | null {
  const onSupplierSide = row.kind !== "buyer";
  if (onSupplierSide ? row.supplierFacilityId === null : row.buyerFacilityId === null) return null;
  return Object.freeze({
    keyId: row.id,
    kind: row.kind,
    contactId: row.contactId,
    email: row.email,
    displayName: `${row.nameGiven} ${row.nameFamily}`.trim(),
    roles: Object.freeze([...row.roles]) as string[],
    buyerCompanyId: onSupplierSide ? row.internalTeamOfId : row.buyerFacilityCompanyId,
    buyerFacilityId: row.buyerFacilityId,
    supplierFacilityId: onSupplierSide ? row.supplierFacilityId : null,
    supplierCompanyId: onSupplierSide ? row.supplierCompanyId : null,
    isThirdParty: onSupplierSide && row.internalTeamOfId === null,
    ...keyLimits(row),
  });
}

/** A key's operator-set limits (null: the defaults): REST's request window and GraphQL's points budget. */
export function keyLimits(row: {
  rateLimitRequests: number | null;
  rateLimitWindowSeconds: number | null;
  graphqlBudgetPoints: number | null;
  graphqlBudgetWindowSeconds: number | null;
}) {
  return {
    rateLimit:
      row.rateLimitRequests && row.rateLimitWindowSeconds
        ? { requests: row.rateLimitRequests, windowSeconds: row.rateLimitWindowSeconds }
        : null,
    graphqlBudget:
      row.graphqlBudgetPoints && row.graphqlBudgetWindowSeconds
        ? { points: row.graphqlBudgetPoints, windowSeconds: row.graphqlBudgetWindowSeconds }
        : null,
  };
}
