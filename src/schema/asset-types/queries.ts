import { readRoutes } from "../core/read-routes.ts";
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
