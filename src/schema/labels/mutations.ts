import { builder } from "../builder.ts";
import { restRoute, type Interface } from "../common/interfaces.ts";
import { findWritable } from "../common/tenancy.ts";
import { can, type Permission } from "../identity/permissions.ts";
import type { Context } from "../context.ts";
import { LabelPage } from "./types.ts";
import { ASSET_LABEL_LINKS, NOTHING, labelCompanyOf, replaceLabels, type LabelLinks } from "./rules.ts";

const LabelIdsInput = builder.inputType("LabelIdsInput", {
  fields: (t) => ({
    // JSON rather than [Int!]: the contract's rules (and messages) for bad ids are ours, not GraphQL's.
    ids: t.field({ type: "JSON", description: "Every label id to apply (whole numbers); the full set, [] clears all" }),
  }),
});

export interface LabelsRoute {
  field: string;
  interfaces: readonly Interface[];
  /** Ends in `/:<param>/labels`; the param is the labelled record's id. */
  path: string;
  param: string;
  links: LabelLinks;
  permission: Permission;
  /** The record's owner, for a key that may write it; else findWritable's 400 (same for unknown ids). */
  writable: (ctx: Context, id: number, scope: Record<string, unknown>) => Promise<{ buyerCompanyId: number }>;
}

/**
 * PUT …/labels for one kind of record. The write needs `permission` and a key with a catalog of its
 * own (labelCompanyOf): without either, the scope matches nothing, so the answer is the same 400 as
 * for an unknown or foreign record. Another kind of record is one LabelLinks value and one call, e.g.
 *   labelsField({ field: "putWorkOrderLabels", interfaces: ["buyer"], path: "/work_order/work_orders/:woId/labels",
 *     param: "woId", links: WORK_ORDER_LABEL_LINKS, permission: "workOrder.write",
 *     writable: (ctx, id, scope) => findWritable(ctx.db.workOrder, id, scope, { select: { buyerCompanyId: true } }) });
 */
export function labelsField(route: LabelsRoute) {
  builder.mutationField(route.field, (t) =>
    t.field({
      ...restRoute({ interfaces: route.interfaces, method: "PUT", path: route.path, type: "Label", list: true, bodyArg: "input" }),
      description: `Replaces the ${route.links.kind} labels of the record; returns the labels now active.`,
      type: LabelPage,
      args: { [route.param]: t.arg.int({ required: true }), input: t.arg({ type: LabelIdsInput, required: true }) },
      resolve: async (_root, args, ctx) => {
        const company = labelCompanyOf(ctx.viewer);
        const mayWrite = company !== null && can(ctx.viewer, route.permission);
        const id = args[route.param] as number;
        const record = await route.writable(ctx, id, mayWrite ? { buyerCompanyId: company } : NOTHING);
        return replaceLabels(ctx.db, route.links, id, record.buyerCompanyId, (args.input as { ids?: unknown }).ids);
      },
    }),
  );
}

labelsField({
  field: "putAssetLabels",
  interfaces: ["buyer", "supplier"],
  path: "/asset/assets/:assetId/labels",
  param: "assetId",
  links: ASSET_LABEL_LINKS,
  permission: "asset.write",
  writable: (ctx, id, scope) => findWritable(ctx.db.asset, id, scope, { select: { buyerCompanyId: true } }),
});
