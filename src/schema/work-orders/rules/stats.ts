// workOrderStats (docs/dashboards.md, "Charts"): the work order dimensions and service-level figures,
// over the rows of the key's scope and the filter (filter.ts), answered by core/stats.ts's one GROUP BY.
//
// - overdue: open work orders past their priority's due time, createdAt + woPriority hours < now. Open
//   means neither completed (COMPLETED_STATUSES: the supplier finished the work, WaitingForReview on) nor
//   closed (CancelledWithReason, Rejected); a work order without a priority is never overdue.
// - medianHoursToCompletion: over the group's work orders that reached completion, the median of the
//   hours from createdAt to their FIRST status change into a completed status (WorkOrderStatusChange; a
//   later WorkUnsatisfactory and second completion do not move it). Null when none did.
import { type Db, Prisma } from "../../../db.ts";
import {
  bucketOf,
  bucketSql,
  checkGroupBy,
  type Dimension,
  keptStatsRows,
  type Measure,
  refusePartners,
  statsRows,
  type StatsQuery,
  statsSql,
  type TimeBucket,
} from "../../core/stats.ts";
import type { Viewer } from "../../core/viewer.ts";
import { type WorkOrderFilterValue, workOrderFilterSql } from "./filter.ts";
import { statusesSql } from "./list-filters.ts";
import { workOrderScopeSql } from "./scope.ts";
import { COMPLETED_STATUSES, STATUSES, type Status } from "./state-machine.ts";

const sql = Prisma.sql;

/** Closed without completion: no due time applies any more. */
const CLOSED_STATUSES: readonly Status[] = ["CancelledWithReason", "Rejected"];
const OPEN_STATUSES = STATUSES.filter((s) => !COMPLETED_STATUSES.includes(s) && !CLOSED_STATUSES.includes(s));

export const WORK_ORDER_DIMENSIONS = [
  "STATUS",
  "LOCATION",
  "REGION",
  "SUPPLIER_FACILITY",
  "PROBLEM_TYPE",
  "PRIORITY",
  "CREATED",
] as const;
export type WorkOrderDimension = (typeof WORK_ORDER_DIMENSIONS)[number];

const LOCATION_JOIN = sql`LEFT JOIN "Location" wl ON wl.id = w."locationId"`;

/** Each dimension: the row's output column and how it groups. */
function dimension(name: WorkOrderDimension, bucket: TimeBucket): [string, Dimension] {
  switch (name) {
    case "STATUS":
      return ["status", { key: sql`w.status`, order: STATUSES }];
    case "LOCATION":
      return ["location", { key: sql`w."locationId"`, namedBy: "Location" }];
    case "REGION":
      return ["region", { key: sql`wl."regionId"`, join: LOCATION_JOIN, namedBy: "Region" }];
    case "SUPPLIER_FACILITY":
      return ["supplierFacility", { key: sql`w."supplierFacilityId"`, namedBy: "SupplierFacility" }];
    case "PROBLEM_TYPE":
      return ["problemType", { key: sql`w."problemTypeId"`, namedBy: "ProblemType" }];
    case "PRIORITY":
      return ["priority", { key: sql`w."woPriority"` }];
    case "CREATED":
      return ["created", { key: bucketSql(bucket, sql`w."createdAt"`) }];
  }
}

/** An open work order's due time: its creation plus its priority's hours (null without a priority). */
const DUE = sql`w."createdAt" + w."woPriority" * interval '1 hour'`;

/** The measures beyond count, by the row field that shows them. */
function measure(name: "overdue" | "medianHoursToCompletion", now: Date): Measure {
  if (name === "overdue")
    return { value: sql`(count(*) FILTER (WHERE ${statusesSql(OPEN_STATUSES)} AND ${DUE} < ${now}))::int` };
  // firstCompletedAt: the first change into a completed status, kept on the row by a trigger on the
  // status history (migration 20261212090000) and carried by the stats index. The hours of the group's
  // completed work orders are gathered, then their median taken per group (core/stats.ts Measure.final):
  // none for a group without one, its one value for a group of one (the subquery per group was a sixth of
  // a month's chart of 19,000 groups: "Dashboards" → "Twenty-fourth session").
  return {
    value: sql`array_agg((extract(epoch FROM w."firstCompletedAt" - w."createdAt") / 3600)::float8)
                 FILTER (WHERE w."firstCompletedAt" IS NOT NULL)`,
    final: (hours) => sql`CASE WHEN cardinality(${hours}) = 1 THEN ${hours}[1] WHEN ${hours} IS NOT NULL
      THEN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY h) FROM unnest(${hours}) h) END`,
  };
}

interface WorkOrderStatsArgs {
  filter?: WorkOrderFilterValue | null;
  groupBy: readonly WorkOrderDimension[];
  bucket?: TimeBucket | null;
}

export interface WorkOrderStatsRow {
  status?: Status | null;
  location?: number | null;
  locationName?: string | null;
  region?: number | null;
  regionName?: string | null;
  supplierFacility?: number | null;
  supplierFacilityName?: string | null;
  problemType?: number | null;
  problemTypeName?: string | null;
  priority?: number | null;
  created?: Date | null;
  count: number;
  overdue?: number;
  medianHoursToCompletion?: number | null;
  /** True when `overdue` may change with nothing written (core/stats.ts StatsQuery.changesWithTime). */
  changesWithTime?: boolean | null;
}

/** The statement of a workOrderStats request (exported for the bench's EXPLAIN and the tests). */
export const workOrderStatsSql = (...args: Parameters<typeof workOrderStatsQuery>) =>
  statsSql(workOrderStatsQuery(...args));

/** The query of a workOrderStats request: its rows, dimensions and measures. */
function workOrderStatsQuery(
  viewer: Viewer,
  args: WorkOrderStatsArgs,
  selected: ReadonlySet<string>,
  now: Date,
): StatsQuery {
  refusePartners(viewer, "workOrderStats");
  const groupBy = checkGroupBy(args.groupBy);
  const bucket = bucketOf(groupBy.includes("CREATED"), args.bucket, "CREATED");
  const measures = (["overdue", "medianHoursToCompletion"] as const).filter((m) => selected.has(m));
  return {
    from: sql`"WorkOrder" w`,
    where: Prisma.join([workOrderScopeSql(viewer), ...workOrderFilterSql(args.filter)], " AND "),
    dimensions: groupBy.map((d) => dimension(d, bucket)),
    measures: measures.map((m) => [m, measure(m, now)]),
    // overdue counts against `now`: a group's may change with time alone until its last due time, which
    // its latest creation plus its longest priority bounds (two columns of the stats index, no expression
    // per row; a boolean, not a timestamp per group to parse).
    changesWithTime: measures.includes("overdue")
      ? sql`CASE WHEN max(w."createdAt") + max(w."woPriority") * interval '1 hour' >= ${now} THEN true END`
      : undefined,
  };
}

/**
 * A buyer key's charts are kept between requests while exact, and patched by location or supplier
 * facility when grouped by one (core/kept-answers.ts); others read afresh.
 */
export function workOrderStats(db: Db, ...args: Parameters<typeof workOrderStatsQuery>) {
  const [viewer, { filter, groupBy }, , now] = args;
  const query = workOrderStatsQuery(...args);
  return viewer.kind === "buyer" && viewer.buyerCompanyId !== null
    ? keptStatsRows<WorkOrderStatsRow>(db, query, {
        company: viewer.buyerCompanyId,
        period: filter?.createdAt ?? {},
        // A region filter reads which locations are in the region (a location moved changes REGION).
        dimensions: filter?.regionIds ? [...groupBy, "REGION"] : groupBy,
        now,
        patchBy: groupBy.includes("LOCATION")
          ? { dimension: "location", changes: "locationIds" }
          : groupBy.includes("SUPPLIER_FACILITY")
            ? { dimension: "supplierFacility", changes: "supplierFacilityIds" }
            : undefined,
      })
    : statsRows<WorkOrderStatsRow>(db, statsSql(query));
}
