import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { pageType, pageQuery } from "../common/list.ts";
import { BuyerCompanyRef } from "./types.ts";
import { relatedBuyerCompanyWhere } from "../common/tenancy.ts";

const BuyerCompanyPage = pageType("BuyerCompany", BuyerCompanyRef);

builder.queryField("buyerCompanies", (t) =>
  t.field({
    ...restRoute({ interfaces: ["supplier"], method: "GET", path: "/buyer_company/buyer_companies", type: "BuyerCompany", list: true }),
    description: "Every buyer company related to the supplier, in one response: pagination and filters are ignored.",
    type: BuyerCompanyPage,
    resolve: async (_root, _args, ctx, info) => {
      const data = await ctx.db.buyerCompany.findMany({ ...pageQuery(ctx, info), where: relatedBuyerCompanyWhere(ctx.viewer), orderBy: { id: "asc" } });
      return { data, count: data.length };
    },
  }),
);
