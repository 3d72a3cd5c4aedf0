// Money totals of billing documents for charts (proposalStats, invoiceStats; docs/dashboards.md,
// "Charts"): count and exact decimal sums grouped by status and/or month, always per currency (amounts
// in different currencies are never added). A domain gives its table, scope, status enum and columns;
// the statement is core/stats.ts's one GROUP BY, the sums numeric and sent as strings, never floats.
import { Prisma } from "../../db.ts";
import { builder } from "./builder.ts";
import type { Context } from "./context.ts";
import { type DateTimeRangeValue, DateTimeRange, rangeSql } from "./ranges.ts";
import { bucketSql, checkGroupBy, type Dimension, refusePartners, statsRows, statsSql } from "./stats.ts";
import type { Viewer } from "./viewer.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

type TotalsDimension = "STATUS" | "MONTH";

const TotalsDimensionEnum = builder.enumType("TotalsDimension", {
  subGraphs: ["graphql"],
  description: "What proposalStats and invoiceStats group by (always within currency)",
  values: {
    STATUS: { description: "The document's status (row field status)" },
    MONTH: { description: "The document's calendar month in UTC (row field month: the month's start)" },
  } as const,
});

export interface TotalsRow {
  status?: string | null;
  month?: Date | null;
  currency: string;
  count: number;
  totalBeforeTax: string;
  tax: string;
  totalAfterTax: string;
}

/** Where a domain's documents and figures are, as SQL over its own alias. */
export interface TotalsSource {
  /** The field's name, for messages. */
  field: string;
  from: Sql;
  scope: (viewer: Viewer) => Sql;
  status: Sql;
  /** The time MONTH buckets and the date range filter. */
  dated: Sql;
  currency: Dimension;
  locationId: Sql;
  supplierFacilityId: Sql;
  beforeTax: Sql;
  tax: Sql;
  afterTax: Sql;
}

export interface TotalsArgs {
  groupBy: readonly TotalsDimension[];
  status?: readonly string[] | null;
  period?: DateTimeRangeValue | null;
  locationIds?: readonly number[] | null;
  supplierFacilityIds?: readonly number[] | null;
}

const inList = (column: Sql, values: readonly unknown[] | null | undefined) =>
  values === null || values === undefined
    ? []
    : [values.length ? sql`${column} IN (${Prisma.join(values.map((v) => sql`${v}`))})` : sql`FALSE`];

/** The statement of a totals request: the key's scope AND the arguments, grouped by them and by currency. */
function totalsSql(source: TotalsSource, viewer: Viewer, args: TotalsArgs): Sql {
  refusePartners(viewer, source.field);
  const groupBy = checkGroupBy(args.groupBy);
  const where = [
    source.scope(viewer),
    ...inList(sql`${source.status}::text`, args.status),
    ...inList(source.locationId, args.locationIds),
    ...inList(source.supplierFacilityId, args.supplierFacilityIds),
    ...rangeSql(source.dated, args.period, "period"),
  ];
  const dimensions: [string, Dimension][] = groupBy.map((d) =>
    d === "STATUS" ? ["status", { key: source.status }] : ["month", { key: bucketSql("MONTH", source.dated) }],
  );
  return statsSql({
    from: source.from,
    where: Prisma.join(where, " AND "),
    dimensions: [...dimensions, ["currency", source.currency]],
    measures: [
      ["totalBeforeTax", { value: sql`sum(${source.beforeTax})::text` }],
      ["tax", { value: sql`sum(${source.tax})::text` }],
      ["totalAfterTax", { value: sql`sum(${source.afterTax})::text` }],
    ],
  });
}

/** A totals field's answer; `args` are those totalsArgs declares, which GraphQL has checked. */
export const totalsRows = (ctx: Context, source: TotalsSource, args: object) =>
  statsRows<TotalsRow>(ctx.db, totalsSql(source, ctx.viewer, args as TotalsArgs));

/** The row type of a domain's totals: its status enum, the month, the currency and the figures. */
export function totalsRowType(name: string, noun: string, statusEnum: any) {
  return builder.objectRef<TotalsRow>(name).implement({
    subGraphs: ["graphql"],
    description: `One group of ${noun}s in one currency. Key fields not grouped by are null.`,
    fields: (t) => ({
      status: t.field({
        type: statusEnum,
        nullable: true,
        description: "STATUS key",
        resolve: (r) => (r.status ?? null) as never,
      }),
      month: t.field({
        type: "DateTime",
        nullable: true,
        description: "MONTH key: the month's start (UTC)",
        resolve: (r) => r.month ?? null,
      }),
      currency: t.exposeString("currency", { description: "The currency of the sums (ISO 4217)" }),
      count: t.exposeInt("count", { description: `${noun}s in the group` }),
      totalBeforeTax: t.exposeString("totalBeforeTax", { description: "Sum of the totals before tax, exact decimal" }),
      tax: t.exposeString("tax", { description: "Sum of the taxes, exact decimal" }),
      totalAfterTax: t.exposeString("totalAfterTax", { description: "Sum of the totals after tax, exact decimal" }),
    }),
  });
}

/** The arguments every totals field takes; the domain says which time `period` bounds. */
export const totalsArgs = (t: any, statusEnum: any, periodDescription: string) => ({
  groupBy: t.arg({
    type: [TotalsDimensionEnum],
    required: true,
    description: "STATUS and/or MONTH, each once; rows are always split by currency as well",
  }),
  status: t.arg({ type: [statusEnum], description: "Only these statuses (an empty list matches nothing)" }),
  period: t.arg({ type: DateTimeRange, description: periodDescription }),
  locationIds: t.arg.intList({ description: "Only these locations (an empty list matches nothing)" }),
  supplierFacilityIds: t.arg.intList({ description: "Only these supplier facilities (an empty list matches nothing)" }),
});
