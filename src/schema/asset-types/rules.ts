// Asset types: who sees them, and what an upsert writes.
import type { Viewer } from "../core/viewer.ts";
import type { Context } from "../core/context.ts";
import { buyerOwnedScope, findWritable } from "../core/tenancy.ts";
import { badInput } from "../core/errors.ts";
import type { ListSpec } from "../core/list.ts";

export const assetTypeScope = (viewer: Viewer) => buyerOwnedScope(viewer);

export const ASSET_TYPE_LIST: ListSpec = {
  filters: {
    id: "int",
    name: "string",
    usesRefrigerant: "boolean",
    refrigerantTypeCode: "string",
    applianceCategory: "string",
    buyerCompanyId: "int",
  },
  sortable: ["id", "name", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

export interface AssetTypeInput {
  id?: number | null;
  name: string;
  usesRefrigerant?: boolean | null;
  refrigerantTypeCode?: string | null;
  fullChargeLb?: number | null;
  applianceCategory?: string | null;
}

/**
 * The columns an asset type write sets. A key that is absent keeps the stored value (on create: the
 * column default); an explicit null clears the nullable fields. buyerCompanyId is never read from input.
 */
function assetTypeData(input: AssetTypeInput) {
  if (!input.name.trim()) throw badInput("name must not be blank");
  if (input.fullChargeLb !== undefined && input.fullChargeLb !== null && !(input.fullChargeLb > 0)) {
    throw badInput("fullChargeLb must be positive");
  }
  const data: Record<string, unknown> = { name: input.name };
  if (input.usesRefrigerant !== undefined && input.usesRefrigerant !== null)
    data.usesRefrigerant = input.usesRefrigerant;
  for (const key of ["refrigerantTypeCode", "fullChargeLb", "applianceCategory"] as const) {
    if (input[key] !== undefined) data[key] = input[key];
  }
  return data;
}

/** Creates an asset type of the key's company, or updates one it may write (`id`). */
export async function upsertAssetType(ctx: Context, input: AssetTypeInput, query: object) {
  const data = assetTypeData(input);
  if (input.id === undefined || input.id === null) {
    return ctx.db.assetType.create({
      ...query,
      data: { ...(data as { name: string }), buyerCompanyId: ctx.viewer.buyerCompanyId! },
    });
  }
  await findWritable(ctx.db.assetType, "asset type", input.id, assetTypeScope(ctx.viewer));
  return ctx.db.assetType.update({ ...query, where: { id: input.id }, data });
}
