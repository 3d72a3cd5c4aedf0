import { builder } from "../builder.ts";
import { pageType } from "../common/list.ts";
import { MeterRef } from "../meters/types.ts";
import { LabelRef } from "../labels/types.ts";

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

/** Fields shared by the asset's variants (the list shape and the single read with meters). */
const assetFields = (t: any) => ({
  id: t.exposeInt("id"),
  name: t.exposeString("name"),
  assetTypeId: t.exposeInt("assetTypeId"),
  locationId: t.exposeInt("locationId"),
  buyerCompanyId: t.exposeInt("buyerCompanyId"),
  isActive: t.exposeBoolean("isActive"),
  isLeased: t.exposeBoolean("isLeased"),
  serialNumber: t.exposeString("serialNumber", { nullable: true }),
  manufacturer: t.exposeString("manufacturer", { nullable: true }),
  assetModelId: t.exposeInt("assetModelId", { nullable: true }),
  installDate: t.expose("installDate", { type: "Date", nullable: true }),
  parentId: t.exposeInt("parentId", { nullable: true }),
  // The per-unit overrides as stored (null = inherit from the asset type) …
  refrigerantTypeCode: t.exposeString("refrigerantTypeCode", { nullable: true }),
  fullChargeLb: t.exposeFloat("fullChargeLb", { nullable: true }),
  applianceCategory: t.exposeString("applianceCategory", { nullable: true }),
  refrigerantRequiresProcessShutdown: t.exposeBoolean("refrigerantRequiresProcessShutdown", { nullable: true }),
  isRefrigerantTracked: t.exposeBoolean("isRefrigerantTracked"),
  // … and what applies, override or type default.
  effectiveRefrigerant: t.field({
    type: EffectiveRefrigerantRef,
    select: { assetType: true },
    resolve: (asset: any) => ({
      refrigerantTypeCode: asset.refrigerantTypeCode ?? asset.assetType.refrigerantTypeCode,
      fullChargeLb: asset.fullChargeLb ?? asset.assetType.fullChargeLb,
      applianceCategory: asset.applianceCategory ?? asset.assetType.applianceCategory,
      refrigerantRequiresProcessShutdown: asset.refrigerantRequiresProcessShutdown ?? null,
    }),
  }),
  warranties: t.expose("warranties", { type: "JSON" }),
  createdAt: t.expose("createdAt", { type: "DateTime" }),
  assetType: t.relation("assetType", { subGraphs: ["graphql"] }),
  location: t.relation("location", { subGraphs: ["graphql"] }),
  children: t.relation("children", { subGraphs: ["graphql"] }),
  meters: t.relation("meters", { subGraphs: ["graphql"] }),
  labels: t.field({
    type: [LabelRef],
    subGraphs: ["graphql"],
    select: { labels: { include: { label: true } } },
    resolve: (asset: any) => asset.labels.map((link: any) => link.label).filter((label: any) => !label.deletedAt),
  }),
});

const EffectiveRefrigerantRef = builder
  .objectRef<{ refrigerantTypeCode: string | null; fullChargeLb: number | null; applianceCategory: string | null; refrigerantRequiresProcessShutdown: boolean | null }>(
    "EffectiveRefrigerant",
  )
  .implement({
    description: "Refrigerant values that apply to the unit: its override, else the asset type's default",
    fields: (t) => ({
      refrigerantTypeCode: t.exposeString("refrigerantTypeCode", { nullable: true }),
      fullChargeLb: t.exposeFloat("fullChargeLb", { nullable: true }),
      applianceCategory: t.exposeString("applianceCategory", { nullable: true }),
      refrigerantRequiresProcessShutdown: t.exposeBoolean("refrigerantRequiresProcessShutdown", { nullable: true }),
    }),
  });

export const AssetRef = builder.prismaObject("Asset", { fields: (t) => assetFields(t) });

/** The single-asset read: the asset with its meters (envelope type ApiAssetWithMeter). */
export const AssetWithMeterRef = builder.prismaObject("Asset", {
  variant: "ApiAssetWithMeter",
  fields: (t) => ({ ...assetFields(t), meters: t.relation("meters", { type: MeterRef }) }),
});

/** The lite projection: id, name, type, serial, location and warranties. */
export const AssetLiteRef = builder.prismaObject("Asset", {
  variant: "AssetLite",
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    assetTypeId: t.exposeInt("assetTypeId"),
    serialNumber: t.exposeString("serialNumber", { nullable: true }),
    locationId: t.exposeInt("locationId"),
    warranties: t.expose("warranties", { type: "JSON" }),
  }),
});

export const AssetModelRef = builder.prismaObject("AssetModel", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    modelName: t.exposeString("modelName"),
    assetTypeId: t.exposeInt("assetTypeId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    manuals: t.expose("manuals", { type: "JSON" }),
    specs: t.expose("specs", { type: "JSON" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const AssetPage = pageType("Asset", AssetRef);
export const AssetLitePage = pageType("AssetLite", AssetLiteRef);
