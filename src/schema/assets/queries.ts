import { readRoutes } from "../common/read-routes.ts";
import { AssetTypePage, AssetTypeRef } from "./types.ts";
import { ASSET_TYPE_LIST, assetTypeScope } from "./rules.ts";

const BOTH = ["buyer", "supplier"] as const;

readRoutes({
  interfaces: BOTH, path: "/asset/asset_types", type: "AssetType",
  fields: { list: "assetTypes", one: "assetType" },
  page: AssetTypePage, item: AssetTypeRef, table: (ctx) => ctx.db.assetType, scope: assetTypeScope, spec: ASSET_TYPE_LIST,
});
