// A status change: one row of the transition table applied in the caller's transaction, with its
// statusChanges entry and (when the status changes value) its workorder.status_update event.
import type { Prisma, Tx } from "../../../db.ts";
import { writeEvent, type WorkOrderEventContext } from "../events.ts";
import { WORK_ORDER_STATES, type Status, type TransitionFacts } from "./state-machine.ts";
import type { WorkOrderActor, WorkOrderForChange } from "./scope.ts";

export const factsOf = (wo: WorkOrderForChange): TransitionFacts => ({
  hasSupplier: wo.supplierFacilityId !== null,
  supplierInitiated: wo.status === "SupplierInitiatedPendingApproval",
});

/** What an event's context is read from: a work order with its company's and location's names and visibility list. */
export type EventSource = Pick<
  WorkOrderForChange,
  "id" | "buyerCompanyId" | "locationId" | "supplierFacilityId" | "status" | "visibleTo"
> & { buyerCompany: { name: string }; location: { name: string } };

export function eventContext(
  wo: EventSource,
  supplierFacilityId = wo.supplierFacilityId,
  status = wo.status,
): WorkOrderEventContext {
  return {
    status,
    workOrderId: wo.id,
    buyerCompanyId: wo.buyerCompanyId,
    customer: wo.buyerCompany.name,
    location: wo.location.name,
    locationId: wo.locationId,
    supplierFacilityId,
    visibleToSupplierFacilityIds: wo.visibleTo.map((v) => v.supplierFacilityId),
  };
}

export interface StatusChange {
  action: string;
  actor: WorkOrderActor;
  facts: TransitionFacts;
  now: Date;
  /** The action's other column changes (supplier, assignedAt, …). */
  data?: Prisma.WorkOrderUncheckedUpdateInput;
  /** On reassignment: the supplier the work order was taken from (the relay turns it into its `Rejected`). */
  previousSupplierFacilityId?: number | null;
}

/** Applies one row of the transition table to a locked work order; returns the new status. */
export async function changeStatus(tx: Tx, wo: WorkOrderForChange, change: StatusChange): Promise<Status> {
  const to = WORK_ORDER_STATES.next(change.action, change.actor.kind, wo.status, { facts: change.facts });
  const updated = await tx.workOrder.update({
    where: { id: wo.id },
    data: { ...change.data, status: to, statusChangedAt: change.now },
    select: { supplierFacilityId: true },
  });
  await tx.workOrderStatusChange.create({
    data: {
      workOrderId: wo.id,
      from: wo.status,
      to,
      action: change.action,
      actor: change.actor.name,
      actorKind: change.actor.kind,
      supplierFacilityId: wo.supplierFacilityId,
      at: change.now,
    },
  });
  if (to !== wo.status || change.previousSupplierFacilityId !== undefined) {
    await writeEvent(tx, "workorder.status_update", eventContext(wo, updated.supplierFacilityId, to), {
      oldStatus: wo.status,
      newStatus: to,
      changedBy: change.actor.name,
      changedAt: change.now.toISOString(),
      action: change.action,
      ...(change.previousSupplierFacilityId !== undefined
        ? { previousSupplierFacilityId: change.previousSupplierFacilityId }
        : {}),
    });
  }
  return to;
}
