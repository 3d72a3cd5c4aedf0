// Work order list, search and count (GET …/work_order/work_orders and …/count_by): which path answers.
// A buyer's search with no filter but status is asked of the bitmap postings first (search/bitmaps.ts);
// anything else, or a search that path declines, runs the GIN path's statements (list-statements.ts).
// Prisma cannot express the tsvector match, so the ids come from raw SQL, and the rows with them as JSON
// (core/json-rows.ts) or, for a selection that reader cannot answer, from a findMany by id; either way
// the key's scope is applied again to the rows: a row outside it can never be returned, whatever picked
// the ids. See docs/work-order-search.md.
import { Prisma, sqlRows } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { groupsJsonAggregate } from "../../core/count-by.ts";
import { badInput } from "../../core/errors.ts";
import { columnOf } from "../../core/filters.ts";
import { RawJson } from "../../core/raw-json.ts";
import { type RowReader, rowReader } from "../../core/json-rows.ts";
import { filterWhere } from "../../core/list.ts";
import { windowKeys, windowOf } from "../../core/time-window.ts";
import type { Viewer } from "../../core/viewer.ts";
import {
  BITMAP_GROUPS,
  type BitmapQuery,
  bitmapCountBy,
  bitmapSearch,
  bitmapTotal,
  docsPage,
  indexedWorkOrders,
  type Walk,
} from "../search/bitmaps.ts";
import { FACETS } from "../search/terms.ts";
import { parseSearch } from "../search/text-query.ts";
import { anyOf, col, GROUPABLE, SORTABLE, type Sortable } from "./list-filters.ts";
import {
  orderSql,
  rowsSql,
  SORT_KEYS,
  type WorkOrderQueryArgs,
  windowPage,
  workOrderStatements,
  workOrderWhere,
} from "./list-statements.ts";
import { workOrderScope } from "./scope.ts";

const sql = Prisma.sql;

/** Filters the bitmap postings answer: the status terms and the facets (search/terms.ts). */
const BITMAP_FILTERS = ["status", ...Object.keys(FACETS)];
/** The filter keys of the created window, which the docs answer alone (docsPage). */
const CREATED_WINDOW = windowKeys(["createdAt"]);

/**
 * A buyer's search, or list without a search but with a filter, whose filters are all status and facets
 * (location, supplier facility, problem type) can be answered from the bitmap postings
 * (search/bitmaps.ts); anything else, or a search that path declines, takes the GIN path. `unfiltered`:
 * without a search or filter too (every work order: the dictionary's counts). `docs`: instead, a list
 * without a search whose only filter, if any, is the created window (docsPage).
 */
export function bitmapQueryOf(
  viewer: Viewer,
  args: WorkOrderQueryArgs,
  enabled = true,
  options: { unfiltered?: boolean; docs?: boolean } = {},
): BitmapQuery | undefined {
  const filter = (args.filter ?? {}) as Record<string, unknown>;
  const names = Object.keys(filter);
  if (
    !enabled ||
    viewer.kind !== "buyer" ||
    viewer.buyerCompanyId === null ||
    viewer.buyerCompanyId === undefined ||
    (options.docs
      ? args.search?.trim() || names.some((name) => !CREATED_WINDOW.includes(name))
      : !(options.unfiltered || args.search?.trim() || names.length) ||
        names.some((name) => !BITMAP_FILTERS.includes(name)))
  )
    return undefined;
  const { where } = workOrderWhere(viewer, args); // validates every argument first, as the GIN path does
  const { skip, take } = windowPage(args);
  const order = (args.order ?? "asc").toLowerCase() as "asc" | "desc";
  const by = SORTABLE.includes(args.sort_by as never) ? (args.sort_by as Sortable) : undefined;
  const walk: Walk = by
    ? { by, order, live: SORT_KEYS[by] }
    : { by: "createdAt", order: "desc", live: SORT_KEYS.createdAt };
  const values = options.docs
    ? {}
    : filterWhere(filter, {
        filters: {
          status: "string",
          ...Object.fromEntries(Object.keys(FACETS).map((column) => [column, "int" as const])),
        },
      });
  return {
    companyId: viewer.buyerCompanyId,
    ...parseSearch(args.search ?? ""),
    search: args.search ?? "",
    statuses: values.status === undefined ? undefined : (anyOf(values.status) as string[]),
    facets: (Object.keys(FACETS) as (keyof typeof FACETS)[])
      .filter((column) => values[column] !== undefined)
      .map((column) => ({ column, values: anyOf(values[column]) as number[] })),
    ...(options.docs && names.length ? { created: windowOf(filter, "createdAt") } : {}),
    where,
    order: orderSql(args),
    walk,
    skip,
    take,
  };
}

/**
 * Whether the bitmaps should answer `fast`: a search always; a list or count without a search text only
 * for a company with SEARCH_BITMAP_MIN_COMPANY indexed work orders or more. Below that, plain SQL reads
 * the matches in one statement where the bitmap path sends three (the locations bench's company of 2,000:
 * 0.39× its baseline through the bitmaps; a status filter at 1,000,000 took 650–850 ms without them).
 */
async function bitmapsFor(ctx: Context, fast: BitmapQuery | undefined): Promise<BitmapQuery | undefined> {
  if (!fast || fast.search.trim()) return fast;
  const minimum = ctx.search?.bitmapMinCompany ?? 0;
  return minimum <= 0 || (await indexedWorkOrders(ctx, fast.companyId)) >= minimum ? fast : undefined;
}

/**
 * The page and the total. The rows come as JSON from the statement that picks them when the GraphQL
 * selection allows (core/json-rows.ts: every REST request, and GraphQL ones without nested objects), else
 * from Prisma by id.
 */
export async function workOrderPage(ctx: Context, args: WorkOrderQueryArgs, query: object) {
  const reader = rowReader("WorkOrder", query);
  const fast = await bitmapsFor(ctx, bitmapQueryOf(ctx.viewer, args, ctx.search?.bitmaps));
  const found = fast && (await bitmapSearch(ctx, fast));
  if (found) return { data: await rowsOf(ctx, found.ids, query, reader), count: found.count };
  // No search, and no filter but a created window: a large company's page from the docs in any order.
  const docs = !fast
    ? await bitmapsFor(ctx, bitmapQueryOf(ctx.viewer, args, ctx.search?.bitmaps, { docs: true }))
    : undefined;
  const paged = docs && (await docsPage(ctx, docs));
  if (paged) return { data: await rowsOf(ctx, paged.ids, query, reader), count: paged.count };
  const { page, count, pageCounts } = workOrderStatements(ctx.viewer, args, reader);
  const [[picked], separate] = await Promise.all([
    sqlRows<{ ids: number[]; count: number | null; rows?: unknown[] }>(ctx.db, page),
    pageCounts ? undefined : listTotal(ctx, args, count),
  ]);
  const data = reader ? reader.read<object>(picked.rows!) : await rowsOf(ctx, picked.ids, query);
  return { data, count: picked.count ?? separate! };
}

/** A list or count without a search text or filter: every work order in the key's scope. */
const unfiltered = (args: WorkOrderQueryArgs) => !args.search?.trim() && !Object.keys(args.filter ?? {}).length;

/** Such a list as the bitmap path takes it (a buyer's, when the bitmaps are on). */
const everything = (ctx: Context, args: WorkOrderQueryArgs) =>
  bitmapQueryOf(ctx.viewer, args, ctx.search?.bitmaps, { unfiltered: true });

/**
 * A list's total from `count`, the statement that counts its rows; without a search or filter, a large
 * company's from the search dictionary instead (bitmapTotal: a count of a million rows takes 100–200 ms).
 */
async function listTotal(ctx: Context, args: WorkOrderQueryArgs, count: Prisma.Sql): Promise<number> {
  const fast = unfiltered(args) ? await bitmapsFor(ctx, everything(ctx, { ...args, offset: 0, limit: 1 })) : undefined;
  const total = fast ? await bitmapTotal(ctx, fast) : null;
  return total ?? (await sqlRows<{ count: number }>(ctx.db, count))[0].count;
}

/** The rows of `ids`, in that order and in the key's scope. */
async function rowsOf(ctx: Context, ids: number[], query: object, reader?: RowReader): Promise<object[]> {
  if (!ids.length) return [];
  if (reader) {
    const [{ rows }] = await sqlRows<{ rows: unknown[] }>(
      ctx.db,
      sql`SELECT ${rowsSql(ctx.viewer, reader, sql`${ids}::int[]`)} AS rows`,
    );
    return reader.read<object>(rows);
  }
  const rows = await ctx.db.workOrder.findMany({
    ...query,
    where: { AND: [{ id: { in: ids } }, workOrderScope(ctx.viewer)] },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
}

export async function workOrderCount(ctx: Context, args: WorkOrderQueryArgs & { group_by?: string | null }) {
  if (!args.group_by) {
    const fast = await bitmapsFor(
      ctx,
      bitmapQueryOf(ctx.viewer, { ...args, offset: 0, limit: 1 }, ctx.search?.bitmaps),
    );
    const found = fast && (await bitmapSearch(ctx, fast, { countOnly: true }));
    if (found) return { count: found.count };
  }
  const { count } = workOrderStatements(ctx.viewer, args);
  if (!args.group_by) return { count: await listTotal(ctx, args, count) };
  if (!GROUPABLE.includes(args.group_by))
    throw badInput(`cannot group by ${JSON.stringify(args.group_by)}; groupable fields: ${GROUPABLE.join(", ")}`);
  // Status and facets are grouped from the bitmaps (search/bitmaps.ts), typed and ordered as below answers.
  const fast = BITMAP_GROUPS.includes(args.group_by)
    ? await bitmapsFor(ctx, everything(ctx, { ...args, offset: 0, limit: 1 }))
    : undefined;
  const grouped = fast && (await bitmapCountBy(ctx, fast, args.group_by));
  if (grouped) return grouped;
  const group = col(args.group_by);
  // Statuses ordered as the lifecycle declares them (like count_by on other enums), written as their text.
  // The groups are finished in one process before the aggregate reads them, in that order.
  const [{ groups }] = await ctx.db.$queryRaw<{ groups: string | null }[]>`
    SELECT ${groupsJsonAggregate(columnOf("WorkOrder", args.group_by).type === "Int" ? "int" : "any", { nulls: true })} AS groups
      FROM (SELECT ${group} AS value, count(*)::int AS n FROM "WorkOrder" w WHERE ${workOrderWhere(ctx.viewer, args).where}
             GROUP BY ${group} ORDER BY ${group} NULLS LAST) g`;
  return new RawJson(`[${groups ?? ""}]`);
}
