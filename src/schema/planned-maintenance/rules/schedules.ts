// Planned maintenance schedules: who sees them, the list's filters, the series of due times, and the
// writes that move a schedule along (skip_schedule here, run logs in run-logs.ts, the generator in
// generator.ts). A schedule only moves forward: number `sequence` of its series is in nextRunAt.
import type { Prisma, Tx } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { type ApiError, badInput } from "../../core/errors.ts";
import { filterWhere, findPage, type ListArgs, type ListSpec } from "../../core/list.ts";
import { countBy } from "../../core/count-by.ts";
import { buyerOwnedScope, findInScope, lockWritable } from "../../core/tenancy.ts";
import { splitWindows, windowFilters, windowKeys } from "../../core/time-window.ts";
import type { ListQuery } from "../../core/interfaces.ts";
import { inTransaction } from "../../core/transaction.ts";
import { nextDue, type Series } from "./cadence.ts";

export const scheduleScope = (viewer: Viewer) => buyerOwnedScope(viewer);

const WINDOWS = ["nextRunAt", "lastRunAt", "lastRunDueAt"] as const;

const SCHEDULE_LIST: ListSpec = {
  filters: {
    id: "int",
    locationId: "int",
    problemTypeId: "int",
    supplierFacilityId: "int",
    isActive: "boolean",
    buyerCompanyId: "int",
  },
  sortable: ["id", "nextRunAt", "lastRunAt", "title", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

/** The list's filters, sorting and grouping, for its route (OpenAPI). */
export const SCHEDULE_QUERY: ListQuery = {
  filters: { ...SCHEDULE_LIST.filters, assetId: "int", ...windowFilters(WINDOWS) },
  sortable: SCHEDULE_LIST.sortable,
  groupable: Object.keys(SCHEDULE_LIST.filters),
};

/** Filter names the list accepts, for messages and docs. */
export const SCHEDULE_FILTERS = [...Object.keys(SCHEDULE_LIST.filters), "assetId", ...windowKeys(WINDOWS)];

/**
 * The filter argument as (extra `where`, the rest for filterWhere): time windows, and `assetId` (any of
 * the schedule's assets). Unknown names still reach filterWhere, which answers the 400.
 */
function scheduleFilter(filter: unknown): { where: Record<string, unknown>; rest: unknown } {
  const { rest, where } = splitWindows(filter, WINDOWS);
  if (rest && typeof rest === "object" && "assetId" in rest) {
    const { assetId, ...others } = rest as Record<string, unknown>;
    const parsed = filterWhere({ assetId }, { filters: { assetId: "int" } }).assetId;
    const ids = typeof parsed === "object" && parsed !== null ? (parsed as { in: number[] }).in : [parsed as number];
    return { where: { AND: [...where, { assetIds: { hasSome: ids } }] }, rest: others };
  }
  return { where: { AND: where }, rest };
}

export function schedulePage(ctx: Context, args: ListArgs, query: object) {
  const { where, rest } = scheduleFilter(args.filter);
  return findPage(
    ctx.db.plannedMaintenanceSchedule,
    { AND: [scheduleScope(ctx.viewer), where] },
    { ...args, filter: rest },
    SCHEDULE_LIST,
    query,
  );
}

export function scheduleCount(ctx: Context, args: { group_by?: string | null; filter?: unknown }) {
  const { where, rest } = scheduleFilter(args.filter);
  return countBy(
    ctx.db.plannedMaintenanceSchedule,
    { AND: [scheduleScope(ctx.viewer), where] },
    { ...args, filter: rest },
    SCHEDULE_LIST,
  );
}

export const scheduleById = (ctx: Context, id: number, query: object) =>
  findInScope(ctx.db.plannedMaintenanceSchedule, id, scheduleScope(ctx.viewer), query);

/** What computing a schedule's due times needs. */
export const SERIES_SELECT = {
  id: true,
  cadence: true,
  anchorAt: true,
  endsAt: true,
  sequence: true,
  nextRunAt: true,
  lastRunDueAt: true,
  location: { select: { timeZone: true } },
} satisfies Prisma.PlannedMaintenanceScheduleSelect;

export type SeriesRow = Prisma.PlannedMaintenanceScheduleGetPayload<{ select: typeof SERIES_SELECT }>;

export const seriesOf = (s: SeriesRow): Series => ({
  cadence: s.cadence,
  timeZone: s.location.timeZone,
  anchorAt: s.anchorAt,
  endsAt: s.endsAt,
});

/** Most due times one write may pass over (an hourly cadence over ten years stays below it). */
const MAX_STEPS = 100_000;

/**
 * The position after every due time up to and including `through`: {sequence, nextRunAt} of the
 * first due time later than it (nextRunAt null when the series ends first), and the due times passed.
 */
export function advancePast(s: SeriesRow, through: Date): { sequence: number; nextRunAt: Date | null; passed: Date[] } {
  const series = seriesOf(s);
  const passed: Date[] = [];
  let sequence = s.sequence;
  let at = s.nextRunAt;
  while (at && at <= through) {
    if (passed.length === MAX_STEPS)
      throw badInput(`more than ${MAX_STEPS} due times of schedule ${s.id} would be passed at once`);
    passed.push(at);
    at = nextDue(series, sequence, at);
    sequence++;
  }
  return { sequence, nextRunAt: at, passed };
}

/**
 * A schedule in scope, locked for the rest of the transaction (skips, run logs and the generator take
 * turns). Unknown and foreign ids are the same 400 as a denied write, or `refuse`'s.
 */
export const lockSchedule = (tx: Tx, id: number, scope: Record<string, unknown>, refuse?: () => ApiError) =>
  lockWritable<SeriesRow>(
    tx,
    "PlannedMaintenanceSchedule",
    "planned maintenance schedule",
    id,
    scope,
    { select: SERIES_SELECT },
    refuse,
  );

/**
 * PATCH …/skip_schedule: the next due time is passed over (a `skipped` run log records it) and the
 * schedule moves to the one after. Unknown and foreign ids are the same 400 as a denied write.
 */
export async function skipSchedule(ctx: Context, id: number, query: object) {
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    const s = await lockSchedule(tx, id, scheduleScope(ctx.viewer));
    if (!s.nextRunAt)
      throw badInput(`planned maintenance schedule ${id} has no next run to skip: its series has ended`);
    const due = s.nextRunAt;
    const next = advancePast(s, due);
    await tx.schedulerRunLog.create({
      data: {
        buyerCompanyId: ctx.viewer.buyerCompanyId!,
        scheduleId: id,
        status: "skipped",
        source: "skip_schedule",
        lastRunAt: now,
        lastRunDueAt: due,
        log: `skipped by ${ctx.viewer.email}`,
      },
    });
    return tx.plannedMaintenanceSchedule.update({
      ...query,
      where: { id },
      data: {
        sequence: next.sequence,
        nextRunAt: next.nextRunAt,
        lastRunAt: now,
        lastRunDueAt: due,
        lastRunStatus: "skipped",
      },
    });
  });
}
