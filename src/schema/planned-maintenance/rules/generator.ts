// The built-in generator (companies with pmScheduling = built_in): turns due schedules into work
// orders. Everything it knows is in PostgreSQL (nextRunAt, sequence, the run logs), so whatever
// triggers a round (the BullMQ repeatable job of jobs.ts, a retried job, two workers at once) the
// outcome is the same:
//   - a round locks due schedules with FOR UPDATE SKIP LOCKED, so concurrent rounds take disjoint ones;
//   - per due time, the work order (through the buyer POST's create rules, with its workorder.create
//     outbox event), its `success` run log and the schedule's advance commit in one transaction;
//   - the unique index on (scheduleId, lastRunDueAt) of successful run logs makes a second work order
//     for the same due time impossible, whoever tries.
// After downtime, every missed due time gets its own work order, up to CATCH_UP_LIMIT per schedule; older
// ones are recorded as one `skipped` run log. See docs/planned-maintenance.md.
import { Prisma, type Db, type Tx } from "../../../db.ts";
import type { Logger } from "../../../logger.ts";
import { ApiError } from "../../core/errors.ts";
import { inTransaction } from "../../core/transaction.ts";
import { createCompanyWorkOrder, type WorkOrderActor } from "../../work-orders/public.ts";
import type { RunLogStatus } from "../../../generated/prisma/client.ts";
import { advancePast, SERIES_SELECT } from "./schedules.ts";

/** Missed due times of one schedule that still get a work order after downtime (the latest ones). */
export const CATCH_UP_LIMIT = 5;
/** Schedules locked per transaction. */
const BATCH = 10;
/**
 * Wall-clock time a batch's transaction may keep taking new schedules: a slow database then commits
 * fewer per transaction (the rest stay due for the next batch) instead of running into the timeout.
 */
const BATCH_BUDGET_MS = 5_000;

/** createdBy and actor of generated work orders. */
export const GENERATOR_ACTOR: WorkOrderActor = {
  kind: "system",
  name: "Planned maintenance",
  email: "planned-maintenance@wo-service.local",
};

export interface GeneratorDeps {
  db: Db;
  now: () => Date;
  logger: Logger;
}

export interface RoundResult {
  schedules: number;
  workOrders: number;
  failed: number;
  skipped: number;
}

const SCHEDULE_SELECT = {
  ...SERIES_SELECT,
  buyerCompanyId: true,
  locationId: true,
  problemTypeId: true,
  supplierFacilityId: true,
  title: true,
  description: true,
  woPriority: true,
  needApproval: true,
  assetIds: true,
  buyerCompany: { select: { facilities: { orderBy: { id: "asc" }, take: 1, select: { id: true } } } },
} satisfies Prisma.PlannedMaintenanceScheduleSelect;

const describeDue = (description: string | null, due: Date, scheduleId: number) =>
  `${description ? `${description}\n\n` : ""}Planned maintenance due ${due.toISOString()} (schedule ${scheduleId}).`;

type ScheduleRow = Prisma.PlannedMaintenanceScheduleGetPayload<{ select: typeof SCHEDULE_SELECT }>;

/**
 * One locked schedule: a work order per kept due time up to `now`, run logs, and the advance. `done`
 * holds the due times (`<scheduleId>@<ms>`) that already have a successful run.
 */
async function generateFor(
  tx: Tx,
  s: ScheduleRow,
  done: Set<string>,
  now: Date,
  result: RoundResult,
  logger: Logger,
): Promise<void> {
  const position = advancePast(s, now);
  const missed = position.passed;
  const dropped = missed.slice(0, Math.max(0, missed.length - CATCH_UP_LIMIT));
  const kept = missed.slice(dropped.length);
  const log = (status: RunLogStatus, lastRunDueAt: Date, extra: { woId?: number; log?: string } = {}) =>
    tx.schedulerRunLog.create({
      data: {
        buyerCompanyId: s.buyerCompanyId,
        scheduleId: s.id,
        status,
        source: "built_in",
        lastRunAt: now,
        lastRunDueAt,
        ...extra,
      },
    });
  if (dropped.length) {
    await log("skipped", dropped.at(-1)!, {
      log: `catch-up limit ${CATCH_UP_LIMIT}: no work orders for ${dropped.length} missed due times from ${dropped[0].toISOString()} to ${dropped.at(-1)!.toISOString()}`,
    });
    result.skipped += dropped.length;
  }
  let last: RunLogStatus = "skipped";
  for (const due of kept) {
    // Already created for this due time (an external scheduler's run): the unique key would refuse it.
    if (done.has(`${s.id}@${due.getTime()}`)) continue;
    try {
      const facility = s.buyerCompany.facilities[0];
      if (!facility)
        throw new ApiError(
          400,
          "invalidInputDataException",
          "the buyer company has no facility to file the work order under",
        );
      const woId = await createCompanyWorkOrder(
        tx,
        s.buyerCompanyId,
        {
          title: s.title,
          locationId: s.locationId,
          problemTypeId: s.problemTypeId,
          buyerFacilityId: facility.id,
          assetId: s.assetIds[0] ?? null,
          subAssetIds: s.assetIds.slice(1),
          plannedMaintenanceScheduleId: s.id,
          walkThroughId: null,
          siteSurveyTaskTitleId: null,
          createdBy: GENERATOR_ACTOR.email,
          description: describeDue(s.description, due, s.id),
          poNumber: null,
          woPriority: s.woPriority,
          isPM: true,
          supplierFacilityId: s.supplierFacilityId,
          needApproval: s.needApproval,
        },
        GENERATOR_ACTOR,
        now,
      );
      await log("success", due, { woId });
      result.workOrders++;
      last = "success";
    } catch (error) {
      // A rule refused it (a reference no longer valid): nothing was written for this due time. Record
      // it and move on, so one broken schedule neither blocks the others nor retries forever.
      if (!(error instanceof ApiError)) throw error;
      await log("failed", due, { log: error.message });
      logger.warn(
        { scheduleId: s.id, due: due.toISOString(), err: error.message },
        "planned maintenance work order refused",
      );
      result.failed++;
      last = "failed";
    }
  }
  await tx.plannedMaintenanceSchedule.update({
    where: { id: s.id },
    data: {
      sequence: position.sequence,
      nextRunAt: position.nextRunAt,
      lastRunAt: now,
      lastRunDueAt: missed.at(-1),
      lastRunStatus: last,
    },
  });
  result.schedules++;
}

/** The schedules the generator has to run at `now` (alias s, their company c): a statement's FROM and WHERE. */
function dueSchedules(now: Date) {
  return Prisma.sql`"PlannedMaintenanceSchedule" s JOIN "BuyerCompany" c ON c.id = s."buyerCompanyId"
   WHERE s."isActive" AND s."nextRunAt" IS NOT NULL AND s."nextRunAt" <= ${now} AND c."pmScheduling" = 'built_in'`;
}

/** How many schedules are due at `now` and not generated yet (the metrics read it). */
export async function dueScheduleCount(db: Db, now: Date): Promise<number> {
  const [{ due }] = await db.$queryRaw<{ due: bigint }[]>`SELECT count(*) AS due FROM ${dueSchedules(now)}`;
  return Number(due);
}

/** One batch in one transaction; false when nothing was due. */
async function generateBatch(deps: GeneratorDeps, result: RoundResult, batch: number): Promise<boolean> {
  const now = deps.now();
  return inTransaction(
    deps.db,
    async (tx) => {
      const due = await tx.$queryRaw<{ id: number }[]>`
      SELECT s.id FROM ${dueSchedules(now)} ORDER BY s."nextRunAt" LIMIT ${batch} FOR UPDATE OF s SKIP LOCKED`;
      if (due.length === 0) return false;
      const ids = due.map((d) => d.id);
      const schedules = await tx.plannedMaintenanceSchedule.findMany({
        where: { id: { in: ids } },
        select: SCHEDULE_SELECT,
        orderBy: { id: "asc" },
      });
      const earliest = new Date(Math.min(...schedules.map((s) => s.nextRunAt!.getTime())));
      const runs = await tx.schedulerRunLog.findMany({
        where: { scheduleId: { in: ids }, status: "success", lastRunDueAt: { gte: earliest } },
        select: { scheduleId: true, lastRunDueAt: true },
      });
      const done = new Set(runs.map((r) => `${r.scheduleId}@${r.lastRunDueAt.getTime()}`));
      const deadline = performance.now() + BATCH_BUDGET_MS;
      for (const [i, s] of schedules.entries()) {
        if (i > 0 && performance.now() > deadline) break; // unlocked at commit, taken by the next batch
        await generateFor(tx, s, done, now, result, deps.logger);
      }
      return true;
    },
    { timeout: 60_000 },
  );
}

/**
 * A generation round: batches until nothing is due (or `maxBatches`). Safe to run anywhere, any
 * number of times, concurrently.
 */
export async function generateDue(
  deps: GeneratorDeps,
  options: { batch?: number; maxBatches?: number } = {},
): Promise<RoundResult> {
  const result: RoundResult = { schedules: 0, workOrders: 0, failed: 0, skipped: 0 };
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  for (let n = 0; n < maxBatches && (await generateBatch(deps, result, options.batch ?? BATCH)); n++);
  return result;
}
