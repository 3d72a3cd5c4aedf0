import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { assetTypeScope } from "./rules.ts";
import { pageType } from "../core/list.ts";

export const AssetTypeRef = builder.prismaNode("AssetType", {
  ...scopedNode(assetTypeScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The asset type's id" }),
    name: t.exposeString("name", { description: "Display name of the asset type" }),
    usesRefrigerant: t.exposeBoolean("usesRefrigerant", { description: "Whether assets of this type use refrigerant" }),
    refrigerantTypeCode: t.exposeString("refrigerantTypeCode", {
      nullable: true,
      description: "Default refrigerant code for assets of this type (e.g. R-410A); null when none",
    }),
    fullChargeLb: t.exposeFloat("fullChargeLb", {
      nullable: true,
      description: "Default full refrigerant charge in pounds for assets of this type; null when unknown",
    }),
    applianceCategory: t.exposeString("applianceCategory", {
      nullable: true,
      description: "Default appliance category for assets of this type; null when none",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", {
      description: "Id of the buyer company that owns the asset type (derived from the key)",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the asset type was created" }),
  }),
  description: "A kind of equipment in a buyer company's catalog, with the refrigerant defaults its assets inherit",
});

export const AssetTypePage = pageType("AssetType", AssetTypeRef);

export const AssetTypeInput = builder.inputType("AssetTypeInput", {
  description: "Body of an asset type create or upsert",
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset type (upsert)" }),
    name: t.string({ required: true, description: "Display name of the asset type; required, not blank" }),
    usesRefrigerant: t.boolean({ description: "Whether assets of this type use refrigerant" }),
    refrigerantTypeCode: t.string({ description: "Omitted keeps the stored value; null clears" }),
    fullChargeLb: t.float({ description: "Positive when supplied; null clears" }),
    applianceCategory: t.string({ description: "null clears" }),
  }),
});
