// Assets: the upsert, the list, the lite projection and the single read with meters.
import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findPage, listArgs, pageOf, pageQuery } from "../common/list.ts";
import { readRoutes } from "../common/read-routes.ts";
import { findWritable } from "../common/tenancy.ts";
import { outOfScope } from "../common/errors.ts";
import { can } from "../identity/permissions.ts";
import { AssetLitePage, AssetPage, AssetRef, AssetWithMeterRef } from "./types.ts";
import { ASSET_LIST, assetData, assetScope, checkAssetReferences, subtreeIds, type StoredAsset } from "./rules.ts";

const BOTH = ["buyer", "supplier"] as const;

// buyerCompanyId and buyerFacilityId are deliberately not declared: the REST body binding drops
// undeclared keys, so they can never be read from the body.
const AssetInput = builder.inputType("AssetInput", {
  fields: (t) => ({
    id: t.int({ description: "Updates this existing asset (upsert)" }),
    name: t.string({ required: true }),
    assetTypeId: t.int({ required: true }),
    locationId: t.int({ required: true }),
    isActive: t.boolean({ required: true }),
    isLeased: t.boolean({ required: true }),
    serialNumber: t.string(),
    manufacturer: t.string(),
    assetModelId: t.int({ description: "A model of the same asset type" }),
    installDate: t.field({ type: "Date" }),
    parentId: t.int({ description: "Makes the asset a sub-asset (company setting); must be at the parent's location; null detaches" }),
    warranties: t.field({ type: "JSON", description: "Array of objects, e.g. {provider, description, startsAt, endsAt}" }),
    refrigerantTypeCode: t.string({ description: "Override; omitted keeps, null or blank inherits the type's" }),
    fullChargeLb: t.field({ type: "JSON", description: "Override, a positive number; omitted keeps, null or blank inherits the type's" }),
    applianceCategory: t.string({ description: "Override; omitted keeps, null or blank inherits the type's" }),
    refrigerantRequiresProcessShutdown: t.field({ type: "JSON", description: "Override, a boolean; omitted keeps, null or blank clears" }),
    isRefrigerantTracked: t.boolean({ description: "Omitted or null keeps; only false turns tracking off" }),
  }),
});

builder.mutationField("upsertAsset", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/asset/assets", type: "Asset", bodyArg: "input" }),
    type: AssetRef,
    args: { input: t.arg({ type: AssetInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      if (!can(ctx.viewer, "asset.write")) throw outOfScope("this key may not write assets");
      const companyId = ctx.viewer.buyerCompanyId!;
      const data = assetData(input);
      return ctx.db.$transaction(async (tx) => {
        const stored =
          input.id == null
            ? null
            : await findWritable<StoredAsset>(tx.asset, input.id, assetScope(ctx.viewer), { select: { id: true, parentId: true, locationId: true } });
        await checkAssetReferences(tx, companyId, data, stored);
        if (!stored) return tx.asset.create({ ...query, data: { ...data, buyerCompanyId: companyId } });
        if (stored.locationId !== data.locationId) {
          // The sub-assets move with their parent (a child is always at its parent's location), and the
          // meters of all of them carry the asset's location.
          const tree = await subtreeIds(tx, stored.id);
          await tx.asset.updateMany({ where: { id: { in: tree } }, data: { locationId: data.locationId } });
          await tx.meter.updateMany({ where: { assetId: { in: tree } }, data: { locationId: data.locationId } });
        }
        return tx.asset.update({ ...query, where: { id: stored.id }, data });
      });
    },
  }),
);

readRoutes({
  interfaces: BOTH, path: "/asset/assets", type: "Asset", itemType: "ApiAssetWithMeter",
  fields: { list: "assets", one: "asset" },
  page: AssetPage, item: AssetWithMeterRef, table: (ctx) => ctx.db.asset, scope: assetScope, spec: ASSET_LIST,
});

// The route table ranks static paths above `:id` (rest/routes.ts), whatever the declaration order.
builder.queryField("assetsLite", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/asset/assets/asset_lite", type: "AssetLite", list: true }),
    description: "The lite projection. Without offset and limit: the whole set, and count equals the items returned.",
    type: AssetLitePage,
    args: listArgs,
    resolve: async (_root, args, ctx, info) => {
      const scope = assetScope(ctx.viewer);
      if (args.offset != null || args.limit != null) return findPage(ctx.db.asset, scope, args, ASSET_LIST, pageQuery(ctx, info));
      const { where, orderBy } = pageOf(args, ASSET_LIST); // filters and sorting still apply
      const data = await ctx.db.asset.findMany({ ...pageQuery(ctx, info), where: { AND: [scope, where] }, orderBy });
      return { data, count: data.length };
    },
  }),
);
