// Planned maintenance types: the schedule (with its cadence, due times and work order template), the
// scheduler run log, and the write bodies.
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { scheduleScope } from "./rules/schedules.ts";
import { runLogScope } from "./rules/run-logs.ts";
import { pageType } from "../core/list.ts";
import { upcoming } from "./rules/cadence.ts";
import { seriesOf } from "./rules/schedules.ts";
import { MAX_LOG_LENGTH, RUN_LOG_STATUSES } from "./rules/run-logs.ts";
import { closedSet } from "../core/interfaces.ts";

const UPCOMING = 3;

export const ScheduleRef = builder.prismaNode("PlannedMaintenanceSchedule", {
  ...scopedNode(scheduleScope),
  description:
    "Generates recurring work orders (isPM, plannedMaintenanceScheduleId) at a cadence; see docs/planned-maintenance.md",
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declarative field list, one described field after another
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The schedule's id" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the schedule" }),
    locationId: t.exposeInt("locationId", { description: "Id of the location the work orders are for" }),
    problemTypeId: t.exposeInt("problemTypeId", { description: "Id of the problem type the work orders get" }),
    supplierFacilityId: t.exposeInt("supplierFacilityId", {
      nullable: true,
      description: "Id of the supplier facility the work orders are assigned to; null leaves them unassigned",
    }),
    title: t.exposeString("title", { description: "Title each work order gets" }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Description each work order gets; null when none",
    }),
    woPriority: t.exposeInt("woPriority", {
      nullable: true,
      description: "Expected resolution time in hours, copied to the work orders",
    }),
    needApproval: t.exposeBoolean("needApproval", {
      nullable: true,
      description: "Copied to the work orders; null: the company default",
    }),
    assetIds: t.exposeIntList("assetIds", {
      description: "The first is the work orders' main asset, the others its sub-assets",
    }),
    assetId: t.int({
      nullable: true,
      description: "The main asset (assetIds[0])",
      resolve: (s) => s.assetIds[0] ?? null,
    }),
    cadence: t.exposeString("cadence", {
      description: "An ISO 8601 duration (P3M) or an RRULE (RRULE:FREQ=MONTHLY;BYDAY=1MO), in timeZone",
    }),
    timeZone: t.string({
      description: "The location's IANA time zone, in which the cadence is read",
      select: { location: { select: { timeZone: true } } },
      resolve: (s) => s.location.timeZone,
    }),
    startsAt: t.expose("anchorAt", {
      type: "DateTime",
      description: "The series' first due time; duration cadences count from it",
    }),
    nextRunAt: t.expose("nextRunAt", {
      type: "DateTime",
      nullable: true,
      description: "The next due time; null once the series has ended",
    }),
    upcomingRunAts: t.field({
      type: ["DateTime"],
      description: `The next ${UPCOMING} due times from nextRunAt`,
      select: {
        cadence: true,
        anchorAt: true,
        endsAt: true,
        sequence: true,
        nextRunAt: true,
        location: { select: { timeZone: true } },
      },
      resolve: (s) => upcoming(seriesOf(s as never), s.sequence, s.nextRunAt, UPCOMING),
    }),
    endsAt: t.expose("endsAt", {
      type: "DateTime",
      nullable: true,
      description:
        "End of the series: no due time after it; null when open-ended (or ended by the RRULE's COUNT/UNTIL)",
    }),
    isActive: t.exposeBoolean("isActive", {
      description: "Whether the schedule generates work orders; inactive schedules are listed but never generated",
    }),
    lastRunAt: t.expose("lastRunAt", {
      type: "DateTime",
      nullable: true,
      description: "When the latest run was recorded (run log, skip or built-in generator); null before any",
    }),
    lastRunDueAt: t.expose("lastRunDueAt", {
      type: "DateTime",
      nullable: true,
      description: "The due time the latest run was for; null before any",
    }),
    lastRunStatus: t.exposeString("lastRunStatus", {
      nullable: true,
      description: "Status of the latest run (as in its run log); null before any",
    }),
    schedulingMode: t.string({
      description: "The company's: external (your scheduler creates the work orders) or built_in (the service does)",
      select: { buyerCompany: { select: { pmScheduling: true } } },
      resolve: (s) => s.buyerCompany.pmScheduling,
    }),
    workOrderTemplate: t.field({
      type: "JSON",
      description:
        "The work order fields each due time gets (POST /work_order/work_orders adds buyerFacilityId and createdBy)",
      resolve: (s) => ({
        title: s.title,
        description: s.description,
        locationId: s.locationId,
        problemTypeId: s.problemTypeId,
        buyerCompanyId: s.buyerCompanyId,
        supplierFacilityId: s.supplierFacilityId,
        assetId: s.assetIds[0] ?? null,
        subAssetIds: s.assetIds.slice(1),
        woPriority: s.woPriority,
        needApproval: s.needApproval,
        isPM: true,
        plannedMaintenanceScheduleId: s.id,
      }),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the schedule was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the schedule was last written" }),
    location: t.relation("location", { subGraphs: ["graphql"], description: "The location the work orders are for" }),
    runLogs: t.relation("runLogs", {
      subGraphs: ["graphql"],
      query: { orderBy: { id: "desc" }, take: 25 },
      description: "The latest 25 run logs of the schedule, newest first",
    }),
  }),
});

export const SchedulePage = pageType("PlannedMaintenanceSchedule", ScheduleRef);

export const RunLogRef = builder.prismaNode("SchedulerRunLog", {
  ...scopedNode(runLogScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The run log's id" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the schedule" }),
    scheduleId: t.exposeInt("scheduleId", { description: "Id of the schedule that ran" }),
    status: t.exposeString("status", {
      description: RUN_LOG_STATUSES.join(", "),
      extensions: closedSet(RUN_LOG_STATUSES),
    }),
    lastRunAt: t.expose("lastRunAt", { type: "DateTime", description: "When the scheduler ran" }),
    lastRunDueAt: t.expose("lastRunDueAt", { type: "DateTime", description: "The due time it ran for" }),
    woId: t.exposeInt("woId", {
      nullable: true,
      description: "Id of the work order the run created; null when it created none",
    }),
    log: t.exposeString("log", {
      nullable: true,
      description: "Free-form text the scheduler recorded; null when none",
    }),
    source: t.exposeString("source", { description: "external, built_in or skip_schedule" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the run log was stored" }),
  }),
  description:
    "One run of a planned maintenance schedule for one due time, recorded by the integrator's scheduler, a skip or the built-in generator",
});

export const RunLogPage = pageType("SchedulerRunLog", RunLogRef);

export const RunLogInput = builder.inputType("SchedulerRunLogInput", {
  description: "Body of a scheduler run log: what the integrator's scheduler did for one due time",
  fields: (t) => ({
    scheduleId: t.int({ required: true, description: "A planned maintenance schedule of the key's company; required" }),
    status: t.string({
      required: true,
      description: RUN_LOG_STATUSES.join(", "),
      extensions: closedSet(RUN_LOG_STATUSES),
    }),
    lastRunAt: t.field({ type: "DateTime", required: true, description: "When the scheduler ran" }),
    lastRunDueAt: t.field({
      type: "DateTime",
      required: true,
      description: "The due time it ran for (the schedule's nextRunAt)",
    }),
    woId: t.int({
      description: "The work order the run created (created with plannedMaintenanceScheduleId = scheduleId)",
    }),
    log: t.string({ description: `Free-form text, at most ${MAX_LOG_LENGTH} characters` }),
  }),
});

export const SkipScheduleInput = builder.inputType("SkipScheduleInput", {
  description: "Body of a skip: the due time in nextRunAt is passed over (a skipped run log, no work order)",
  fields: (t) => ({ id: t.int({ required: true, description: "The schedule" }) }),
});
