import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findWritable } from "../common/tenancy.ts";
import { AssetTypeRef } from "./types.ts";
import { assetTypeData, assetTypeScope } from "./rules.ts";

const AssetTypeInput = builder.inputType("AssetTypeInput", {
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset type (upsert)" }),
    name: t.string({ required: true }),
    usesRefrigerant: t.boolean(),
    refrigerantTypeCode: t.string({ description: "Omitted keeps the stored value; null clears" }),
    fullChargeLb: t.float({ description: "Positive when supplied; null clears" }),
    applianceCategory: t.string({ description: "null clears" }),
  }),
});

builder.mutationField("upsertAssetType", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/asset/asset_types", type: "AssetType", bodyArg: "input" }),
    type: AssetTypeRef,
    args: { input: t.arg({ type: AssetTypeInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = assetTypeData(input);
      if (input.id === undefined || input.id === null) {
        return ctx.db.assetType.create({ ...query, data: { ...(data as { name: string }), buyerCompanyId: ctx.viewer.buyerCompanyId! } });
      }
      await findWritable(ctx.db.assetType, input.id, assetTypeScope(ctx.viewer));
      return ctx.db.assetType.update({ ...query, where: { id: input.id }, data });
    },
  }),
);
