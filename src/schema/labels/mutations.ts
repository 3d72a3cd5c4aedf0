// PUT …/labels: the one replace-labels route, for any kind of labelled record.
import { builder } from "../core/builder.ts";
import { restRoute, type Interface } from "../core/interfaces.ts";
import { findWritable, NOTHING } from "../core/tenancy.ts";
import { requires, type Permission } from "../core/permissions.ts";
import type { Context } from "../core/context.ts";
import { LabelIdsInput, LabelPage } from "./types.ts";
import { ASSET_LABEL_LINKS, labelCompanyOf, replaceLabels, type LabelLinks } from "./rules.ts";

export interface LabelsRoute {
  field: string;
  interfaces: readonly Interface[];
  /** Ends in `/:<param>/labels`; the param is the labelled record's id. */
  path: string;
  param: string;
  links: LabelLinks;
  permission: Permission;
  /** The labelled records: what they are called in a refusal, their table, and the key's scope over them. */
  noun: string;
  table: (ctx: Context) => { findFirst(args: any): Promise<any>; count(args: any): Promise<number> };
  scope: (ctx: Context) => Record<string, unknown>;
}

/**
 * PUT …/labels for one kind of record (work orders: work-orders/mutations.ts). The write needs
 * `permission`, and a key with a catalog of its own (labelCompanyOf): without one the scope matches
 * nothing, so the answer is the same 400 as for an unknown or foreign record.
 */
export function labelsField(route: LabelsRoute) {
  builder.mutationField(route.field, (t) =>
    t.field({
      ...restRoute(
        { interfaces: route.interfaces, method: "PUT", path: route.path, type: "Label", list: true, bodyArg: "input" },
        requires(route.permission, { noun: route.noun, id: (args) => args[route.param] }),
      ),
      description: `Replaces the ${route.links.kind} labels of the record; returns the labels now active.`,
      type: LabelPage,
      args: {
        [route.param]: t.arg.int({ required: true, description: `Id of the ${route.noun} whose labels are replaced` }),
        input: t.arg({ type: LabelIdsInput, required: true, description: "The label ids to apply" }),
      },
      resolve: async (_root, args, ctx) => {
        const company = labelCompanyOf(ctx.viewer);
        const id = args[route.param] as number;
        const scope = { AND: [company === null ? NOTHING : { buyerCompanyId: company }, route.scope(ctx)] };
        const record = await findWritable<{ buyerCompanyId: number }>(route.table(ctx), route.noun, id, scope, {
          select: { buyerCompanyId: true },
        });
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
  noun: "asset",
  table: (ctx) => ctx.db.asset,
  scope: () => ({}),
});
