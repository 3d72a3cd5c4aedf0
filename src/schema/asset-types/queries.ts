import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { AssetTypePage, AssetTypeRef } from "./types.ts";
import { ASSET_TYPE_LIST, assetTypeScope } from "./rules.ts";

readRoutes({
  interfaces: ["buyer", "supplier"],
  path: "/asset/asset_types",
  type: "AssetType",
  fields: { list: "assetTypes", one: "assetType" },
  description: "The asset types of the key's buyer company, with their refrigerant defaults.",
  page: AssetTypePage,
  item: AssetTypeRef,
  table: (ctx) => ctx.db.assetType,
  scope: assetTypeScope,
  spec: ASSET_TYPE_LIST,
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("assetTypesConnection", {
  type: AssetTypeRef,
  typeName: "AssetType",
  description: "The asset types of the key's buyer company.",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.assetType,
  scope: (ctx) => assetTypeScope(ctx.viewer),
  filter: defineFilter("AssetTypeFilter", "AssetType", "Asset types", {
    ids: match.ids("id", "Asset type ids"),
    usesRefrigerant: match.flag("usesRefrigerant", "Types that use refrigerant (true) or not (false)"),
    search: match.text(["name", "applianceCategory"], "Text in the name or appliance category (any case)"),
  }),
  order: defineOrder("AssetType", "AssetType", { id: "Asset type id", name: "Name", createdAt: "Creation time" }, [
    { field: "id", direction: "asc" },
  ]),
});
