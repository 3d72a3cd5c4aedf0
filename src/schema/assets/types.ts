import { builder } from "../builder.ts";
import { pageType } from "../common/list.ts";

export const AssetTypeRef = builder.prismaObject("AssetType", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    usesRefrigerant: t.exposeBoolean("usesRefrigerant"),
    refrigerantTypeCode: t.exposeString("refrigerantTypeCode", { nullable: true }),
    fullChargeLb: t.exposeFloat("fullChargeLb", { nullable: true }),
    applianceCategory: t.exposeString("applianceCategory", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const AssetTypePage = pageType("AssetType", AssetTypeRef);
