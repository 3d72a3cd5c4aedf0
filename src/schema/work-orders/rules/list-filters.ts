// The work order list's filters (docs/work-order-search.md "Filters"): the query parameters it declares,
// and a filter argument as SQL conditions over `"WorkOrder" w`. The search text is search/text-query.ts;
// list-statements.ts puts both in the one WHERE.
import { Prisma } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import type { ListQuery } from "../../core/interfaces.ts";
import { type FilterKind, filterWhere } from "../../core/list.ts";
import { windowKeys, windowOf } from "../../core/time-window.ts";
import { STATUSES } from "./state-machine.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

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
/** Time windows (core/time-window.ts): `<name>Start` / `<name>End` (inclusive), or `<name>=<from>,<to>`. */
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
export const SORTABLE = ["createdAt", "locationName", "woPriority", "lastServiceCallServiceScheduledAt"] as const;
export type Sortable = (typeof SORTABLE)[number];

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
  sortFallback: "sorts by createdAt, newest first (no 400; docs/work-order-search.md)",
  groupable: GROUPABLE,
};

export const col = (name: string) => Prisma.raw(`w."${name}"`);
/** The values of one filterWhere entry: `{ in: [...] }` or a single value. */
export const anyOf = (v: unknown) =>
  v !== null && typeof v === "object" && "in" in v ? (v as { in: unknown[] }).in : [v];

/**
 * Statuses as enum literals: the planner uses the column's statistics, and a prepared statement's
 * generic plan compares with one constant array (a list of parameters was built into an array again
 * for every row: 13 statuses over a quarter's 84,000 rows cost 60 ms). Only the enum's own values are
 * written in; the callers have refused any other with a 400.
 */
export function statusesSql(statuses: readonly string[]) {
  const unknown = statuses.filter((s) => !STATUSES.includes(s as never));
  if (unknown.length) throw new Error(`not work order statuses: ${unknown.join(", ")}`);
  return statuses.length
    ? Prisma.raw(`w.status IN (${statuses.map((s) => `'${s}'::"WorkOrderStatus"`).join(", ")})`)
    : sql`FALSE`;
}

/** Work orders on any of `assets`, as the main asset or a sub-asset: the btree on assetId and the GIN on subAssetIds combine in one bitmap. */
export const assetsSql = (assets: readonly number[]) =>
  sql`(w."assetId" IN (${Prisma.join(assets)}) OR w."subAssetIds" && ${assets}::int[])`;

/** Column and window filters, as SQL conditions; unknown filters are a 400 like on every list. */
export function filterSql(filter: unknown): Sql[] {
  if (filter === undefined || filter === null) return [];
  if (typeof filter !== "object" || Array.isArray(filter)) throw badInput("filter must be an object of field filters");
  const raw = filter as Record<string, unknown>;
  const conditions: Sql[] = [];
  for (const name of WINDOWS) {
    const { from, to } = windowOf(raw, name);
    if (from) conditions.push(sql`${col(name)} >= ${from}`);
    if (to) conditions.push(sql`${col(name)} <= ${to}`);
  }
  const windows = windowKeys(WINDOWS);
  const columns = Object.fromEntries(Object.entries(raw).filter(([k]) => !windows.includes(k) && !IGNORED.includes(k)));
  // filterWhere reads and checks the values; every accepted name is listed in its "unknown filter" message.
  const known = { ...COLUMNS, ...Object.fromEntries([...windows, ...IGNORED].map((k) => [k, "string" as const])) };
  const where = filterWhere(columns, { filters: known });
  const assets: number[] = [];
  for (const [name, value] of Object.entries(where)) {
    const values = anyOf(value);
    if (name === "assetId" || name === "assetIds") assets.push(...(values as number[]));
    else if (name === "status") {
      const unknown = values.filter((s) => !STATUSES.includes(s as never));
      if (unknown.length) throw badInput(`unknown status ${unknown.join(", ")}; statuses: ${STATUSES.join(", ")}`);
      conditions.push(statusesSql(values as string[]));
    } else conditions.push(sql`${col(name)} IN (${Prisma.join(values)})`);
  }
  if (assets.length) conditions.push(assetsSql(assets));
  return conditions;
}
