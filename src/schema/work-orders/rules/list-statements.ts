// The GIN path's SQL (docs/work-order-search.md "How the SQL is built"): one WHERE (`workOrderWhere`:
// scope, filters, search) serves the list page, its total and count_by, so the three always agree; the
// order, the page window and the statements of one list request. list.ts runs them.
import { Prisma } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import type { RowReader } from "../../core/json-rows.ts";
import { type ListArgs, pageOf } from "../../core/list.ts";
import type { Viewer } from "../../core/viewer.ts";
import { searchSql } from "../search/text-query.ts";
import { filterSql, SORTABLE, type Sortable } from "./list-filters.ts";
import { workOrderScopeSql } from "./scope.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** offset + limit may not go past this (the contract's list window). */
const WINDOW = 10_000;

export interface WorkOrderQueryArgs extends ListArgs {
  search?: string | null;
}

/**
 * The one WHERE of list, total and count_by: tenant scope AND filters AND search. `narrowed` tells
 * whether anything beyond the scope applies.
 */
export function workOrderWhere(viewer: Viewer, args: WorkOrderQueryArgs): { where: Sql; narrowed: boolean } {
  const conditions = [...filterSql(args.filter)];
  const search = searchSql(args.search);
  if (search) conditions.push(search);
  return { where: Prisma.join([workOrderScopeSql(viewer), ...conditions], " AND "), narrowed: conditions.length > 0 };
}

/** sort_by → ORDER BY; unknown or absent sorts by createdAt descending (no 400, List and filter rules 3). */
export function orderSql(args: WorkOrderQueryArgs): Sql {
  const order = (args.order ?? "asc").toLowerCase();
  if (order !== "asc" && order !== "desc") throw badInput('order must be "asc" or "desc"');
  const dir = Prisma.raw(order);
  if (!SORTABLE.includes(args.sort_by as never)) return sql`w."createdAt" DESC, w.id DESC`;
  const sort = args.sort_by as Sortable;
  const nullsLast = sort === "woPriority" || sort === "lastServiceCallServiceScheduledAt";
  return sql`${SORT_KEYS[sort]} ${dir} ${nullsLast ? Prisma.raw("NULLS LAST") : Prisma.empty}, w.id ${dir}`;
}

/** Each sort_by's key of a work order row `w` (its id breaks ties); the search docs keep a copy of each. */
export const SORT_KEYS: Record<Sortable, Sql> = {
  createdAt: sql`w."createdAt"`,
  locationName: sql`(SELECT l.name FROM "Location" l WHERE l.id = w."locationId")`,
  woPriority: sql`w."woPriority"`,
  lastServiceCallServiceScheduledAt: sql`(SELECT max(s."scheduledAt") FROM "ServiceCall" s WHERE s."workOrderId" = w.id)`,
};

/** offset and limit as on every list (default 10, at most 25), plus the 10,000-row window. */
export function windowPage(args: ListArgs) {
  const { skip, take } = pageOf(
    { offset: args.offset, limit: args.limit },
    { filters: {}, sortable: ["id"], defaultSort: { field: "id", order: "asc" } },
  );
  if (skip + take > WINDOW) throw badInput(`offset + limit must not exceed ${WINDOW}`);
  return { skip, take };
}

/**
 * The page's rows, in the order of `ids`, as one JSON array (core/json-rows.ts), each re-checked against
 * the key's scope: a row outside it can never be returned, whatever picked the ids.
 */
export function rowsSql(viewer: Viewer, reader: RowReader, ids: Sql): Sql {
  return sql`(SELECT coalesce(json_agg(${reader.json("w")} ORDER BY o.n), '[]') FROM unnest(${ids}) WITH ORDINALITY o(id, n)
               JOIN "WorkOrder" w ON w.id = o.id AND ${workOrderScopeSql(viewer)})`;
}

/**
 * The statements of one list request (exported for the bench's EXPLAIN). `page` answers {ids, count},
 * and the page's rows as `rows` when a reader is given.
 *
 * With a search or filters, one pass over the matching rows gives both the page and the total: the
 * matches are materialized once, then counted and sorted. Left to itself the planner would often
 * walk the createdAt index and filter row by row until the page is full, which is fast for common
 * words but scans the whole company (seconds at 1M rows) when the estimate is wrong, e.g. for a rare
 * word or reference number; and the exact total needs every match anyway. Without conditions, the
 * page comes from the (buyerCompanyId, createdAt) index and `count` runs beside it.
 */
export function workOrderStatements(viewer: Viewer, args: WorkOrderQueryArgs, reader?: RowReader) {
  const { skip, take } = windowPage(args);
  const { where, narrowed } = workOrderWhere(viewer, args);
  const order = orderSql(args);
  const count = sql`SELECT count(*)::int AS count FROM "WorkOrder" w WHERE ${where}`;
  const rows = reader ? sql`, ${rowsSql(viewer, reader, sql`p.ids`)} AS rows` : sql``;
  // The page's ids are materialized: both the answer and the rows read them, and PostgreSQL would
  // otherwise put the ARRAY sub-select in each place and sort the matches twice.
  // Sorted by location name, the matches carry it from a join: a lookup per match (the sort key's
  // sub-select) took 190 ms for a month's 27,000 at 1M, the join 30 ms.
  const byName = args.sort_by === "locationName";
  const matches = byName
    ? sql`SELECT w.id, sort_location.name AS "locationName" FROM "WorkOrder" w
            JOIN "Location" sort_location ON sort_location.id = w."locationId" WHERE ${where}`
    : sql`SELECT w.id, w."createdAt", w."woPriority", w."locationId" FROM "WorkOrder" w WHERE ${where}`;
  const dir = Prisma.raw(args.order?.toLowerCase() === "desc" ? "desc" : "asc");
  const page = narrowed
    ? sql`WITH m AS MATERIALIZED (${matches}),
               p AS MATERIALIZED (SELECT ARRAY(SELECT w.id FROM m w ORDER BY ${byName ? sql`w."locationName" ${dir}, w.id ${dir}` : order} LIMIT ${take} OFFSET ${skip}) AS ids)
          SELECT p.ids, (SELECT count(*) FROM m)::int AS count${rows} FROM p`
    : sql`WITH p AS MATERIALIZED (SELECT ARRAY(SELECT w.id FROM "WorkOrder" w WHERE ${where} ORDER BY ${order} LIMIT ${take} OFFSET ${skip}) AS ids)
          SELECT p.ids, NULL::int AS count${rows} FROM p`;
  return { page, count, pageCounts: narrowed };
}
