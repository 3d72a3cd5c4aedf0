import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { AssetModelRef } from "./types.ts";
import { closestModel, FUZZY_MATCH_THRESHOLD } from "./rules.ts";

builder.queryField("assetModelFuzzy", (t) =>
  t.prismaField({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/asset/asset_models/fuzzy/:name/:assetTypeId",
      type: "AssetModel",
    }),
    description: `The model of the asset type whose name is most similar (pg_trgm) to name; 404 below ${FUZZY_MATCH_THRESHOLD}.`,
    type: AssetModelRef,
    args: {
      name: t.arg.string({ required: true, description: "The model name to match approximately (trigram similarity)" }),
      assetTypeId: t.arg.int({ required: true, description: "The asset type whose models are searched" }),
    },
    resolve: (query, _root, args, ctx) => closestModel(ctx, args.name, args.assetTypeId, query),
  }),
);
