import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { pageQuery } from "../core/list.ts";
import { BuyerCompanyPage } from "./types.ts";
import { relatedBuyerCompanies } from "./rules.ts";

builder.queryField("buyerCompanies", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["supplier"],
      method: "GET",
      path: "/buyer_company/buyer_companies",
      type: "BuyerCompany",
      list: true,
    }),
    description: "Every buyer company related to the supplier, in one response: pagination and filters are ignored.",
    type: BuyerCompanyPage,
    resolve: (_root, _args, ctx, info) => relatedBuyerCompanies(ctx, pageQuery(ctx, info)),
  }),
);
