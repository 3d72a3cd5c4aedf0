// Meters and meter readings: scope, list specs, write rules and the batched lastBaselineValue.
import DataLoader from "dataloader";
import type { Viewer } from "../core/viewer.ts";
import type { Context } from "../core/context.ts";
import { buyerOwnedScope, findWritable, NOTHING } from "../core/tenancy.ts";
import { badInput } from "../core/errors.ts";
import { enumFilter, type ListSpec } from "../core/list.ts";
import { Prisma } from "../../db.ts";

export const meterScope = (viewer: Viewer) => buyerOwnedScope(viewer);
/** Readings are a buyer route: supplier keys read none (not even through a meter they can see). */
export const readingScope = (viewer: Viewer) => (viewer.kind === "buyer" ? buyerOwnedScope(viewer) : NOTHING);
/** Whoever reads a company's meters (buyer keys; supplier keys through the assets they read) reads its meter types. */
export const meterTypeScope = (viewer: Viewer) => buyerOwnedScope(viewer);

export const READING_MODES = ["direct_reading", "change_from_baseline", "compare_to_target"] as const;

export const METER_LIST: ListSpec = {
  filters: {
    id: "int",
    name: "string",
    assetId: "int",
    meterTypeId: "int",
    readingMode: "string",
    locationId: "int",
    valueType: "string",
    buyerCompanyId: "int",
  },
  sortable: ["id", "name", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

export const METER_TYPE_LIST: ListSpec = {
  filters: { id: "int", name: "string", valueType: "string", valueUnit: "string", buyerCompanyId: "int" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

export const READING_LIST: ListSpec = {
  filters: {
    id: "int",
    meterId: "int",
    isBaseline: "boolean",
    recordedBy: "string",
    recordedAt: "datetime",
    buyerCompanyId: "int",
  },
  sortable: ["id", "recordedAt", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

/** readingMode is a database enum: a value outside it must be a 400, not a failed query. */
export const checkMeterFilter = enumFilter("readingMode", READING_MODES);

const requireName = (name: string) => {
  if (!name.trim()) throw badInput("name must not be blank");
  return name;
};

export interface MeterInput {
  name: string;
  assetId: number;
  meterTypeId: number;
  readingMode?: (typeof READING_MODES)[number] | null;
}

/** A meter on an asset of the key's company; value type, unit and location come from the meter type and asset. */
export async function createMeter(ctx: Context, input: MeterInput, query: object) {
  const buyerCompanyId = ctx.viewer.buyerCompanyId!;
  const [asset, meterType] = await Promise.all([
    ctx.db.asset.findFirst({ where: { id: input.assetId, buyerCompanyId }, select: { locationId: true } }),
    ctx.db.meterType.findFirst({
      where: { id: input.meterTypeId, buyerCompanyId },
      select: { valueType: true, valueUnit: true },
    }),
  ]);
  const problems = [
    asset ? null : `assetId ${input.assetId} is not an asset of this company`,
    meterType ? null : `meterTypeId ${input.meterTypeId} is not a meter type of this company`,
  ].filter(Boolean);
  if (problems.length) throw badInput(problems.join("; "));
  return ctx.db.meter.create({
    ...query,
    data: {
      name: requireName(input.name),
      assetId: input.assetId,
      meterTypeId: input.meterTypeId,
      readingMode: input.readingMode ?? "direct_reading",
      valueType: meterType!.valueType,
      valueUnit: meterType!.valueUnit,
      locationId: asset!.locationId,
      buyerCompanyId,
    },
  });
}

export interface MeterReadingInput {
  meterId: number;
  value: string;
  expectedValue?: string | null;
  recordedAt: Date;
  recordedBy?: string | null;
  isBaseline?: boolean | null;
}

export async function createMeterReading(ctx: Context, input: MeterReadingInput, query: object) {
  const value = readingValue(input.value);
  // Unknown and foreign meters get the same 400.
  await findWritable(ctx.db.meter, "meter", input.meterId, meterScope(ctx.viewer), { select: { id: true } });
  return ctx.db.meterReading.create({
    ...query,
    data: {
      meterId: input.meterId,
      value,
      expectedValue: input.expectedValue ?? null,
      recordedAt: input.recordedAt,
      recordedBy: input.recordedBy ?? null,
      isBaseline: input.isBaseline ?? false,
      buyerCompanyId: ctx.viewer.buyerCompanyId!,
    },
  });
}

/** Decimal(20, 6): up to 14 integer digits and 6 decimal places, as plain text (no exponent). */
function readingValue(text: string, field = "value"): string {
  const value = text.trim();
  const match = /^-?(\d*)(?:\.(\d*))?$/.exec(value);
  if (!match || !/\d/.test(value))
    throw badInput(`${field} must be numeric text such as "12.5", got ${JSON.stringify(text)}`);
  if (match[1].replace(/^0+/, "").length > 14 || (match[2] ?? "").length > 6) {
    throw badInput(`${field} allows at most 14 digits before and 6 after the decimal point`);
  }
  return value;
}

/**
 * lastBaselineValue of readings, by reading id, in one statement per batch (a page, a single read).
 * For a meter in change_from_baseline mode it is the value of the most recent reading of the same meter
 * flagged isBaseline with recordedAt earlier than or equal to this reading's, other than the reading
 * itself (so a baseline reading shows the baseline it replaced); ties on recordedAt go to the higher id.
 * Null for other modes, or when there is no such baseline.
 */
async function lastBaselineBatch(db: Context["db"], ids: readonly number[]): Promise<(string | null)[]> {
  const rows = await db.$queryRaw<{ id: number; value: string }[]>`
    SELECT r.id, b.value::text AS value
      FROM "MeterReading" r
      JOIN "Meter" m ON m.id = r."meterId" AND m."readingMode" = 'change_from_baseline'
      CROSS JOIN LATERAL (
        SELECT b.value FROM "MeterReading" b
         WHERE b."meterId" = r."meterId" AND b."isBaseline" AND b."recordedAt" <= r."recordedAt" AND b.id <> r.id
         ORDER BY b."recordedAt" DESC, b.id DESC
         LIMIT 1) b
     WHERE r.id = ANY(${[...ids]}::int[])`;
  const byId = new Map(rows.map((r) => [r.id, new Prisma.Decimal(r.value).toString()]));
  return ids.map((id) => byId.get(id) ?? null);
}

// One loader per request (the context object), so fields resolved in the same tick share one query.
const loaders = new WeakMap<object, DataLoader<number, string | null>>();

export function lastBaselineValue(ctx: Context, readingId: number): Promise<string | null> {
  let loader = loaders.get(ctx);
  if (!loader) loaders.set(ctx, (loader = new DataLoader((ids) => lastBaselineBatch(ctx.db, ids))));
  return loader.load(readingId);
}
