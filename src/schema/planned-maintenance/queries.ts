// Planned maintenance reads (buyer): schedules with their filters and count_by, and the run logs.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, pageQuery } from "../core/list.ts";
import { countByArgs } from "../core/count-by.ts";
import { readRoutes } from "../core/read-routes.ts";
import { RunLogPage, RunLogRef, SchedulePage, ScheduleRef } from "./types.ts";
import { SCHEDULE_FILTERS, SCHEDULE_QUERY, scheduleById, scheduleCount, schedulePage } from "./rules/schedules.ts";
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
