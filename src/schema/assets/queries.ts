import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findPage, listArgs, pageQuery } from "../common/list.ts";
import { findInScope } from "../common/tenancy.ts";
import { AssetTypePage, AssetTypeRef } from "./types.ts";
import { ASSET_TYPE_LIST, assetTypeScope } from "./rules.ts";

const BOTH = ["buyer", "supplier"] as const;

builder.queryField("assetTypes", (t) =>
  t.field({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/asset/asset_types", type: "AssetType", list: true }),
    type: AssetTypePage,
    args: listArgs,
    resolve: (_root, args, ctx, info) =>
      findPage(ctx.db.assetType, assetTypeScope(ctx.viewer), args, ASSET_TYPE_LIST, pageQuery(ctx, info)),
  }),
);

builder.queryField("assetType", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/asset/asset_types/:id", type: "AssetType" }),
    type: AssetTypeRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => findInScope(ctx.db.assetType, args.id, assetTypeScope(ctx.viewer), query),
  }),
);
