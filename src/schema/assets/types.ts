import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { assetScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { MeterRef } from "../meters/public.ts";
import { LabelRef, labelScope } from "../labels/public.ts";
import type { Context } from "../core/context.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope } from "../core/relations.ts";
import type { Asset } from "../../generated/prisma/client.ts";

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
  labels: t.field({
    type: [LabelRef],
    subGraphs: ["graphql"],
    // The key's label catalog only (third-party supplier keys have none), as the label routes answer.
    select: (_args: unknown, ctx: Context) => ({
      labels: { where: { label: labelScope(ctx.viewer) }, include: { label: true } },
    }),
    resolve: (asset: any) => asset.labels.map((link: any) => link.label).filter((label: any) => !label.deletedAt),
  }),
});

const EffectiveRefrigerantRef = builder
  .objectRef<{
    refrigerantTypeCode: string | null;
    fullChargeLb: number | null;
    applianceCategory: string | null;
    refrigerantRequiresProcessShutdown: boolean | null;
  }>("EffectiveRefrigerant")
  .implement({
    description: "Refrigerant values that apply to the unit: its override, else the asset type's default",
    fields: (t) => ({
      refrigerantTypeCode: t.exposeString("refrigerantTypeCode", { nullable: true }),
      fullChargeLb: t.exposeFloat("fullChargeLb", { nullable: true }),
      applianceCategory: t.exposeString("applianceCategory", { nullable: true }),
      refrigerantRequiresProcessShutdown: t.exposeBoolean("refrigerantRequiresProcessShutdown", { nullable: true }),
    }),
  });

export const AssetRef = builder.prismaNode("Asset", { ...scopedNode(assetScope), fields: (t) => assetFields(t) });

/** The single-asset read: the asset with its meters (envelope type ApiAssetWithMeter). */
export const AssetWithMeterRef = builder.prismaObject("Asset", {
  variant: "ApiAssetWithMeter",
  fields: (t) => ({ ...assetFields(t), meters: t.relation("meters", { type: MeterRef }) }),
});

/** The lite projection: id, name, type, serial, location and warranties. */
const AssetLiteRef = builder.prismaObject("Asset", {
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

export const AssetPage = pageType("Asset", AssetRef);

// The dashboard graph (GraphQL only, docs/dashboards.md): relations into assets, within the key's asset scope.
builder.prismaObjectField("WorkOrder", "asset", (t) =>
  t.relation("asset", {
    nullable: true,
    subGraphs: ["graphql"],
    description: "The asset worked on; null when there is none or the key may not read it",
    query: relationQuery(assetScope),
  }),
);

builder.prismaObjectField("WorkOrder", "subAssets", (t) =>
  t.prismaField({
    type: ["Asset"],
    subGraphs: ["graphql"],
    description: "The sub-assets of the asset that the work order names (subAssetIds) and the key may read",
    resolve: async (query, wo, _args, ctx) => {
      const loader = rowsInScope<Asset>(ctx, "Asset", assetScope, query);
      const assets = await Promise.all(wo.subAssetIds.map((id) => loader.load(id)));
      return assets.filter((asset) => asset !== null);
    },
  }),
);

builder.prismaObjectField("Location", "assets", (t) =>
  t.relatedConnection(
    "assets",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "Assets at the location, by id",
      totalCount: true,
      query: relationQuery(assetScope, { id: "asc" as const }),
    },
    ...connectionTypes("A page of a location's assets", "An asset and its cursor"),
  ),
);
export const AssetLitePage = pageType("AssetLite", AssetLiteRef);

// buyerCompanyId and buyerFacilityId are deliberately not declared: the REST body binding drops
// undeclared keys, so they can never be read from the body.
export const AssetInput = builder.inputType("AssetInput", {
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset (upsert)" }),
    name: t.string({ required: true }),
    assetTypeId: t.int({ required: true }),
    locationId: t.int({ required: true }),
    isActive: t.boolean({ required: true }),
    isLeased: t.boolean({ required: true }),
    serialNumber: t.string(),
    manufacturer: t.string(),
    assetModelId: t.int({ description: "A model of the same asset type" }),
    installDate: t.field({ type: "Date" }),
    parentId: t.int({
      description: "Makes the asset a sub-asset (company setting); must be at the parent's location; null detaches",
    }),
    warranties: t.field({
      type: "JSON",
      description: "Array of objects, e.g. {provider, description, startsAt, endsAt}",
    }),
    refrigerantTypeCode: t.string({ description: "Override; omitted keeps, null or blank inherits the type's" }),
    fullChargeLb: t.field({
      type: "JSON",
      description: "Override, a positive number; omitted keeps, null or blank inherits the type's",
    }),
    applianceCategory: t.string({ description: "Override; omitted keeps, null or blank inherits the type's" }),
    refrigerantRequiresProcessShutdown: t.field({
      type: "JSON",
      description: "Override, a boolean; omitted keeps, null or blank clears",
    }),
    isRefrigerantTracked: t.boolean({ description: "Omitted or null keeps; only false turns tracking off" }),
  }),
});
