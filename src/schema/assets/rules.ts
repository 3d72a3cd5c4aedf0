// Assets: who sees them, what an upsert writes and checks, and the sub-asset tree.
import type { Viewer } from "../core/viewer.ts";
import type { Context } from "../core/context.ts";
import { buyerOwnedScope, findWritable } from "../core/tenancy.ts";
import { badInput } from "../core/errors.ts";
import { findPage, pageOf, type ListArgs, type ListSpec } from "../core/list.ts";
import type { Prisma, Tx } from "../../db.ts";
import { inTransaction } from "../core/transaction.ts";

export const assetScope = (viewer: Viewer) => buyerOwnedScope(viewer);

export const ASSET_LIST: ListSpec = {
  filters: {
    id: "int",
    name: "string",
    locationId: "int",
    assetTypeId: "int",
    assetModelId: "int",
    parentId: "int",
    isActive: "boolean",
    isLeased: "boolean",
    isRefrigerantTracked: "boolean",
    serialNumber: "string",
    manufacturer: "string",
    buyerCompanyId: "int",
  },
  sortable: ["id", "name", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

/** The asset write body as GraphQL hands it over: absent keys are undefined, explicit nulls are null. */
export interface AssetInput {
  id?: number | null;
  name: string;
  assetTypeId: number;
  locationId: number;
  isActive: boolean;
  isLeased: boolean;
  serialNumber?: string | null;
  manufacturer?: string | null;
  assetModelId?: number | null;
  installDate?: Date | null;
  parentId?: number | null;
  warranties?: unknown;
  refrigerantTypeCode?: string | null;
  /** JSON so that a blank string can clear it too: number, null or "". */
  fullChargeLb?: unknown;
  applianceCategory?: string | null;
  /** JSON so that a blank string can clear it too: boolean, null or "". */
  refrigerantRequiresProcessShutdown?: unknown;
  isRefrigerantTracked?: boolean | null;
}

/** The asset's columns as a write sets them (buyerCompanyId is added from the key on create). */
export type AssetData = Omit<Prisma.AssetUncheckedCreateInput, "buyerCompanyId">;

const isBlank = (value: unknown) => value === null || (typeof value === "string" && value.trim() === "");

const REFRIGERANT_OVERRIDES = [
  "refrigerantTypeCode",
  "fullChargeLb",
  "applianceCategory",
  "refrigerantRequiresProcessShutdown",
] as const;

/** The two overrides the input types as JSON (so that "" can clear them) are checked here. */
const OVERRIDE_CHECKS: Partial<Record<(typeof REFRIGERANT_OVERRIDES)[number], [(v: unknown) => boolean, string]>> = {
  fullChargeLb: [
    (v) => typeof v === "number" && Number.isFinite(v) && v > 0,
    "fullChargeLb must be a positive number, null or blank",
  ],
  refrigerantRequiresProcessShutdown: [
    (v) => typeof v === "boolean",
    "refrigerantRequiresProcessShutdown must be true, false, null or blank",
  ],
};

/**
 * The columns an asset write sets. Plain optional fields: absent keeps (on create: the column default),
 * null clears. Refrigerant overrides: absent keeps, null or blank clears back to inheriting from the
 * asset type. isRefrigerantTracked: absent or null keeps; only an explicit false turns tracking off.
 * buyerCompanyId is not part of the input at all.
 */
function assetData(input: AssetInput): AssetData {
  if (!input.name.trim()) throw badInput("name must not be blank");
  const { name, assetTypeId, locationId, isActive, isLeased } = input;
  const data: Record<string, unknown> = { name, assetTypeId, locationId, isActive, isLeased };
  for (const key of ["serialNumber", "manufacturer", "assetModelId", "installDate", "parentId"] as const) {
    if (input[key] !== undefined) data[key] = input[key];
  }
  if (input.warranties !== undefined) {
    const w = input.warranties ?? [];
    if (!Array.isArray(w) || w.some((x) => x === null || typeof x !== "object" || Array.isArray(x))) {
      throw badInput("warranties must be an array of objects");
    }
    data.warranties = w;
  }
  const problems: string[] = [];
  for (const key of REFRIGERANT_OVERRIDES) {
    const value = input[key];
    if (value === undefined) continue;
    const check = OVERRIDE_CHECKS[key];
    if (!isBlank(value) && check && !check[0](value)) problems.push(check[1]);
    data[key] = isBlank(value) ? null : value;
  }
  if (problems.length) throw badInput(problems.join("; "));
  if (input.isRefrigerantTracked === true || input.isRefrigerantTracked === false)
    data.isRefrigerantTracked = input.isRefrigerantTracked;
  return data as AssetData;
}

/** Ids of the asset and all its descendants (UNION, not UNION ALL, so stray cycles cannot loop). */
export async function subtreeIds(tx: Tx, id: number): Promise<number[]> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    WITH RECURSIVE tree AS (
      SELECT id FROM "Asset" WHERE id = ${id}
      UNION SELECT a.id FROM "Asset" a JOIN tree ON a."parentId" = tree.id)
    SELECT id FROM tree`;
  return rows.map((r) => r.id);
}

export interface StoredAsset {
  id: number;
  parentId: number | null;
  locationId: number;
}

/**
 * Every id the write refers to must belong to the key's company; the message names each offending field.
 * Sub-assets: a new parent needs the company's subAssetsEnabled, cannot be the asset or one of its
 * descendants, and the child must be at the parent's location (also when only the location changes).
 */
async function checkAssetReferences(
  tx: Tx,
  companyId: number,
  data: AssetData,
  stored: StoredAsset | null,
): Promise<void> {
  const owned = { buyerCompanyId: companyId };
  const parentId = data.parentId !== undefined ? data.parentId : (stored?.parentId ?? null);
  const [assetType, location, model, parent, company] = await Promise.all([
    tx.assetType.findFirst({ where: { id: data.assetTypeId, ...owned }, select: { id: true } }),
    tx.location.findFirst({ where: { id: data.locationId, ...owned }, select: { id: true } }),
    data.assetModelId != null
      ? tx.assetModel.findFirst({ where: { id: data.assetModelId, ...owned }, select: { assetTypeId: true } })
      : null,
    parentId !== null ? tx.asset.findFirst({ where: { id: parentId, ...owned }, select: { locationId: true } }) : null,
    tx.buyerCompany.findUniqueOrThrow({ where: { id: companyId }, select: { subAssetsEnabled: true } }),
  ]);
  const problems: string[] = [];
  if (!assetType) problems.push(`assetTypeId ${data.assetTypeId} is not an asset type of this company`);
  if (!location) problems.push(`locationId ${data.locationId} is not a location of this company`);
  if (data.assetModelId != null) {
    if (!model) problems.push(`assetModelId ${data.assetModelId} is not an asset model of this company`);
    else if (model.assetTypeId !== data.assetTypeId)
      problems.push(`assetModelId ${data.assetModelId} is a model of another asset type`);
  }
  if (parentId !== null) {
    const newParent = data.parentId != null && data.parentId !== stored?.parentId;
    if (newParent && !company.subAssetsEnabled) problems.push("parentId: sub-assets are not enabled for this company");
    else if (!parent) problems.push(`parentId ${parentId} is not an asset of this company`);
    else if (stored && newParent && (await subtreeIds(tx, stored.id)).includes(parentId)) {
      problems.push("parentId: an asset cannot be its own parent or a sub-asset of one of its own sub-assets");
    } else if (parent.locationId !== data.locationId) {
      problems.push(`parentId: the sub-asset must be at its parent's location (${parent.locationId})`);
    }
  }
  if (problems.length) throw badInput(problems.join("; "));
}

/**
 * Creates an asset of the key's company, or updates one it may write (`id`). A location change moves
 * the sub-assets with their parent (a child is always at its parent's location) and the meters of all
 * of them, which carry the asset's location.
 */
export async function upsertAsset(ctx: Context, input: AssetInput, query: object) {
  const companyId = ctx.viewer.buyerCompanyId!;
  const data = assetData(input);
  return inTransaction(ctx.db, async (tx) => {
    const stored =
      input.id == null
        ? null
        : await findWritable<StoredAsset>(tx.asset, "asset", input.id, assetScope(ctx.viewer), {
            select: { id: true, parentId: true, locationId: true },
          });
    await checkAssetReferences(tx, companyId, data, stored);
    if (!stored) return tx.asset.create({ ...query, data: { ...data, buyerCompanyId: companyId } });
    if (stored.locationId !== data.locationId) {
      const tree = await subtreeIds(tx, stored.id);
      await tx.asset.updateMany({ where: { id: { in: tree } }, data: { locationId: data.locationId } });
      await tx.meter.updateMany({ where: { assetId: { in: tree } }, data: { locationId: data.locationId } });
    }
    return tx.asset.update({ ...query, where: { id: stored.id }, data });
  });
}

/** The lite projection: a page when offset or limit is given, else the whole set (filters and sorting apply). */
export async function assetLitePage(ctx: Context, args: ListArgs, query: object) {
  const scope = assetScope(ctx.viewer);
  if (args.offset != null || args.limit != null) return findPage(ctx.db.asset, scope, args, ASSET_LIST, query);
  const { where, orderBy } = pageOf(args, ASSET_LIST);
  const data = await ctx.db.asset.findMany({ ...query, where: { AND: [scope, where] }, orderBy });
  return { data, count: data.length };
}
