// Work order list, search and count (GET …/work_order/work_orders and …/count_by). One SQL builder
// (`workOrderWhere`) serves the list page, its total and count_by, so the three always agree.
// Prisma cannot express the tsvector match, so the ids come from raw SQL, and the rows with them as JSON
// (core/json-rows.ts) or, for a selection that reader cannot answer, from a findMany by id; either way
// the key's scope is applied again to the rows: a row outside it can never be returned, whatever picked
// the ids. See docs/work-order-search.md.
import { Prisma, sqlRows } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import { filterWhere, pageOf, type FilterKind, type ListArgs } from "../../core/list.ts";
import type { ListQuery } from "../../core/interfaces.ts";
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { rowReader, type RowReader } from "../../core/json-rows.ts";
import { workOrderScope, workOrderScopeSql } from "./scope.ts";
import { bitmapSearch, type BitmapQuery } from "../search/bitmaps.ts";
import { STATUSES } from "./state-machine.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** offset + limit may not go past this (the contract's list window). */
const WINDOW = 10_000;
/** Longer search text is refused rather than silently cut (it would change the meaning). */
const MAX_SEARCH_LENGTH = 500;

/** Columns that narrow with `=` (comma = any of). */
const COLUMNS: Record<string, FilterKind> = {
  id: "int",
  status: "string",
  locationId: "int",
  problemTypeId: "int",
  supplierFacilityId: "int",
  plannedMaintenanceScheduleId: "int",
  parentWorkOrderId: "int",
  isPM: "boolean",
  // Either name matches the main asset or any sub-asset.
  assetId: "int",
  assetIds: "int",
};
/** Time windows: `<name>Start` / `<name>End` (inclusive), or `<name>=<from>,<to>` with either end empty. */
const WINDOWS = ["statusChangedAt", "assignedAt", "createdAt"] as const;
/** Accepted for compatibility with the contract, but they do not narrow (List and filter rules 4). */
const IGNORED = ["updatedAtStartDate", "updatedAtEndDate", "buyerFacilityId", "walkthroughId"];
/** What count_by may group on. */
export const GROUPABLE = [
  "status",
  "locationId",
  "problemTypeId",
  "supplierFacilityId",
  "plannedMaintenanceScheduleId",
  "isPM",
  "assetId",
  "buyerFacilityId",
];

/** Sort fields; any other value (or none) sorts by createdAt descending (List and filter rules 3). */
const SORTABLE = ["createdAt", "locationName", "woPriority", "lastServiceCallServiceScheduledAt"] as const;

/** The list's query parameters beyond its arguments, as its route documents them. */
export const WORK_ORDER_QUERY: ListQuery = {
  filters: {
    ...COLUMNS,
    ...Object.fromEntries(
      WINDOWS.flatMap((name) => [
        [name, "string"],
        [`${name}Start`, "datetime"],
        [`${name}End`, "datetime"],
      ]),
    ),
    ...Object.fromEntries(IGNORED.map((name) => [name, "string"])),
  },
  sortable: SORTABLE,
  groupable: GROUPABLE,
};

const col = (name: string) => Prisma.raw(`w."${name}"`);
const anyOf = (v: unknown) => (v !== null && typeof v === "object" && "in" in v ? (v as { in: unknown[] }).in : [v]);

function timestamp(name: string, text: string): Date {
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) {
    throw badInput(`filter ${name} expects ISO 8601 timestamps, got ${JSON.stringify(text)}`);
  }
  return date;
}

/** [from, to] of one window, from `<name>=from,to` and/or `<name>Start` / `<name>End`. */
function windowOf(name: string, filter: Record<string, unknown>): [Date | undefined, Date | undefined] {
  const read = (key: string, raw: unknown) => {
    const text = String(raw ?? "").trim();
    return text ? timestamp(key, text) : undefined;
  };
  let from = read(`${name}Start`, filter[`${name}Start`]);
  let to = read(`${name}End`, filter[`${name}End`]);
  const pair = filter[name];
  if (pair !== undefined) {
    const parts = Array.isArray(pair) ? pair : String(pair).split(",");
    if (parts.length > 2) throw badInput(`filter ${name} expects <from>,<to> (either may be empty)`);
    from = read(name, parts[0]) ?? from;
    to = read(name, parts[1]) ?? to;
  }
  return [from, to];
}

/** Column and window filters, as SQL conditions; unknown filters are a 400 like on every list. */
function filterSql(filter: unknown): Sql[] {
  if (filter === undefined || filter === null) return [];
  if (typeof filter !== "object" || Array.isArray(filter)) throw badInput("filter must be an object of field filters");
  const raw = filter as Record<string, unknown>;
  const conditions: Sql[] = [];
  for (const name of WINDOWS) {
    const [from, to] = windowOf(name, raw);
    if (from) conditions.push(sql`${col(name)} >= ${from}`);
    if (to) conditions.push(sql`${col(name)} <= ${to}`);
  }
  const windowKeys = WINDOWS.flatMap((n) => [n, `${n}Start`, `${n}End`]);
  const columns = Object.fromEntries(
    Object.entries(raw).filter(([k]) => !windowKeys.includes(k) && !IGNORED.includes(k)),
  );
  // filterWhere reads and checks the values; every accepted name is listed in its "unknown filter" message.
  const known = { ...COLUMNS, ...Object.fromEntries([...windowKeys, ...IGNORED].map((k) => [k, "string" as const])) };
  const where = filterWhere(columns, { filters: known });
  const assets: number[] = [];
  for (const [name, value] of Object.entries(where)) {
    const values = anyOf(value);
    if (name === "assetId" || name === "assetIds") assets.push(...(values as number[]));
    else if (name === "status") {
      const unknown = values.filter((s) => !STATUSES.includes(s as never));
      if (unknown.length) throw badInput(`unknown status ${unknown.join(", ")}; statuses: ${STATUSES.join(", ")}`);
      // Compared as the enum, so the planner can use the column's statistics.
      conditions.push(sql`w.status IN (${Prisma.join(values.map((s) => sql`${s}::"WorkOrderStatus"`))})`);
    } else conditions.push(sql`${col(name)} IN (${Prisma.join(values)})`);
  }
  // The btree on assetId and the GIN on subAssetIds combine in one bitmap.
  if (assets.length)
    conditions.push(sql`(w."assetId" IN (${Prisma.join(assets)}) OR w."subAssetIds" && ${assets}::int[])`);
  return conditions;
}

/**
 * The user's search text as safe tsquery parts: quoted "phrases" (exact phrase) and words (prefix and
 * stem). Only letters, digits and the characters that occur inside tokens (e-mails, part and PO
 * numbers) survive, so no input can produce tsquery syntax; each word is then quoted as one lexeme.
 */
function parseSearch(text: string): { words: string[]; phrases: string[] } {
  const clean = (s: string) => s.replace(/[^\p{L}\p{N}@._-]+/gu, " ").trim();
  const meaningful = (s: string) => /[\p{L}\p{N}]/u.test(s);
  const phrases: string[] = [];
  const rest = text.replace(/"([^"]*)"/g, (_, phrase: string) => (phrases.push(clean(phrase)), " "));
  return { words: clean(rest).split(/\s+/).filter(meaningful), phrases: phrases.filter(meaningful) };
}

/** tsquery text → tsquery, with the `:*` of one- and two-character lexemes removed. */
const shortLexemesExact = (tsqueryText: Sql) =>
  sql`regexp_replace(${tsqueryText}, ${"'([^']{1,2})':\\*"}, ${"'\\1'"}, 'g')::tsquery`;

/**
 * One word as a prefix query under one configuration (the parser splits codes such as PO-100042 into
 * several lexemes). Lexemes of one or two characters match exactly: as prefixes they would expand to
 * a large part of the index ('po':* is half of it once PO numbers are indexed) for no useful match.
 */
const prefixQuery = (config: "english" | "simple", word: string) =>
  shortLexemesExact(sql`to_tsquery(${Prisma.raw(`'${config}'`)}, ${`'${word}':*`})::text`);

/**
 * A word the parser keeps whole (plain words, hyphenated words such as walk-in, e-mails): its English
 * stem exactly (`leaking` finds leak, leaks, leaked) or the word as typed as a prefix (`compres` finds
 * compressor, and `escalat` escalation through its '#escalation' prefix lexeme), one lexeme each; only
 * the prefix when stemming changes nothing. The stem is not a prefix
 * itself: `leak:*` would also match leakage and, worse, make the GIN index expand every lexeme starting
 * with a common stem before it can intersect the words (50 ms instead of 19 ms for "ice machine
 * leaking" at 1M rows). A hyphenated word is its whole lexeme only: to_tsquery would add its parts as a
 * phrase, and the index would expand 'walk':* (130,000 rows at 1M) to confirm what 'walk-in' decides.
 * An English stop word (`not`) is in no vector, so it drops out: its query is empty, which && ignores.
 */
function wholeWordQuery(word: string): Sql {
  const lexeme = sql`lower(${word})`;
  const stem = sql`(ts_lexize('english_stem', ${lexeme}))[1]`;
  // The typed word as a prefix of the English lexemes and, from three characters on, of the words
  // indexed for prefixes ('#escalation', search.ts): `escalat` finds escalation, whose stem is escal.
  // One- and two-character words stay exact (shortLexemesExact); no word that short is marked.
  const typed = sql`(CASE WHEN length(${lexeme}) > 2
                          THEN (quote_literal(${lexeme}) || ':*')::tsquery || (quote_literal('#' || ${lexeme}) || ':*')::tsquery
                          ELSE ${shortLexemesExact(sql`quote_literal(${lexeme}) || ':*'`)} END)`;
  return sql`(CASE WHEN ${stem} IS NULL THEN to_tsquery('english', ${`'${word}'`})
                   WHEN ${stem} = ${lexeme} THEN ${typed}
                   ELSE quote_literal(${stem})::tsquery || ${typed} END)`;
}

/**
 * One word. Words the parser splits (reference numbers: PO-100042 → po, -100042) keep the parsed query:
 * the English reading exactly or the simple one as a prefix, only the prefix when they agree.
 */
function wordQuery(word: string): Sql {
  const typed = prefixQuery("simple", word);
  const split = sql`(CASE WHEN ${prefixQuery("english", word)} = ${typed} THEN ${typed} ELSE to_tsquery('english', ${`'${word}'`}) || ${typed} END)`;
  return sql`(CASE WHEN lower(${word}) = ANY(tsvector_to_array(to_tsvector('simple', ${word}))) THEN ${wholeWordQuery(word)} ELSE ${split} END)`;
}

/**
 * The search condition: every word must match (wordQuery; the vector holds English stems for text and
 * simple tokens for reference numbers); every phrase must match as a phrase under either
 * configuration. Null when the text has nothing to search for.
 */
function searchSql(text: string | null | undefined): Sql | null {
  if (!text?.trim()) return null;
  if (text.length > MAX_SEARCH_LENGTH) throw badInput(`search is limited to ${MAX_SEARCH_LENGTH} characters`);
  const { words, phrases } = parseSearch(text);
  // Both configurations, but only once when they agree: every operand is one more scan of the GIN index.
  const either = (english: Sql, simple: Sql) =>
    sql`(CASE WHEN ${english} = ${simple} THEN ${english} ELSE ${english} || ${simple} END)`;
  const parts = [
    ...words.map(wordQuery),
    ...phrases.map((phrase) =>
      either(sql`phraseto_tsquery('english', ${phrase})`, sql`phraseto_tsquery('simple', ${phrase})`),
    ),
  ];
  return parts.length ? sql`w."searchVector" @@ (${Prisma.join(parts, " && ")})` : null;
}

export interface WorkOrderQueryArgs extends ListArgs {
  search?: string | null;
}

/**
 * The one WHERE of list, total and count_by: tenant scope AND filters AND search. `narrowed` tells
 * whether anything beyond the scope applies.
 */
function workOrderWhere(viewer: Viewer, args: WorkOrderQueryArgs): { where: Sql; narrowed: boolean } {
  const conditions = [...filterSql(args.filter)];
  const search = searchSql(args.search);
  if (search) conditions.push(search);
  return { where: Prisma.join([workOrderScopeSql(viewer), ...conditions], " AND "), narrowed: conditions.length > 0 };
}

/** sort_by → ORDER BY; unknown or absent sorts by createdAt descending (no 400, List and filter rules 3). */
function orderSql(args: WorkOrderQueryArgs): Sql {
  const order = (args.order ?? "asc").toLowerCase();
  if (order !== "asc" && order !== "desc") throw badInput('order must be "asc" or "desc"');
  const dir = Prisma.raw(order);
  switch (args.sort_by) {
    case "createdAt":
      return sql`w."createdAt" ${dir}, w.id ${dir}`;
    case "locationName":
      return sql`(SELECT l.name FROM "Location" l WHERE l.id = w."locationId") ${dir}, w.id ${dir}`;
    case "woPriority":
      return sql`w."woPriority" ${dir} NULLS LAST, w.id ${dir}`;
    case "lastServiceCallServiceScheduledAt":
      return sql`(SELECT max(s."scheduledAt") FROM "ServiceCall" s WHERE s."workOrderId" = w.id) ${dir} NULLS LAST, w.id ${dir}`;
    default:
      return sql`w."createdAt" DESC, w.id DESC`;
  }
}

/** offset and limit as on every list (default 10, at most 25), plus the 10,000-row window. */
function windowPage(args: ListArgs) {
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
function rowsSql(viewer: Viewer, reader: RowReader, ids: Sql): Sql {
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
  const page = narrowed
    ? sql`WITH m AS MATERIALIZED (SELECT w.id, w."createdAt", w."woPriority", w."locationId" FROM "WorkOrder" w WHERE ${where}),
               p AS (SELECT ARRAY(SELECT w.id FROM m w ORDER BY ${order} LIMIT ${take} OFFSET ${skip}) AS ids)
          SELECT p.ids, (SELECT count(*) FROM m)::int AS count${rows} FROM p`
    : sql`SELECT p.ids, NULL::int AS count${rows}
            FROM (SELECT ARRAY(SELECT w.id FROM "WorkOrder" w WHERE ${where} ORDER BY ${order} LIMIT ${take} OFFSET ${skip}) AS ids) p`;
  return { page, count, pageCounts: narrowed };
}

/**
 * A buyer's search with no filter but status can be answered from the bitmap postings
 * (search-bitmaps.ts); anything else, or a search that path declines, takes the GIN path below.
 */
export function bitmapQueryOf(viewer: Viewer, args: WorkOrderQueryArgs, enabled = true): BitmapQuery | undefined {
  if (
    !enabled ||
    viewer.kind !== "buyer" ||
    viewer.buyerCompanyId === null ||
    viewer.buyerCompanyId === undefined ||
    !args.search?.trim()
  )
    return undefined;
  const filter = (args.filter ?? {}) as Record<string, unknown>;
  if (Object.keys(filter).some((name) => name !== "status")) return undefined;
  const { where } = workOrderWhere(viewer, args); // validates every argument first, as the GIN path does
  const { skip, take } = windowPage(args);
  const status =
    filter.status === undefined
      ? undefined
      : filterWhere({ status: filter.status }, { filters: { status: "string" } }).status;
  const order = (args.order ?? "asc").toLowerCase() as "asc" | "desc";
  const walk =
    args.sort_by === "createdAt" || args.sort_by === "woPriority"
      ? { by: args.sort_by as "createdAt" | "woPriority", order }
      : SORTABLE.includes(args.sort_by as never)
        ? undefined
        : { by: "createdAt" as const, order: "desc" as const };
  return {
    companyId: viewer.buyerCompanyId,
    ...parseSearch(args.search),
    search: args.search,
    statuses: status === undefined ? undefined : (anyOf(status) as string[]),
    where,
    order: orderSql(args),
    walk,
    skip,
    take,
  };
}

/**
 * The page and the total. The rows come as JSON from the statement that picks them when the GraphQL
 * selection allows (core/json-rows.ts: every REST request, and GraphQL ones without nested objects), else
 * from Prisma by id.
 */
export async function workOrderPage(ctx: Context, args: WorkOrderQueryArgs, query: object) {
  const reader = rowReader("WorkOrder", query);
  const fast = bitmapQueryOf(ctx.viewer, args, ctx.searchBitmaps);
  const found = fast && (await bitmapSearch(ctx, fast));
  if (found) return { data: await rowsOf(ctx, found.ids, query, reader), count: found.count };
  const { page, count, pageCounts } = workOrderStatements(ctx.viewer, args, reader);
  const [[picked], separate] = await Promise.all([
    sqlRows<{ ids: number[]; count: number | null; rows?: unknown[] }>(ctx.db, page),
    pageCounts ? undefined : sqlRows<{ count: number }>(ctx.db, count),
  ]);
  const data = reader ? reader.read<object>(picked.rows!) : await rowsOf(ctx, picked.ids, query);
  return { data, count: picked.count ?? separate![0].count };
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
    const fast = bitmapQueryOf(ctx.viewer, { ...args, offset: 0, limit: 1 }, ctx.searchBitmaps);
    const found = fast && (await bitmapSearch(ctx, fast, { countOnly: true }));
    if (found) return { count: found.count };
  }
  const { count } = workOrderStatements(ctx.viewer, args);
  if (!args.group_by) return { count: (await ctx.db.$queryRaw<{ count: number }[]>(count))[0].count };
  if (!GROUPABLE.includes(args.group_by))
    throw badInput(`cannot group by ${JSON.stringify(args.group_by)}; groupable fields: ${GROUPABLE.join(", ")}`);
  const group = col(args.group_by);
  // Statuses come out as text, ordered as the lifecycle declares them (like count_by on other enums).
  const value = args.group_by === "status" ? sql`${group}::text` : group;
  return ctx.db.$queryRaw<{ value: unknown; count: number }[]>`
    SELECT ${value} AS value, count(*)::int AS count FROM "WorkOrder" w WHERE ${workOrderWhere(ctx.viewer, args).where}
     GROUP BY ${group} ORDER BY ${group} NULLS LAST`;
}

export const SEARCH_HELP =
  'Words match by prefix and stem across title, description, location, problem type, notes, service call notes and reference numbers; "quoted text" must match as a phrase';
