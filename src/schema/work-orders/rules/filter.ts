// The typed work order filter of the dashboard graph (WorkOrderFilter, docs/dashboards.md), translated in
// this one place into both forms a reader needs: SQL conditions over `"WorkOrder" w` (stats, hand-built
// statements) and a Prisma `where` (connections). Either is ANDed with the key's scope by the caller
// (scope.ts workOrderScope / workOrderScopeSql) and can only narrow it. Absent or null fields do not
// narrow; an empty list matches nothing (as `IN ()` would). The search text means exactly what it means
// on the list: the GIN path's condition of search/text-query.ts.
import { Prisma, type Db, type Tx } from "../../../db.ts";
import { type DateTimeRangeValue, rangeSql, rangeWhere } from "../../core/ranges.ts";
import type { Viewer } from "../../core/viewer.ts";
import { searchSql } from "../search/text-query.ts";
import { assetsSql, col, statusesSql } from "./list-filters.ts";
import { workOrderScopeSql } from "./scope.ts";
import type { Status } from "./state-machine.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** A WorkOrderFilter as GraphQL hands it over (filter-types.ts declares and describes every field). */
export interface WorkOrderFilterValue {
  status?: readonly Status[] | null;
  ids?: readonly number[] | null;
  locationIds?: readonly number[] | null;
  regionIds?: readonly number[] | null;
  supplierFacilityIds?: readonly number[] | null;
  problemTypeIds?: readonly number[] | null;
  priorities?: readonly number[] | null;
  assetIds?: readonly number[] | null;
  plannedMaintenanceScheduleIds?: readonly number[] | null;
  parentWorkOrderIds?: readonly number[] | null;
  isPM?: boolean | null;
  createdAt?: DateTimeRangeValue | null;
  statusChangedAt?: DateTimeRangeValue | null;
  assignedAt?: DateTimeRangeValue | null;
  search?: string | null;
}

/** Id-list fields that compare one column with `IN`, by the column they read. */
const ID_COLUMNS = {
  ids: "id",
  locationIds: "locationId",
  supplierFacilityIds: "supplierFacilityId",
  problemTypeIds: "problemTypeId",
  priorities: "woPriority",
  plannedMaintenanceScheduleIds: "plannedMaintenanceScheduleId",
  parentWorkOrderIds: "parentWorkOrderId",
} as const satisfies Partial<Record<keyof WorkOrderFilterValue, keyof Prisma.WorkOrderWhereInput>>;

const RANGES = ["createdAt", "statusChangedAt", "assignedAt"] as const;

const present = <T>(list: readonly T[] | null | undefined): list is readonly T[] => list !== null && list !== undefined;
/** `IN (…)` of a list that may be empty (matching nothing). */
const inList = (column: Sql, values: readonly unknown[]) =>
  values.length ? sql`${column} IN (${Prisma.join(values)})` : sql`FALSE`;

/** The filter as SQL conditions over `"WorkOrder" w`, to be ANDed with workOrderScopeSql (empty: no narrowing). */
export function workOrderFilterSql(filter: WorkOrderFilterValue | null | undefined): Sql[] {
  if (!filter) return [];
  const conditions: Sql[] = [];
  if (present(filter.status)) conditions.push(statusesSql(filter.status));
  for (const [field, column] of Object.entries(ID_COLUMNS)) {
    const values = filter[field as keyof typeof ID_COLUMNS];
    if (present(values)) conditions.push(inList(col(column), values));
  }
  if (present(filter.regionIds))
    conditions.push(
      filter.regionIds.length
        ? sql`w."locationId" IN (SELECT l.id FROM "Location" l WHERE ${inList(sql`l."regionId"`, filter.regionIds)})`
        : sql`FALSE`,
    );
  if (present(filter.assetIds)) conditions.push(filter.assetIds.length ? assetsSql(filter.assetIds) : sql`FALSE`);
  if (filter.isPM !== null && filter.isPM !== undefined) conditions.push(sql`w."isPM" = ${filter.isPM}`);
  for (const name of RANGES) conditions.push(...rangeSql(col(name), filter[name], name));
  const search = searchSql(filter.search);
  if (search) conditions.push(search);
  return conditions;
}

/** Everything but the search, as a Prisma `where`. */
function columnsWhere(filter: WorkOrderFilterValue): Prisma.WorkOrderWhereInput[] {
  const where: Prisma.WorkOrderWhereInput[] = [];
  if (present(filter.status)) where.push({ status: { in: [...filter.status] } });
  for (const [field, column] of Object.entries(ID_COLUMNS)) {
    const values = filter[field as keyof typeof ID_COLUMNS];
    if (present(values)) where.push({ [column]: { in: [...values] } });
  }
  if (present(filter.regionIds)) where.push({ location: { regionId: { in: [...filter.regionIds] } } });
  if (present(filter.assetIds))
    where.push({ OR: [{ assetId: { in: [...filter.assetIds] } }, { subAssetIds: { hasSome: [...filter.assetIds] } }] });
  if (filter.isPM !== null && filter.isPM !== undefined) where.push({ isPM: filter.isPM });
  for (const name of RANGES) {
    const range = rangeWhere(filter[name], name);
    if (range) where.push({ [name]: range });
  }
  return where;
}

/**
 * The filter as a Prisma `where`, to be ANDed with workOrderScope. Prisma cannot express the search's
 * tsvector match, so with a search the matching ids (in the key's scope, under the other conditions,
 * by the same SQL as workOrderFilterSql) are read first in one statement and the where names them.
 */
export async function workOrderFilterWhere(
  db: Db | Tx,
  viewer: Viewer,
  filter: WorkOrderFilterValue | null | undefined,
): Promise<Prisma.WorkOrderWhereInput> {
  if (!filter) return {};
  const where = columnsWhere(filter);
  if (searchSql(filter.search)) {
    const conditions = Prisma.join([workOrderScopeSql(viewer), ...workOrderFilterSql(filter)], " AND ");
    const [{ ids }] = await db.$queryRaw<{ ids: number[] }[]>(
      sql`SELECT coalesce(array_agg(w.id), '{}') AS ids FROM "WorkOrder" w WHERE ${conditions}`,
    );
    where.push({ id: { in: ids } });
  }
  return where.length ? { AND: where } : {};
}
