import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { AssetModelInput, AssetModelRef } from "./types.ts";
import { createAssetModel } from "./rules.ts";

builder.mutationField("createAssetModel", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/asset/asset_models", type: "AssetModel", bodyArg: "input" },
      requires("asset.write"),
    ),
    description: "Creates an asset model of an asset type, with optional manuals and specs (name and URL each).",
    type: AssetModelRef,
    args: { input: t.arg({ type: AssetModelInput, required: true, description: "The model to create" }) },
    resolve: (query, _root, { input }, ctx) => createAssetModel(ctx, input, query),
  }),
);
