// Tenant scoping helpers shared by the domains. Each domain builds its scope from these in one place
// (its rules.ts); resolvers never trust ids from the request to decide what a key may see.
import { Prisma, type Tx } from "../../db.ts";
import type { Viewer } from "./viewer.ts";
import { type ApiError, notFound, notWritable, outOfScope } from "./errors.ts";

/** A `where` that matches no row (Prisma: `in` over an empty list). */
export const NOTHING = { id: { in: [] as number[] } };

/**
 * `where` over BuyerCompany for the companies a supplier-side key is related to: the buyer whose
 * in-house team it is, and every buyer with a live relationship to its facility.
 */
export function relatedBuyerCompanyWhere(viewer: Viewer): Record<string, unknown> {
  const related: Record<string, unknown>[] = [
    { supplierLinks: { some: { supplierFacilityId: viewer.supplierFacilityId ?? -1, deletedAt: null } } },
  ];
  if (viewer.buyerCompanyId !== null) related.push({ id: viewer.buyerCompanyId });
  return { OR: related };
}

/**
 * `where` for rows owned by a buyer company (they carry buyerCompanyId and a buyerCompany relation):
 * buyer keys see their company, supplier-side keys the related companies.
 */
export function buyerOwnedScope(viewer: Viewer): Record<string, unknown> {
  if (viewer.kind === "buyer") return { buyerCompanyId: viewer.buyerCompanyId };
  return { buyerCompany: relatedBuyerCompanyWhere(viewer) };
}

interface Findable {
  findFirst(args: any): Promise<any>;
  count(args: any): Promise<number>;
}

/**
 * One record in scope. The contract distinguishes "does not exist" (404) from "exists but is outside
 * your scope" (400); the second look-up runs only on a miss.
 */
export async function findInScope<T = any>(
  delegate: Findable,
  id: number,
  scope: Record<string, unknown>,
  query: object = {},
): Promise<T> {
  const row = await delegate.findFirst({ ...query, where: { AND: [{ id }, scope] } });
  if (row) return row as T;
  throw (await delegate.count({ where: { id } })) > 0 ? outOfScope() : notFound();
}

/**
 * One record the key may write. An unknown, deleted or foreign id all give the same 400 as a denied
 * write (the contract's rule for PATCH and label writes), so ids of other tenants cannot be probed.
 */
export async function findWritable<T = any>(
  delegate: Findable,
  noun: string,
  id: number,
  scope: Record<string, unknown>,
  query: object = {},
): Promise<T> {
  const row = await delegate.findFirst({ ...query, where: { AND: [{ id }, scope] } });
  if (!row) throw notWritable(noun, id);
  return row as T;
}

/**
 * The record a write changes, locked for the rest of the transaction (writes to one record run one
 * after the other) and read within `scope`. Unknown, foreign and denied alike: findWritable's 400, or
 * `refuse`'s error where the body's field names the record.
 */
export async function lockWritable<T = any>(
  tx: Tx,
  model: Prisma.ModelName,
  noun: string,
  id: number,
  scope: Record<string, unknown>,
  query: object = {},
  refuse: () => ApiError = () => notWritable(noun, id),
): Promise<T> {
  // Each table is named after its model (no @@map): the identifier comes from that closed set, never
  // from the request; the id is a parameter.
  await tx.$queryRaw`SELECT id FROM ${Prisma.raw(`"${Prisma.ModelName[model]}"`)} WHERE id = ${id} FOR UPDATE`;
  const delegate = (tx as unknown as Record<string, Findable>)[model[0].toLowerCase() + model.slice(1)];
  const row = await delegate.findFirst({ ...query, where: { AND: [{ id }, scope] } });
  if (!row) throw refuse();
  return row as T;
}
