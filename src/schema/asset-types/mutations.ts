import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { AssetTypeInput, AssetTypeRef } from "./types.ts";
import { upsertAssetType } from "./rules.ts";

builder.mutationField("upsertAssetType", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/asset/asset_types", type: "AssetType", bodyArg: "input" },
      requires("asset.write"),
    ),
    description:
      "Creates an asset type of the key's company, or updates it when the body carries the id of an existing one (upsert).",
    type: AssetTypeRef,
    args: {
      input: t.arg({
        type: AssetTypeInput,
        required: true,
        description: "The asset type to create, or to update when it carries an id",
      }),
    },
    resolve: (query, _root, { input }, ctx) => upsertAssetType(ctx, input, query),
  }),
);
