import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { relationQuery } from "../core/relations.ts";
import { supplierFacilityScope } from "./rules.ts";

const BuyerCompanySettingsRef = builder
  .objectRef<{
    subAssetsEnabled: boolean;
    serviceRequestsNeedApproval: boolean;
    cancellationLock: boolean;
    supplierInvoiceEditing: boolean;
    declineAutoPick: boolean;
    visibilityWebhooks: boolean;
  }>("BuyerCompanySettings")
  .implement({
    subGraphs: ["graphql"],
    fields: (t) => ({
      subAssetsEnabled: t.exposeBoolean("subAssetsEnabled"),
      serviceRequestsNeedApproval: t.exposeBoolean("serviceRequestsNeedApproval"),
      cancellationLock: t.exposeBoolean("cancellationLock"),
      supplierInvoiceEditing: t.exposeBoolean("supplierInvoiceEditing"),
      declineAutoPick: t.exposeBoolean("declineAutoPick"),
      visibilityWebhooks: t.exposeBoolean("visibilityWebhooks"),
    }),
  });

export const BuyerCompanyRef = builder.prismaNode("BuyerCompany", {
  ...scopedNode(relatedBuyerCompanyWhere),
  // Suppliers get buyer companies with their settings stripped: absent from the supplier REST cut,
  // null in GraphQL.
  extensions: masked({ supplier: ["buyerCompanySettings"] }),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    buyerCompanySettings: t.field({
      type: BuyerCompanySettingsRef,
      nullable: true,
      subGraphs: ["graphql"],
      resolve: (c) => c,
    }),
  }),
});

export const BuyerCompanyPage = pageType("BuyerCompany", BuyerCompanyRef);

// The dashboard graph's suppliers (GraphQL only): reached from a work order's supplierFacility, which
// applies supplierFacilityScope; a facility's company is shown with it (its name only).
builder.prismaObject("SupplierCompany", {
  subGraphs: ["graphql"],
  description: "A supplier company: a third-party service company or a buyer's in-house team",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The company's id" }),
    name: t.exposeString("name", { description: "The company's name" }),
  }),
});

builder.prismaObject("SupplierFacility", {
  subGraphs: ["graphql"],
  description: "A supplier facility: the unit work orders are assigned to",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The facility's id (a work order's supplierFacilityId)" }),
    name: t.exposeString("name", { description: "The facility's name" }),
    currency: t.exposeString("currency", { description: "The facility's currency (ISO 4217)" }),
    company: t.relation("supplierCompany", { description: "The supplier company the facility belongs to" }),
  }),
});

builder.prismaObjectField("WorkOrder", "supplierFacility", (t) =>
  t.relation("supplierFacility", {
    nullable: true,
    subGraphs: ["graphql"],
    description: "The assigned supplier facility; null when unassigned or the key may not see it by name",
    query: relationQuery(supplierFacilityScope),
  }),
);
