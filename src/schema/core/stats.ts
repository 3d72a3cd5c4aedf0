// Aggregates for charts (docs/dashboards.md, "Charts"): what every domain's stats field shares. A domain
// names its dimensions (a key expression, the join it needs, the name of a key) and its measures; this
// builds the one GROUP BY statement over them, checks the groupBy argument, and reads which measures the
// query selected so that costly ones (a median over the status history) are computed only when asked.
import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from "graphql";
import { type Db, Prisma, sqlRows } from "../../db.ts";
import { builder } from "./builder.ts";
import { badInput, forbidden } from "./errors.ts";
import { keptRows, type Period } from "./kept-answers.ts";
import type { Viewer } from "./viewer.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** Groups one statement may answer: a chart of more is a mistake, refused rather than sent. */
const MAX_GROUPS = 50_000;

export type TimeBucket = "DAY" | "WEEK" | "MONTH";

export const TimeBucketEnum = builder.enumType("TimeBucket", {
  subGraphs: ["graphql"],
  description: "A calendar bucket of a time dimension, in UTC; a bucket is named by the instant it starts",
  values: {
    DAY: { description: "Calendar days, 00:00 UTC" },
    WEEK: { description: "ISO weeks, Monday 00:00 UTC" },
    MONTH: { description: "Calendar months, the 1st 00:00 UTC" },
  } as const,
});

/**
 * The start of the UTC bucket holding `column` (a timestamptz). Days and weeks are fixed lengths, so
 * date_bin counts them from a Monday (2001-01-01) without a time zone conversion per row (half the cost
 * of date_trunc(…, 'UTC') over 80,000 rows); months are calendar months, date_trunc's. The width and
 * origin are literals, not parameters: the work order statistics on these very expressions (migration
 * 20261211090001_work_order_created_statistics) tell the planner how few groups they make, so it hashes them
 * instead of sorting every row.
 */
export function bucketSql(bucket: TimeBucket, column: Sql): Sql {
  if (bucket === "MONTH") return sql`date_trunc('month', ${column}, 'UTC')`;
  const width = Prisma.raw(bucket === "DAY" ? "'1 day'::interval" : "'7 days'::interval");
  return sql`date_bin(${width}, ${column}, '2001-01-01 00:00:00+00'::timestamptz)`;
}

/** A record a stats row is grouped by, with its name (read once per group, never per row). */
export interface NamedKey {
  id: number;
  name: string;
}

export const NamedKeyRef = builder.objectRef<NamedKey>("StatsKey").implement({
  subGraphs: ["graphql"],
  description: "A record a stats row is grouped by: its id and its name",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The record's id" }),
    name: t.exposeString("name", { description: "The record's name" }),
  }),
});

/** One way to group rows. */
export interface Dimension {
  /** The key of a row, over the domain's source. */
  key: Sql;
  /** A join the key needs (joins are added once each, by identity). */
  join?: Sql;
  /** The table whose `name` names the key (by `id`): joined once after grouping, never per row. */
  namedBy?: string;
  /** An enum key's values in their declared order, the order PostgreSQL sorts them in (statsOrder). */
  order?: readonly string[];
}

/** One figure of a group: an aggregate over the source's rows. */
export interface Measure {
  value: Sql;
  /**
   * The figure from the aggregate, computed once per group after grouping (the aggregate as
   * `grouped`). An ordered-set aggregate (percentile_cont) sorts every group's rows in a sort of its
   * own: over 19,000 small groups that took half of a 100 ms statement, where an array_agg finished
   * by a percentile over each array took a tenth.
   */
  final?: (grouped: Sql) => Sql;
}

export interface StatsQuery {
  /** `"Table" alias` the rows come from. */
  from: Sql;
  /** The key's scope AND the filter, over the source's alias. */
  where: Sql;
  /** Chosen dimensions by output name (the row's column). */
  dimensions: [string, Dimension][];
  /** Measures by output name; count is always there. */
  measures: [string, Measure][];
  /**
   * An aggregate true for a group whose measures may change with time alone (relative to the request's
   * time), null otherwise; the rows' column `changesWithTime`, read by keptStatsRows.
   */
  changesWithTime?: Sql;
}

/** Prisma.join refuses an empty list; these parts may be empty. */
const joinAll = (parts: Sql[], separator: string) => (parts.length ? Prisma.join(parts, separator) : Prisma.empty);
const ident = (name: string) => Prisma.raw(`"${name.replaceAll('"', "")}"`);

/**
 * The statement: one GROUP BY over the scoped, filtered rows, then each key table joined once for names. Rows come
 * ordered by their keys (enums in their declared order), with `<dimension>Name` beside each named key.
 */
export function statsSql(q: StatsQuery): Sql {
  const joins = [...new Set(q.dimensions.map(([, d]) => d.join))].filter((j): j is Sql => j !== undefined);
  const keys = q.dimensions.map(([alias, d]) => sql`${d.key} AS ${ident(alias)}`);
  const measures = q.measures.map(([alias, m]) => sql`${m.value} AS ${ident(alias)}`);
  const named = q.dimensions.filter(([, d]) => d.namedBy);
  const names = named.map(([alias], i) => sql`, ${Prisma.raw(`n${i}`)}.name AS ${ident(`${alias}Name`)}`);
  const nameJoins = named.map(
    ([alias, d], i) =>
      sql`LEFT JOIN ${ident(d.namedBy!)} ${Prisma.raw(`n${i}`)} ON ${Prisma.raw(`n${i}`)}.id = g.${ident(alias)}`,
  );
  const positions = Prisma.raw(q.dimensions.map((_, i) => String(i + 1)).join(", "));
  const order = Prisma.join(
    q.dimensions.map(([alias]) => sql`g.${ident(alias)}`),
    ", ",
  );
  const changesWithTime = q.changesWithTime ? [sql`${q.changesWithTime} AS "changesWithTime"`] : [];
  const columns = [
    ...q.dimensions.map(([alias]) => sql`g.${ident(alias)}`),
    sql`g."count"`,
    ...q.measures.map(([alias, m]) =>
      m.final ? sql`${m.final(sql`g.${ident(alias)}`)} AS ${ident(alias)}` : sql`g.${ident(alias)}`,
    ),
    ...(q.changesWithTime ? [sql`g."changesWithTime"`] : []),
  ];
  return sql`SELECT ${Prisma.join(columns, ", ")}${joinAll(names, "")}
    FROM (SELECT ${Prisma.join([...keys, sql`count(*)::int AS "count"`, ...measures, ...changesWithTime], ", ")}
            FROM ${q.from} ${joinAll(joins, " ")}
           WHERE ${q.where}
           GROUP BY ${positions}) g ${joinAll(nameJoins, " ")}
   ORDER BY ${order} LIMIT ${MAX_GROUPS + 1}`;
}

/** Runs a stats statement; more than MAX_GROUPS groups is a 400. */
export async function statsRows<T>(db: Db, statement: Sql): Promise<T[]> {
  // Planned for its values: how many rows a date range holds decides the plan (db.ts sqlRows).
  const rows = await sqlRows<T>(db, statement, { planFor: "values" });
  if (rows.length > MAX_GROUPS)
    throw badInput(`more than ${MAX_GROUPS} groups: narrow the filter, use a longer bucket or fewer dimensions`);
  return rows;
}

/**
 * The order of statsSql's rows over two of them: by each key in turn, ascending, nulls last (PostgreSQL's
 * ORDER BY); an enum by its declared order (Dimension.order), a timestamp by its instant.
 */
function statsOrder<T>(q: StatsQuery): (a: T, b: T) => number {
  const keys = q.dimensions.map(([alias, d]) => {
    const rank = d.order && new Map(d.order.map((value, i) => [value, i]));
    return (row: T): number | string | null => {
      const value = (row as Record<string, unknown>)[alias];
      if (value === null || value === undefined) return null;
      if (rank) return rank.get(value as string) ?? -1;
      return value instanceof Date ? value.getTime() : (value as number | string);
    };
  });
  return (a, b) => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
}

/** The dimension a kept answer is patched by, and the change rows' column that names its keys. */
export interface PatchBy {
  dimension: string;
  changes: "locationIds" | "supplierFacilityIds";
}

/**
 * Runs a stats statement over one buyer company's rows, its answer kept between requests while it stays
 * exact (kept-answers.ts). `period`: the creation times the statement counts (none: all); `dimensions`:
 * those whose names the rows show or whose membership the filter reads (a change confined to others'
 * keeps the answer); `now`: the request's time as the statement holds it (the key leaves it out);
 * `patchBy`: the dimension whose keys the change rows name, when the query groups by one (a stale answer
 * is then patched: only the groups of the keys written since are read again).
 */
export function keptStatsRows<T extends { changesWithTime?: boolean | null }>(
  db: Db,
  q: StatsQuery,
  {
    company,
    period,
    dimensions,
    now,
    patchBy,
  }: { company: number; period?: Period; dimensions: readonly string[]; now: Date; patchBy?: PatchBy },
): Promise<T[]> {
  const statement = statsSql(q);
  const key = JSON.stringify([statement.text, statement.values.map((v) => (v === now ? "now" : v))]);
  const column = q.dimensions.find(([alias]) => alias === patchBy?.dimension)?.[1].key;
  // A null among the keys stands for the work orders without one (the group of the null key).
  const patch = column &&
    patchBy && {
      changes: patchBy.changes,
      statement: (keys: (number | null)[]) =>
        statsSql({
          ...q,
          where: sql`${q.where} AND (${column} = ANY(${keys}::int[]) OR (${keys.includes(null)} AND ${column} IS NULL))`,
        }),
      keyOf: (row: T) => (row as Record<string, unknown>)[patchBy.dimension] as number | null,
      compare: statsOrder<T>(q),
    };
  return keptRows<T>(
    db,
    {
      company,
      period,
      dimensions,
      key,
      now,
      // A figure that may still change with time alone: the answer is right for this request only.
      validUntil: (rows) => (rows.some((r) => r.changesWithTime) ? now : null),
      patch,
    },
    () => statsRows<T>(db, statement),
  );
}

/** Stats serve the keys of the lists they sum (buyer and supplier keys, each in its scope); partner keys read none. */
export function refusePartners(viewer: Viewer, field: string): void {
  if (viewer.kind === "partner") throw forbidden(`${field} is not available to partner keys`);
}

/** The groupBy argument checked: at least one dimension, each once. */
export function checkGroupBy<D extends string>(groupBy: readonly D[]): readonly D[] {
  if (!groupBy.length) throw badInput("groupBy needs at least one dimension", "groupBy");
  const repeated = groupBy.filter((d, i) => groupBy.indexOf(d) !== i);
  if (repeated.length) throw badInput(`groupBy names ${repeated.join(", ")} more than once`, "groupBy");
  return groupBy;
}

/**
 * The bucket of a time dimension: required when it is grouped by, refused without it (a bucket that
 * groups nothing is a mistake in the query, not a no-op).
 */
export function bucketOf(grouped: boolean, bucket: TimeBucket | null | undefined, dimension: string): TimeBucket {
  if (grouped && !bucket) throw badInput(`grouping by ${dimension} needs a bucket (DAY, WEEK or MONTH)`, "bucket");
  if (!grouped && bucket) throw badInput(`bucket applies only when grouping by ${dimension}`, "bucket");
  return bucket ?? "DAY";
}

/** The field names selected under the resolved field at `path` (through fragments), e.g. ["rows"]. */
export function selectedFields(info: GraphQLResolveInfo, path: string[]): Set<string> {
  const names = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, rest: string[]) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (!rest.length) names.add(selection.name.value);
        else if (selection.name.value === rest[0]) walk(selection.selectionSet, rest.slice(1));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, rest);
      else walk(info.fragments[selection.name.value]?.selectionSet, rest);
    }
  };
  for (const node of info.fieldNodes as FieldNode[]) walk(node.selectionSet, path);
  return names;
}
