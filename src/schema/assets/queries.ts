import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, listQuery, pageQuery } from "../core/list.ts";
import { readRoutes } from "../core/read-routes.ts";
import { AssetLitePage, AssetPage, AssetWithMeterRef } from "./types.ts";
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
