import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { assetTypeScope } from "./rules.ts";
import { pageType } from "../core/list.ts";

export const AssetTypeRef = builder.prismaNode("AssetType", {
  ...scopedNode(assetTypeScope),
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

export const AssetTypeInput = builder.inputType("AssetTypeInput", {
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset type (upsert)" }),
    name: t.string({ required: true }),
    usesRefrigerant: t.boolean(),
    refrigerantTypeCode: t.string({ description: "Omitted keeps the stored value; null clears" }),
    fullChargeLb: t.float({ description: "Positive when supplied; null clears" }),
    applianceCategory: t.string({ description: "null clears" }),
  }),
});
