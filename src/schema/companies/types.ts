import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { scopedRelation } from "../core/relations.ts";
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
    description: "The buyer company's configuration flags (set by the operator); null for supplier keys",
    subGraphs: ["graphql"],
    fields: (t) => ({
      subAssetsEnabled: t.exposeBoolean("subAssetsEnabled", {
        description: "Whether assets may have sub-assets (an asset's parentId)",
      }),
      serviceRequestsNeedApproval: t.exposeBoolean("serviceRequestsNeedApproval", {
        description: "Whether a new work order waits in PendingApproval unless its create body says needApproval false",
      }),
      cancellationLock: t.exposeBoolean("cancellationLock", {
        description:
          "Whether cancelling is refused (409) while a technician is checked in on the work order or a sub-contracted one",
      }),
      supplierInvoiceEditing: t.exposeBoolean("supplierInvoiceEditing", {
        description:
          "Whether suppliers may publish their invoices (upload_and_publish); true unless the operator turns it off",
      }),
      declineAutoPick: t.exposeBoolean("declineAutoPick", {
        description:
          "Whether a supplier's decline passes the work order to the next supplier by rank instead of back to PendingApproval",
      }),
      visibilityWebhooks: t.exposeBoolean("visibilityWebhooks", {
        description: "Whether suppliers that are only on a work order's visibility list receive its webhook events",
      }),
    }),
  });

export const BuyerCompanyRef = builder.prismaNode("BuyerCompany", {
  ...scopedNode(relatedBuyerCompanyWhere),
  // Suppliers get buyer companies with their settings stripped: absent from the supplier REST cut,
  // null in GraphQL.
  extensions: masked({ supplier: ["buyerCompanySettings"] }),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The buyer company's id" }),
    name: t.exposeString("name", { description: "Display name of the buyer company" }),
    buyerCompanySettings: t.field({
      description: "The company's configuration flags; null for supplier keys (stripped)",
      type: BuyerCompanySettingsRef,
      nullable: true,
      subGraphs: ["graphql"],
      resolve: (c) => c,
    }),
  }),
  description: "A buyer company: the owner of locations and equipment, and the tenant of buyer keys",
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
    ...scopedRelation(supplierFacilityScope),
  }),
);
