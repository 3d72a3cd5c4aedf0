// Planned maintenance reads (buyer): schedules with their filters and count_by, and the run logs.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, pageQuery } from "../core/list.ts";
import { countByArgs } from "../core/count-by.ts";
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { RunLogPage, RunLogRef, SchedulePage, ScheduleRef } from "./types.ts";
import {
  SCHEDULE_FILTERS,
  SCHEDULE_QUERY,
  scheduleById,
  scheduleCount,
  schedulePage,
  scheduleScope,
} from "./rules/schedules.ts";
import { checkRunLogFilter, RUN_LOG_LIST, runLogScope } from "./rules/run-logs.ts";

const SCHEDULES = "/pm/planned_maintenance_schedules";

builder.queryField("plannedMaintenanceSchedules", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: SCHEDULES,
      type: "PlannedMaintenanceSchedule",
      list: true,
      query: SCHEDULE_QUERY,
    }),
    description: `The company's schedules. Filters: ${SCHEDULE_FILTERS.join(", ")} (windows: <name>Start/<name>End or <name>=<from>,<to>).`,
    type: SchedulePage,
    args: listArgs,
    resolve: (_root, args, ctx, info) => schedulePage(ctx, args, pageQuery(ctx, info)),
  }),
);

builder.queryField("plannedMaintenanceSchedulesCountBy", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: `${SCHEDULES}/count_by`,
      type: "count",
      query: SCHEDULE_QUERY,
    }),
    description: "The list's count for the same filters ({count}); with group_by, [{value, count}] by value.",
    type: "JSON",
    args: countByArgs,
    resolve: (_root, args, ctx) => scheduleCount(ctx, args),
  }),
);

builder.queryField("plannedMaintenanceSchedule", (t) =>
  t.prismaField({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: `${SCHEDULES}/:id`,
      type: "PlannedMaintenanceSchedule",
    }),
    description: "One schedule: 404 when it does not exist, 400 when it is another company's.",
    type: ScheduleRef,
    args: { id: t.arg.int({ required: true, description: "The schedule's id" }) },
    resolve: (query, _root, { id }, ctx) => scheduleById(ctx, id, query),
  }),
);

readRoutes({
  interfaces: ["buyer"],
  path: "/pm/scheduler_run_logs",
  type: "SchedulerRunLog",
  fields: { list: "schedulerRunLogs", one: "schedulerRunLog" },
  description: "Run logs of the company's schedules, newest first (filter e.g. scheduleId, status).",
  page: RunLogPage,
  item: RunLogRef,
  table: (ctx) => ctx.db.schedulerRunLog,
  scope: runLogScope,
  spec: RUN_LOG_LIST,
  checkFilter: checkRunLogFilter,
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("plannedMaintenanceSchedulesConnection", {
  type: ScheduleRef,
  typeName: "PlannedMaintenanceSchedule",
  description: "The company's planned maintenance schedules.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.plannedMaintenanceSchedule,
  scope: (ctx) => scheduleScope(ctx.viewer),
  filter: defineFilter("PlannedMaintenanceScheduleFilter", "PlannedMaintenanceSchedule", "Schedules", {
    ids: match.ids("id", "Schedule ids"),
    locationIds: match.ids("locationId", "Location ids"),
    problemTypeIds: match.ids("problemTypeId", "Problem type ids"),
    supplierFacilityIds: match.ids("supplierFacilityId", "Supplier facility ids"),
    isActive: match.flag("isActive", "Active schedules (true) or paused ones (false)"),
    nextRunAt: match.range("nextRunAt", "Next run in this range"),
    search: match.text(["title", "description"], "Text in the title or description (any case)"),
  }),
  order: defineOrder(
    "PlannedMaintenanceSchedule",
    "PlannedMaintenanceSchedule",
    { id: "Schedule id", title: "Title", createdAt: "Creation time", updatedAt: "Last change" },
    [{ field: "id", direction: "asc" }],
  ),
});

listConnection("schedulerRunLogsConnection", {
  type: RunLogRef,
  typeName: "SchedulerRunLog",
  description: "Run logs of the company's schedules.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.schedulerRunLog,
  scope: (ctx) => runLogScope(ctx.viewer),
  filter: defineFilter("SchedulerRunLogFilter", "SchedulerRunLog", "Run logs", {
    ids: match.ids("id", "Run log ids"),
    scheduleIds: match.ids("scheduleId", "Schedule ids"),
    workOrderIds: match.ids("woId", "Ids of the work orders the runs created"),
    lastRunAt: match.range("lastRunAt", "Run in this range"),
  }),
  order: defineOrder(
    "SchedulerRunLog",
    "SchedulerRunLog",
    { id: "Run log id", lastRunAt: "Run time", lastRunDueAt: "Due time of the run", createdAt: "Creation time" },
    [{ field: "id", direction: "desc" }],
  ),
});
