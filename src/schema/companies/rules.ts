// Buyer companies as suppliers see them, and supplier facilities as the dashboard graph shows them.
import type { Context } from "../core/context.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";
import type { Viewer } from "../core/viewer.ts";
import type { Prisma } from "../../db.ts";

/** Every buyer company related to the supplier key, in one answer (the contract ignores paging and filters). */
export async function relatedBuyerCompanies(ctx: Context, query: object) {
  const data = await ctx.db.buyerCompany.findMany({
    ...query,
    where: relatedBuyerCompanyWhere(ctx.viewer),
    orderBy: { id: "asc" },
  });
  return { data, count: data.length };
}

/**
 * Supplier facilities a key may see by name (the dashboard graph's `supplierFacility`): buyer keys those
 * their company has or had a relationship with and its in-house teams' facilities; supplier-side keys
 * only their own facility.
 */
export function supplierFacilityScope(viewer: Viewer): Prisma.SupplierFacilityWhereInput {
  if (viewer.kind !== "buyer") return { id: viewer.supplierFacilityId ?? -1 };
  const company = viewer.buyerCompanyId ?? -1;
  return {
    OR: [{ buyerLinks: { some: { buyerCompanyId: company } } }, { supplierCompany: { internalTeamOfId: company } }],
  };
}
