import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { AssetInput, AssetRef } from "./types.ts";
import { upsertAsset } from "./rules.ts";

builder.mutationField("upsertAsset", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/asset/assets", type: "Asset", bodyArg: "input" },
      requires("asset.write"),
    ),
    description:
      "Creates an asset at a location of the key's company, or updates it when the body carries the id of an existing one (upsert); refrigerant fields override the type's defaults.",
    type: AssetRef,
    args: {
      input: t.arg({
        type: AssetInput,
        required: true,
        description: "The asset to create, or to update when it carries an id",
      }),
    },
    resolve: (query, _root, { input }, ctx) => upsertAsset(ctx, input, query),
  }),
);
