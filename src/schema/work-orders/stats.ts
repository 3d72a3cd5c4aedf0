// workOrderStats, the work order charts of the dashboard graph (graphql sub-graph only; docs/dashboards.md,
// "Charts"): typed rows keyed by the chosen dimensions, the key's scope ANDed with WorkOrderFilter. The
// rules and the figures' definitions are rules/stats.ts.
import { builder } from "../core/builder.ts";
import { rowsToComplete } from "../core/kept-json.ts";
import { type NamedKey, NamedKeyRef, selectedFields, TimeBucketEnum } from "../core/stats.ts";
import { WorkOrderFilter } from "./filter-types.ts";
import { WORK_ORDER_DIMENSIONS, type WorkOrderStatsRow, workOrderStats } from "./rules/stats.ts";
import { WorkOrderStatusEnum } from "./types.ts";

const WorkOrderDimensionEnum = builder.enumType("WorkOrderDimension", {
  subGraphs: ["graphql"],
  description: "What workOrderStats groups work orders by; the row field of the same name holds the key",
  values: {
    STATUS: { description: "The work order's status (row field status)" },
    LOCATION: { description: "Its location (row field location)" },
    REGION: { description: "Its location's region (row field region; null for locations without one)" },
    SUPPLIER_FACILITY: { description: "Its assigned supplier facility (row field supplierFacility; null: none)" },
    PROBLEM_TYPE: { description: "Its problem type (row field problemType)" },
    PRIORITY: { description: "Its priority in hours, woPriority (row field priority; null: none)" },
    CREATED: { description: "Its creation time, in the request's bucket (row field created: the bucket's start)" },
  } satisfies Record<(typeof WORK_ORDER_DIMENSIONS)[number], { description: string }>,
});

const key = (id: number | null | undefined, name: string | null | undefined): NamedKey | null =>
  id === null || id === undefined ? null : { id, name: name ?? "" };

const WorkOrderStatsRowRef = builder.objectRef<WorkOrderStatsRow>("WorkOrderStatsRow").implement({
  subGraphs: ["graphql"],
  description:
    "One group of work orders. Key fields of dimensions not grouped by are null; a grouped key is null for work orders without a value (no supplier, no region, no priority).",
  fields: (t) => ({
    status: t.field({
      type: WorkOrderStatusEnum,
      nullable: true,
      description: "STATUS key",
      resolve: (r) => r.status ?? null,
    }),
    location: t.field({
      type: NamedKeyRef,
      nullable: true,
      description: "LOCATION key",
      resolve: (r) => key(r.location, r.locationName),
    }),
    region: t.field({
      type: NamedKeyRef,
      nullable: true,
      description: "REGION key",
      resolve: (r) => key(r.region, r.regionName),
    }),
    supplierFacility: t.field({
      type: NamedKeyRef,
      nullable: true,
      description: "SUPPLIER_FACILITY key",
      resolve: (r) => key(r.supplierFacility, r.supplierFacilityName),
    }),
    problemType: t.field({
      type: NamedKeyRef,
      nullable: true,
      description: "PROBLEM_TYPE key",
      resolve: (r) => key(r.problemType, r.problemTypeName),
    }),
    priority: t.int({
      nullable: true,
      description: "PRIORITY key: expected resolution time in hours",
      resolve: (r) => r.priority ?? null,
    }),
    created: t.field({
      type: "DateTime",
      nullable: true,
      description: "CREATED key: the start of the bucket (UTC)",
      resolve: (r) => r.created ?? null,
    }),
    count: t.exposeInt("count", { description: "Work orders in the group" }),
    overdue: t.int({
      description:
        "Open work orders of the group past their priority's due time (createdAt + woPriority hours < asOf); open: not completed (WaitingForReview, WorkReviewedAndCompleted, PaymentMade), cancelled or rejected",
      resolve: (r) => r.overdue ?? 0,
    }),
    medianHoursToCompletion: t.float({
      nullable: true,
      description:
        "Median hours from creation to the first status change into a completed status (WaitingForReview, WorkReviewedAndCompleted, PaymentMade), over the group's work orders that reached one; null when none did",
      resolve: (r) => r.medianHoursToCompletion ?? null,
    }),
  }),
});

const WorkOrderStatsRef = builder.objectRef<{ asOf: Date; rows: WorkOrderStatsRow[] }>("WorkOrderStats").implement({
  subGraphs: ["graphql"],
  description: "Work order aggregates for a chart",
  fields: (t) => ({
    asOf: t.field({
      type: "DateTime",
      description: "The instant the figures are computed at (overdue compares due times with it)",
      resolve: (s) => s.asOf,
    }),
    rows: t.field({
      type: [WorkOrderStatsRowRef],
      description: `Groups ordered by their keys (statuses in lifecycle order, nulls last), at most 50,000`,
      // A kept answer's rows complete once per selection (core/kept-json.ts).
      resolve: (s, _args, ctx, info) => rowsToComplete(s.rows, ctx, info),
    }),
  }),
});

builder.queryField("workOrderStats", (t) =>
  t.field({
    subGraphs: ["graphql"],
    nullable: true,
    description:
      "Work orders in the key's scope (buyer: its company's; supplier: its own and those it may see) grouped by one or more dimensions, with their count and service-level figures. See docs/dashboards.md.",
    type: WorkOrderStatsRef,
    args: {
      filter: t.arg({ type: WorkOrderFilter, description: "Which work orders to count (within the key's scope)" }),
      groupBy: t.arg({
        type: [WorkOrderDimensionEnum],
        required: true,
        description: "One or more distinct dimensions; rows are the combinations that occur",
      }),
      bucket: t.arg({
        type: TimeBucketEnum,
        description: "The time bucket of CREATED: required when grouping by it, refused otherwise",
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const asOf = ctx.now();
      const rows = await workOrderStats(ctx.db, ctx.viewer, args, selectedFields(info, ["rows"]), asOf);
      return { asOf, rows };
    },
  }),
);
