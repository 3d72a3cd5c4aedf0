// Scheduler run logs: what an external scheduler records after each due time (POST
// /pm/scheduler_run_logs), and what the built-in generator and skip_schedule record themselves.
// A successful or skipped run moves the schedule past its due time; one due time has at most one
// successful run (a unique index), so an external scheduler and the generator cannot both create it.
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { badInput, conflict } from "../../core/errors.ts";
import { enumFilter, type ListSpec } from "../../core/list.ts";
import { buyerOwnedScope } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { workOrderScope } from "../../work-orders/public.ts";
import type { RunLogStatus } from "../../../generated/prisma/client.ts";
import { advancePast, lockSchedule, scheduleScope } from "./schedules.ts";

export const RUN_LOG_STATUSES = ["success", "failed", "skipped"] as const satisfies readonly RunLogStatus[];
export const MAX_LOG_LENGTH = 10_000;

export const runLogScope = (viewer: Viewer) => buyerOwnedScope(viewer);

export const RUN_LOG_LIST: ListSpec = {
  filters: {
    id: "int",
    scheduleId: "int",
    status: "string",
    woId: "int",
    source: "string",
    lastRunDueAt: "datetime",
    buyerCompanyId: "int",
  },
  sortable: ["id", "lastRunAt", "lastRunDueAt", "createdAt"],
  defaultSort: { field: "id", order: "desc" },
};

/** status is a database enum: a value outside it must be a 400, not a failed query. */
export const checkRunLogFilter = enumFilter("status", RUN_LOG_STATUSES);

export interface RunLogInput {
  scheduleId: number;
  status: string;
  lastRunAt: Date;
  lastRunDueAt: Date;
  woId?: number | null;
  log?: string | null;
}

/**
 * POST /pm/scheduler_run_logs. The schedule and the work order must be the key's company's (400
 * naming the field otherwise), and the work order must have been created for that schedule. A
 * `success` or `skipped` run at or after the schedule's next due time moves nextRunAt past
 * lastRunDueAt; `failed` only records (the scheduler retries the due time). Sending the same
 * successful run again answers the stored run log; another work order for a due time that already has
 * a successful run is a 409.
 */
export async function recordRun(ctx: Context, input: RunLogInput, query: object) {
  if (!(RUN_LOG_STATUSES as readonly string[]).includes(input.status)) {
    throw badInput(
      `status must be one of ${RUN_LOG_STATUSES.join(", ")}, got ${JSON.stringify(input.status)}`,
      "status",
    );
  }
  const status = input.status as RunLogStatus;
  if (input.log && input.log.length > MAX_LOG_LENGTH) throw badInput(`log is limited to ${MAX_LOG_LENGTH} characters`);
  const woId = input.woId ?? null;
  return inTransaction(ctx.db, async (tx) => {
    const s = await lockSchedule(tx, input.scheduleId, scheduleScope(ctx.viewer), () =>
      badInput(`scheduleId ${input.scheduleId} is not a planned maintenance schedule of this company`),
    );
    if (woId !== null) {
      const wo = await tx.workOrder.findFirst({
        where: { AND: [{ id: woId }, workOrderScope(ctx.viewer)] },
        select: { plannedMaintenanceScheduleId: true },
      });
      if (!wo) throw badInput(`woId ${woId} is not a work order of this company`);
      if (wo.plannedMaintenanceScheduleId !== s.id) {
        throw badInput(
          `woId ${woId} was not created for schedule ${s.id} (its plannedMaintenanceScheduleId is ${wo.plannedMaintenanceScheduleId ?? "null"})`,
        );
      }
    }
    if (status === "success") {
      const done = await tx.schedulerRunLog.findFirst({
        where: { scheduleId: s.id, lastRunDueAt: input.lastRunDueAt, status: "success" },
      });
      if (done && done.woId === woId) return tx.schedulerRunLog.findUniqueOrThrow({ ...query, where: { id: done.id } });
      if (done) {
        throw conflict(
          `due time ${input.lastRunDueAt.toISOString()} of schedule ${s.id} already has a successful run (run log ${done.id}, work order ${done.woId ?? "none"})`,
        );
      }
    }
    const log = await tx.schedulerRunLog.create({
      ...query,
      data: {
        buyerCompanyId: ctx.viewer.buyerCompanyId!,
        scheduleId: s.id,
        status,
        source: "external",
        woId,
        lastRunAt: input.lastRunAt,
        lastRunDueAt: input.lastRunDueAt,
        log: input.log ?? null,
      },
    });
    const moves = status !== "failed" && s.nextRunAt !== null && input.lastRunDueAt >= s.nextRunAt;
    const position = moves ? advancePast(s, input.lastRunDueAt) : null;
    // A late report of an older due time is kept in the log but is not the schedule's last run.
    const latest = s.lastRunDueAt === null || input.lastRunDueAt >= s.lastRunDueAt;
    await tx.plannedMaintenanceSchedule.update({
      where: { id: s.id },
      data: {
        ...(latest ? { lastRunAt: input.lastRunAt, lastRunDueAt: input.lastRunDueAt, lastRunStatus: status } : {}),
        ...(position ? { sequence: position.sequence, nextRunAt: position.nextRunAt } : {}),
      },
    });
    return log;
  });
}
