// Work orders: who sees what (one scope for every read and write), and the status change that every
// action goes through.
import { Prisma } from "../../generated/prisma/client.ts";
import type { Viewer } from "../identity/viewer.ts";
import { badInput, outOfScope } from "../common/errors.ts";
import { writeEvent, type WorkOrderEventContext } from "../../events/outbox.ts";
import { transitionFor, TransitionRefused, type ActorKind, type Status, type TransitionFacts } from "./state-machine.ts";

/**
 * Buyer keys see their company's work orders. Supplier keys see those assigned to their facility, except
 * while the buyer's internal approval is pending (they become visible on reaching
 * PendingConfirmationByServiceProvider), and those whose visibility list names their facility.
 */
export function workOrderScope(viewer: Viewer): Prisma.WorkOrderWhereInput {
  if (viewer.kind === "buyer") return { buyerCompanyId: viewer.buyerCompanyId! };
  const facility = viewer.supplierFacilityId ?? -1;
  return {
    OR: [
      { supplierFacilityId: facility, status: { not: "PendingApproval" } },
      { visibleTo: { some: { supplierFacilityId: facility } } },
    ],
  };
}

/** The same scope as SQL over `"WorkOrder" w`, for the full-text list (list.ts); keep the two together. */
export function workOrderScopeSql(viewer: Viewer): Prisma.Sql {
  if (viewer.kind === "buyer") return Prisma.sql`w."buyerCompanyId" = ${viewer.buyerCompanyId ?? -1}`;
  const facility = viewer.supplierFacilityId ?? -1;
  return Prisma.sql`((w."supplierFacilityId" = ${facility} AND w.status <> 'PendingApproval')
    OR EXISTS (SELECT 1 FROM "WorkOrderVisibility" v WHERE v."workOrderId" = w.id AND v."supplierFacilityId" = ${facility}))`;
}

export interface Actor {
  kind: ActorKind;
  /** Display name (changedBy / addedBy in events). */
  name: string;
  email: string;
}

export const actorOf = (viewer: Viewer): Actor => ({
  kind: viewer.kind === "buyer" ? "buyer" : "supplier",
  name: viewer.displayName,
  email: viewer.email,
});

export const FOR_CHANGE = {
  buyerCompany: { select: { name: true, cancellationLock: true, declineAutoPick: true, serviceRequestsNeedApproval: true } },
  location: { select: { name: true } },
  visibleTo: { select: { supplierFacilityId: true } },
} satisfies Prisma.WorkOrderInclude;

export type WorkOrderForChange = Prisma.WorkOrderGetPayload<{ include: typeof FOR_CHANGE }>;

/**
 * Locks the work order row for the rest of the transaction (concurrent actions on one work order run
 * one after the other) and loads what a change needs. Not in scope, or absent: the same 400.
 */
export async function lockForChange(tx: Prisma.TransactionClient, id: number, scope: Prisma.WorkOrderWhereInput): Promise<WorkOrderForChange> {
  await tx.$queryRaw`SELECT id FROM "WorkOrder" WHERE id = ${id} FOR UPDATE`;
  const row = await tx.workOrder.findFirst({ where: { AND: [{ id }, scope] }, include: FOR_CHANGE });
  if (!row) throw outOfScope(`no work order ${id} that this key may change`);
  return row;
}

export function eventContext(wo: WorkOrderForChange, supplierFacilityId = wo.supplierFacilityId, status = wo.status): WorkOrderEventContext {
  return {
    status,
    workOrderId: wo.id,
    buyerCompanyId: wo.buyerCompanyId,
    customer: wo.buyerCompany.name,
    location: wo.location.name,
    supplierFacilityId,
    visibleToSupplierFacilityIds: wo.visibleTo.map((v) => v.supplierFacilityId),
  };
}

/**
 * Applies one row of the transition table: the status, statusChangedAt, a statusChanges entry and (when
 * the status changes value) a workorder.status_update event, all in the caller's transaction.
 * `data` carries the action's other column changes (supplier, assignedAt, …).
 */
export async function changeStatus(
  tx: Prisma.TransactionClient,
  wo: WorkOrderForChange,
  change: { action: string; actor: Actor; facts: TransitionFacts; now: Date; data?: Prisma.WorkOrderUncheckedUpdateInput; previousSupplierFacilityId?: number | null },
): Promise<Status> {
  let to: Status;
  try {
    to = transitionFor(change.action, change.actor.kind, wo.status).pick(change.facts);
  } catch (error) {
    if (error instanceof TransitionRefused) throw badInput(error.message);
    throw error;
  }
  const updated = await tx.workOrder.update({
    where: { id: wo.id },
    data: { ...change.data, status: to, statusChangedAt: change.now },
    select: { supplierFacilityId: true },
  });
  await tx.workOrderStatusChange.create({
    data: {
      workOrderId: wo.id, from: wo.status, to, action: change.action, actor: change.actor.name, actorKind: change.actor.kind,
      supplierFacilityId: wo.supplierFacilityId, at: change.now,
    },
  });
  if (to !== wo.status || change.previousSupplierFacilityId !== undefined) {
    await writeEvent(tx, "workorder.status_update", eventContext(wo, updated.supplierFacilityId, to), {
      oldStatus: wo.status,
      newStatus: to,
      changedBy: change.actor.name,
      changedAt: change.now.toISOString(),
      action: change.action,
      ...(change.previousSupplierFacilityId !== undefined ? { previousSupplierFacilityId: change.previousSupplierFacilityId } : {}),
    });
  }
  return to;
}

