import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, listQuery, pageQuery } from "../core/list.ts";
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { AssetLitePage, AssetPage, AssetRef, AssetWithMeterRef } from "./types.ts";
import { ASSET_LIST, assetLitePage, assetScope } from "./rules.ts";

readRoutes({
  interfaces: ["buyer", "supplier"],
  path: "/asset/assets",
  type: "Asset",
  itemType: "ApiAssetWithMeter",
  fields: { list: "assets", one: "asset" },
  description: "The assets at locations the key may see.",
  page: AssetPage,
  item: AssetWithMeterRef,
  table: (ctx) => ctx.db.asset,
  scope: assetScope,
  spec: ASSET_LIST,
});

builder.queryField("assetsLite", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/asset/assets/asset_lite",
      type: "AssetLite",
      list: true,
      query: listQuery(ASSET_LIST),
    }),
    description: "The lite projection. Without offset and limit: the whole set, and count equals the items returned.",
    type: AssetLitePage,
    args: listArgs,
    resolve: (_root, args, ctx, info) => assetLitePage(ctx, args, pageQuery(ctx, info)),
  }),
);

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("assetsConnection", {
  type: AssetRef,
  typeName: "Asset",
  description: "The assets at locations the key may see.",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.asset,
  scope: (ctx) => assetScope(ctx.viewer),
  filter: defineFilter("AssetFilter", "Asset", "Assets", {
    ids: match.ids("id", "Asset ids"),
    locationIds: match.ids("locationId", "Location ids"),
    assetTypeIds: match.ids("assetTypeId", "Asset type ids"),
    assetModelIds: match.ids("assetModelId", "Asset model ids"),
    parentIds: match.ids("parentId", "Parent asset ids (sub-assets of these)"),
    isActive: match.flag("isActive", "Active assets (true) or retired ones (false)"),
    isLeased: match.flag("isLeased", "Leased assets (true) or owned ones (false)"),
    isRefrigerantTracked: match.flag("isRefrigerantTracked", "Assets whose refrigerant is tracked (true) or not"),
    createdAt: match.range("createdAt", "Created in this range"),
    search: match.text(["name", "serialNumber", "manufacturer"], "Text in the name, serial number or manufacturer"),
  }),
  order: defineOrder(
    "Asset",
    "Asset",
    { id: "Asset id", name: "Name", locationId: "Location id", createdAt: "Creation time" },
    [{ field: "id", direction: "asc" }],
  ),
});
