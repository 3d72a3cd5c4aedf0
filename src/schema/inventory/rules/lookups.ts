// Batched checks that ids in a body are records of the key's team, for bodies with many lines.
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import { teamScope } from "./fields.ts";

/** 400 naming the field when some ids were not found. */
export function refuseUnknown(field: string, noun: string, ids: Iterable<number>, known: { has(id: number): boolean }) {
  const unknown = [...new Set(ids)].filter((id) => !known.has(id));
  if (unknown.length)
    throw badInput(
      `${field} ${unknown.join(", ")} ${unknown.length === 1 ? "is not a" : "are not"} ${noun}${unknown.length === 1 ? "" : "s"} of this team`,
    );
}

/** The team's parts among `ids`, with what purchasing defaults from them. */
export async function teamParts(ctx: Context, ids: number[]) {
  const parts = ids.length
    ? await ctx.db.part.findMany({
        where: { id: { in: [...new Set(ids)] }, ...teamScope(ctx.viewer) },
        select: { id: true, unitCost: true },
      })
    : [];
  return new Map(parts.map((p) => [p.id, p]));
}

/** The team's stock locations among `ids`. */
export async function teamStockLocations(ctx: Context, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await ctx.db.stockLocation.findMany({
    where: { id: { in: [...new Set(ids)] }, ...teamScope(ctx.viewer) },
    select: { id: true },
  });
  return new Set(rows.map((r) => r.id));
}

/** A vendor of the team that takes new purchase orders, or a 400 naming the field. */
export async function activeVendor(ctx: Context, id: number, field: string) {
  const vendor = await ctx.db.vendor.findFirst({
    where: { id, ...teamScope(ctx.viewer) },
    select: { id: true, isActive: true },
  });
  if (!vendor) throw badInput(`${field} ${id} is not a vendor of this team`);
  if (!vendor.isActive) throw badInput(`vendor ${id} is inactive and takes no new purchase orders`);
  return vendor;
}
