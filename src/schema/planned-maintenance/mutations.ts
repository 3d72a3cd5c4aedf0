// Planned maintenance writes (buyer): skip the next run, record a scheduler run.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { RunLogInput, RunLogRef, ScheduleRef, SkipScheduleInput } from "./types.ts";
import { skipSchedule } from "./rules/schedules.ts";
import { recordRun } from "./rules/run-logs.ts";

builder.mutationField("skipPlannedMaintenanceSchedule", (t) =>
  t.prismaField({
    // Not rate limited (the contract's Limits table).
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "PATCH",
        path: "/pm/planned_maintenance_schedules/skip_schedule",
        type: "PlannedMaintenanceSchedule",
        bodyArg: "input",
        rateLimited: false,
      },
      requires("workOrder.write", { noun: "planned maintenance schedule", id: (args) => args.input.id }),
    ),
    description:
      "Passes over the next due time (a skipped run log records it) and returns the schedule with its new nextRunAt. Not rate limited.",
    type: ScheduleRef,
    args: { input: t.arg({ type: SkipScheduleInput, required: true, description: "The schedule to skip" }) },
    resolve: (query, _root, { input }, ctx) => skipSchedule(ctx, input.id, query),
  }),
);

builder.mutationField("createSchedulerRunLog", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "POST",
        path: "/pm/scheduler_run_logs",
        type: "SchedulerRunLog",
        bodyArg: "input",
        errors: { "409": "The due time already has a successful run for another work order" },
      },
      requires("workOrder.write"),
    ),
    description: "Records a run of an external scheduler; success or skipped moves the schedule past lastRunDueAt.",
    type: RunLogRef,
    args: { input: t.arg({ type: RunLogInput, required: true, description: "The run to record" }) },
    resolve: (query, _root, { input }, ctx) => recordRun(ctx, input, query),
  }),
);
