import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { pageQuery } from "../core/list.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";
import { BuyerCompanyPage, BuyerCompanyRef } from "./types.ts";
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

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("buyerCompaniesConnection", {
  type: BuyerCompanyRef,
  typeName: "BuyerCompany",
  description: "The buyer companies related to the supplier key.",
  interfaces: ["supplier"],
  table: (ctx) => ctx.db.buyerCompany,
  scope: (ctx) => relatedBuyerCompanyWhere(ctx.viewer),
  filter: defineFilter("BuyerCompanyFilter", "BuyerCompany", "Buyer companies", {
    ids: match.ids("id", "Buyer company ids"),
    search: match.text(["name"], "Text in the name (any case)"),
  }),
  order: defineOrder("BuyerCompany", "BuyerCompany", { id: "Company id", name: "Name", createdAt: "Creation time" }, [
    { field: "id", direction: "asc" },
  ]),
});
