// The team's catalogs: vendors, equipment types, parts and stock locations. One description per
// catalog (fields, references, list spec) and one create and one update for all of them.
import type { Db } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import type { ListSpec } from "../../core/list.ts";
import { findWritable } from "../../core/tenancy.ts";
import { inTransaction, joinable } from "../../core/transaction.ts";
import { decimalOf, NAME_MAX, QUANTITY, TEXT_MAX } from "../../core/values.ts";
import { setStockCount } from "./stock.ts";
import {
  checkReferences,
  columnsOf,
  email,
  flag,
  money,
  reference,
  teamOf,
  teamScope,
  text,
  type FieldRule,
} from "./fields.ts";

interface Table {
  create(args: any): Promise<any>;
  update(args: any): Promise<any>;
  findFirst(args: any): Promise<any>;
  findMany(args: any): Promise<any[]>;
  count(args: any): Promise<number>;
  groupBy(args: any): Promise<any[]>;
}

export interface Catalog {
  /** What a refusal calls one record. */
  noun: string;
  table: (db: Db) => Table;
  fields: Record<string, FieldRule>;
  /** Fields holding ids of other catalogs of the team. */
  references?: Record<string, { noun: string; table: (db: Db) => { count(args: any): Promise<number> } }>;
  list: ListSpec;
  /** A unique violation (P2002) on create or update, as the 400 it means. */
  duplicate?: (data: Record<string, unknown>) => string;
}

const byName = (extra: readonly string[] = []): Pick<ListSpec, "sortable" | "defaultSort"> => ({
  sortable: ["id", "name", "createdAt", "updatedAt", ...extra],
  defaultSort: { field: "id", order: "asc" },
});

export const VENDORS: Catalog = {
  noun: "vendor",
  table: (db) => db.vendor,
  fields: {
    name: text(NAME_MAX, true),
    email: email(),
    phone: text(NAME_MAX),
    address: text(TEXT_MAX),
    accountNumber: text(NAME_MAX),
    notes: text(TEXT_MAX),
    isActive: flag(),
  },
  list: {
    filters: { id: "int", name: "string", email: "string", accountNumber: "string", isActive: "boolean" },
    ...byName(),
  },
};

export const EQUIPMENT_TYPES: Catalog = {
  noun: "equipment type",
  table: (db) => db.equipmentType,
  fields: {
    name: text(NAME_MAX, true),
    description: text(TEXT_MAX),
    manufacturer: text(NAME_MAX),
    modelNumber: text(NAME_MAX),
  },
  list: { filters: { id: "int", name: "string", manufacturer: "string", modelNumber: "string" }, ...byName() },
};

export const PARTS: Catalog = {
  noun: "part",
  table: (db) => db.part,
  fields: {
    number: text(NAME_MAX, true),
    name: text(NAME_MAX, true),
    description: text(TEXT_MAX),
    unit: { ...text(50, true), required: false, notNull: true },
    defaultVendorId: reference(),
    equipmentTypeId: reference(),
    unitCost: money(),
    isActive: flag(),
  },
  references: {
    defaultVendorId: { noun: "vendor", table: (db) => db.vendor },
    equipmentTypeId: { noun: "equipment type", table: (db) => db.equipmentType },
  },
  list: {
    filters: {
      id: "int",
      number: "string",
      name: "string",
      unit: "string",
      defaultVendorId: "int",
      equipmentTypeId: "int",
      isActive: "boolean",
    },
    ...byName(["number", "unitCost"]),
  },
  duplicate: (data) => `a part numbered ${JSON.stringify(data.number)} already exists in this team's catalog`,
};

export const STOCK_LOCATIONS: Catalog = {
  noun: "stock location",
  table: (db) => db.stockLocation,
  fields: { name: text(NAME_MAX, true), description: text(TEXT_MAX) },
  list: { filters: { id: "int", name: "string" }, ...byName() },
};

const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === "P2002";

async function columns(ctx: Context, catalog: Catalog, input: Record<string, unknown>, creating: boolean) {
  const data = columnsOf(input, catalog.fields, creating);
  const references = Object.fromEntries(
    Object.entries(catalog.references ?? {}).map(([field, r]) => [field, { noun: r.noun, table: r.table(ctx.db) }]),
  );
  await checkReferences(ctx.viewer, data, references);
  return data;
}

async function writing<T>(catalog: Catalog, data: Record<string, unknown>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (catalog.duplicate && isUniqueViolation(error)) throw badInput(catalog.duplicate(data));
    throw error;
  }
}

/** A new record of the key's team. */
export async function createInCatalog(ctx: Context, catalog: Catalog, input: Record<string, unknown>, query: object) {
  const supplierCompanyId = teamOf(ctx.viewer);
  const data = await columns(ctx, catalog, input, true);
  return writing(catalog, data, () => catalog.table(ctx.db).create({ ...query, data: { ...data, supplierCompanyId } }));
}

/** PATCH: the sent fields of a record of the key's team (unknown and foreign ids: the same 400). */
export async function updateInCatalog(
  ctx: Context,
  catalog: Catalog,
  id: number,
  input: Record<string, unknown>,
  query: object,
) {
  await findWritable(catalog.table(ctx.db), catalog.noun, id, teamScope(ctx.viewer), { select: { id: true } });
  const data = await columns(ctx, catalog, input, false);
  return writing(catalog, data, () => catalog.table(ctx.db).update({ ...query, where: { id }, data }));
}

// ---- stock locations carry a stock count

export interface StockCountInput {
  partId: number;
  quantity: string;
}

/** Most parts one stock count may set. */
const MAX_STOCK_COUNT = 500;

/** `onHand` of a stock location body: each part of the team at most once, quantities not negative. */
async function stockCountOf(ctx: Context, counts: StockCountInput[]) {
  if (counts.length > MAX_STOCK_COUNT) throw badInput(`onHand may set at most ${MAX_STOCK_COUNT} parts at once`);
  const parsed = counts.map((c, i) => ({
    partId: c.partId,
    quantity: decimalOf(c.quantity, `onHand[${i}].quantity`, QUANTITY),
  }));
  const ids = [...new Set(parsed.map((c) => c.partId))];
  if (ids.length !== parsed.length) throw badInput("onHand names a part more than once");
  const known = await ctx.db.part.findMany({
    where: { id: { in: ids }, ...teamScope(ctx.viewer) },
    select: { id: true },
  });
  const unknown = ids.filter((id) => !known.some((p) => p.id === id));
  if (unknown.length) throw badInput(`onHand[].partId ${unknown.join(", ")} is not a part of this team`);
  return parsed;
}

export interface StockLocationInput extends Record<string, unknown> {
  onHand?: StockCountInput[] | null;
}

/** Creates or updates a stock location; `onHand` sets the counted parts in the same transaction. */
export async function writeStockLocation(ctx: Context, id: number | null, input: StockLocationInput, query: object) {
  const { onHand, ...fields } = input;
  if (id === null) teamOf(ctx.viewer);
  if (onHand === null) throw badInput("onHand must be a list of {partId, quantity}");
  const counts = onHand ? await stockCountOf(ctx, onHand) : [];
  const saved = await inTransaction(ctx.db, async (tx) => {
    const ctxTx = { ...ctx, db: joinable(tx) };
    const location =
      id === null
        ? await createInCatalog(ctxTx, STOCK_LOCATIONS, fields, { select: { id: true } })
        : await updateInCatalog(ctxTx, STOCK_LOCATIONS, id, fields, { select: { id: true } });
    await setStockCount(tx, location.id, counts, ctx.now());
    return location.id as number;
  });
  return ctx.db.stockLocation.findUniqueOrThrow({ ...query, where: { id: saved } });
}
