import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { relatedBuyerCompanyWhere } from "../core/tenancy.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";

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
