// Generic range inputs of the dashboard graph (docs/dashboards.md): a time range is half-open, `from`
// inclusive and `to` exclusive, so consecutive ranges (this month, next month) never count a row twice
// and a range ends exactly where the next starts. Each range has its Prisma form and its SQL form here,
// so every filter that takes one reads it the same way.
import { Prisma } from "../../db.ts";
import { builder } from "./builder.ts";
import { badInput } from "./errors.ts";

export interface DateTimeRangeValue {
  from?: Date | null;
  to?: Date | null;
}

export const DateTimeRange = builder.inputType("DateTimeRange", {
  subGraphs: ["graphql"],
  description:
    "A half-open time range: from ≤ t < to. Either end may be omitted (unbounded); from must be before to when both are given.",
  fields: (t) => ({
    from: t.field({ type: "DateTime", description: "Inclusive lower bound: rows at exactly this instant match" }),
    to: t.field({ type: "DateTime", description: "Exclusive upper bound: rows at exactly this instant do not match" }),
  }),
});

/** The bounds of a range, checked; undefined when it bounds nothing. `name` names it in the 400. */
function boundsOf(range: DateTimeRangeValue | null | undefined, name: string) {
  const from = range?.from ?? undefined;
  const to = range?.to ?? undefined;
  if (from && to && from.getTime() >= to.getTime())
    throw badInput(`${name}.from must be before ${name}.to (the range is from ≤ t < to)`, name);
  return from || to ? { from, to } : undefined;
}

/** A range as a Prisma condition on one DateTime column (undefined: no condition). */
export function rangeWhere(range: DateTimeRangeValue | null | undefined, name: string) {
  const bounds = boundsOf(range, name);
  if (!bounds) return undefined;
  return { ...(bounds.from ? { gte: bounds.from } : {}), ...(bounds.to ? { lt: bounds.to } : {}) };
}

/** A range as SQL conditions on `column` (an empty list: no condition). */
export function rangeSql(column: Prisma.Sql, range: DateTimeRangeValue | null | undefined, name: string) {
  const bounds = boundsOf(range, name);
  const conditions: Prisma.Sql[] = [];
  if (bounds?.from) conditions.push(Prisma.sql`${column} >= ${bounds.from}`);
  if (bounds?.to) conditions.push(Prisma.sql`${column} < ${bounds.to}`);
  return conditions;
}
