import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { assetScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { MeterRef } from "../meters/public.ts";
import { LabelRef, labelScope } from "../labels/public.ts";
import type { Context } from "../core/context.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope, scopedRelation } from "../core/relations.ts";
import type { Asset } from "../../generated/prisma/client.ts";
import { Prisma } from "../../db.ts";
import { answeredValue } from "../core/statement-answers.ts";

/** Fields shared by the asset's variants (the list shape and the single read with meters). */
const assetFields = (t: any) => ({
  id: t.exposeInt("id", { description: "The asset's id" }),
  name: t.exposeString("name", { description: "Display name of the asset" }),
  assetTypeId: t.exposeInt("assetTypeId", { description: "Id of the asset's type" }),
  locationId: t.exposeInt("locationId", { description: "Id of the location where the asset stands" }),
  buyerCompanyId: t.exposeInt("buyerCompanyId", {
    description: "Id of the buyer company that owns the asset (derived from its location)",
  }),
  isActive: t.exposeBoolean("isActive", { description: "Whether the asset is in service" }),
  isLeased: t.exposeBoolean("isLeased", { description: "Whether the asset is leased rather than owned" }),
  serialNumber: t.exposeString("serialNumber", {
    nullable: true,
    description: "Manufacturer's serial number; null when unknown",
  }),
  manufacturer: t.exposeString("manufacturer", {
    nullable: true,
    description: "Manufacturer's name; null when unknown",
  }),
  assetModelId: t.exposeInt("assetModelId", {
    nullable: true,
    description: "Id of the asset's model (of the same asset type); null when none",
  }),
  installDate: t.expose("installDate", {
    type: "Date",
    nullable: true,
    description: "Calendar date the asset was installed; null when unknown",
  }),
  parentId: t.exposeInt("parentId", {
    nullable: true,
    description: "Id of the parent asset when this is a sub-asset; null for a top-level asset",
  }),
  // The per-unit overrides as stored (null = inherit from the asset type) …
  refrigerantTypeCode: t.exposeString("refrigerantTypeCode", {
    nullable: true,
    description: "This unit's refrigerant code override; null inherits the asset type's (see effectiveRefrigerant)",
  }),
  fullChargeLb: t.exposeFloat("fullChargeLb", {
    nullable: true,
    description: "This unit's full refrigerant charge override, in pounds; null inherits the asset type's",
  }),
  applianceCategory: t.exposeString("applianceCategory", {
    nullable: true,
    description: "This unit's appliance category override; null inherits the asset type's",
  }),
  refrigerantRequiresProcessShutdown: t.exposeBoolean("refrigerantRequiresProcessShutdown", {
    nullable: true,
    description: "Whether servicing the refrigerant circuit needs a process shutdown; null when not set",
  }),
  isRefrigerantTracked: t.exposeBoolean("isRefrigerantTracked", {
    description: "Whether the unit is enrolled in refrigerant tracking",
  }),
  // … and what applies, override or type default.
  effectiveRefrigerant: t.field({
    description: "The refrigerant values that apply: this unit's overrides, else its asset type's defaults",
    type: EffectiveRefrigerantRef,
    select: { assetType: true },
    // The same values for a statement that answers the row (core/statement-answers.ts).
    extensions: answeredValue(
      (asset) => Prisma.sql`(SELECT json_build_object(
        'refrigerantTypeCode', coalesce(${Prisma.raw(asset)}."refrigerantTypeCode", asset_type."refrigerantTypeCode"),
        'fullChargeLb', coalesce(${Prisma.raw(asset)}."fullChargeLb", asset_type."fullChargeLb"),
        'applianceCategory', coalesce(${Prisma.raw(asset)}."applianceCategory", asset_type."applianceCategory"),
        'refrigerantRequiresProcessShutdown', ${Prisma.raw(asset)}."refrigerantRequiresProcessShutdown")
        FROM "AssetType" asset_type WHERE asset_type.id = ${Prisma.raw(asset)}."assetTypeId")`,
    ),
    resolve: (asset: any) => ({
      refrigerantTypeCode: asset.refrigerantTypeCode ?? asset.assetType.refrigerantTypeCode,
      fullChargeLb: asset.fullChargeLb ?? asset.assetType.fullChargeLb,
      applianceCategory: asset.applianceCategory ?? asset.assetType.applianceCategory,
      refrigerantRequiresProcessShutdown: asset.refrigerantRequiresProcessShutdown ?? null,
    }),
  }),
  warranties: t.expose("warranties", {
    type: "JSON",
    description: "The asset's warranties: an array of {provider, description, startsAt, endsAt}",
  }),
  createdAt: t.expose("createdAt", { type: "DateTime", description: "When the asset was created" }),
  assetType: t.relation("assetType", { subGraphs: ["graphql"], description: "The asset's type" }),
  location: t.relation("location", { subGraphs: ["graphql"], description: "The location where the asset stands" }),
  children: t.relation("children", {
    subGraphs: ["graphql"],
    description: "The asset's sub-assets (assets whose parentId is this asset)",
  }),
  labels: t.field({
    description: "The asset labels applied to the asset (deleted catalog labels left out)",
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
      refrigerantTypeCode: t.exposeString("refrigerantTypeCode", {
        nullable: true,
        description: "Refrigerant code that applies (e.g. R-410A); null when neither the unit nor its type sets one",
      }),
      fullChargeLb: t.exposeFloat("fullChargeLb", {
        nullable: true,
        description:
          "Full refrigerant charge that applies, in pounds; null when neither the unit nor its type sets one",
      }),
      applianceCategory: t.exposeString("applianceCategory", {
        nullable: true,
        description: "Appliance category that applies; null when neither the unit nor its type sets one",
      }),
      refrigerantRequiresProcessShutdown: t.exposeBoolean("refrigerantRequiresProcessShutdown", {
        nullable: true,
        description: "This unit's process shutdown flag (asset types carry no default); null when not set",
      }),
    }),
  });

export const AssetRef = builder.prismaNode("Asset", {
  ...scopedNode(assetScope),
  fields: (t) => assetFields(t),
  description: "A piece of equipment at a location of a buyer company (a unit, or a sub-asset of one)",
});

/** The single-asset read: the asset with its meters (envelope type ApiAssetWithMeter). */
export const AssetWithMeterRef = builder.prismaObject("Asset", {
  variant: "ApiAssetWithMeter",
  fields: (t) => ({
    ...assetFields(t),
    meters: t.relation("meters", { type: MeterRef, description: "The meters on the asset, loaded with it" }),
  }),
  description: "An asset with its meters: the single-asset read (REST envelope type ApiAssetWithMeter)",
});

/** The lite projection: id, name, type, serial, location and warranties. */
const AssetLiteRef = builder.prismaObject("Asset", {
  variant: "AssetLite",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The asset's id" }),
    name: t.exposeString("name", { description: "Display name of the asset" }),
    assetTypeId: t.exposeInt("assetTypeId", { description: "Id of the asset's type" }),
    serialNumber: t.exposeString("serialNumber", {
      nullable: true,
      description: "Manufacturer's serial number; null when unknown",
    }),
    locationId: t.exposeInt("locationId", { description: "Id of the location where the asset stands" }),
    warranties: t.expose("warranties", {
      type: "JSON",
      description: "The asset's warranties: an array of {provider, description, startsAt, endsAt}",
    }),
  }),
  description: "The lite projection of an asset: id, name, type, serial number, location and warranties",
});

export const AssetPage = pageType("Asset", AssetRef);

// The dashboard graph (GraphQL only, docs/dashboards.md): relations into assets, within the key's asset scope.
builder.prismaObjectField("WorkOrder", "asset", (t) =>
  t.relation("asset", {
    nullable: true,
    subGraphs: ["graphql"],
    description: "The asset worked on; null when there is none or the key may not read it",
    ...scopedRelation(assetScope),
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
  description: "Body of an asset create or upsert; the company and facility come from the location",
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset (upsert)" }),
    name: t.string({ required: true, description: "Display name of the asset; required" }),
    assetTypeId: t.int({ required: true, description: "An asset type of the key's company; required" }),
    locationId: t.int({ required: true, description: "A location of the key's company; required" }),
    isActive: t.boolean({ required: true, description: "Whether the asset is in service; required" }),
    isLeased: t.boolean({ required: true, description: "Whether the asset is leased rather than owned; required" }),
    serialNumber: t.string({ description: "Manufacturer's serial number" }),
    manufacturer: t.string({ description: "Manufacturer's name" }),
    assetModelId: t.int({ description: "A model of the same asset type" }),
    installDate: t.field({ type: "Date", description: "Calendar date the asset was installed (YYYY-MM-DD)" }),
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
