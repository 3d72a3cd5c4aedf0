// Buyer companies as suppliers see them.
import type { Context } from "../core/context.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";

/** Every buyer company related to the supplier key, in one answer (the contract ignores paging and filters). */
export async function relatedBuyerCompanies(ctx: Context, query: object) {
  const data = await ctx.db.buyerCompany.findMany({
    ...query,
    where: relatedBuyerCompanyWhere(ctx.viewer),
    orderBy: { id: "asc" },
  });
  return { data, count: data.length };
}
