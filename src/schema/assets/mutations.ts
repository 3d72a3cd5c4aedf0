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
    type: AssetRef,
    args: { input: t.arg({ type: AssetInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => upsertAsset(ctx, input, query),
  }),
);
