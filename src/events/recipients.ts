// Who hears about an outbox event, and what each audience receives: the Events tables of the interface
// specification, as one pure function. Webhook relay and GraphQL subscriptions both use it, so a live
// UI and an integrator's server always see the same events.
import type { NoteEventData, StatusEventData, WorkOrderEventContext, EventType } from "./outbox.ts";
import type { Status } from "../schema/work-orders/state-machine.ts";

export type Audience = { buyerCompanyId: number } | { supplierFacilityId: number };

export interface OutboxRow {
  id: bigint | number | string;
  eventType: string;
  payload: unknown;
}

export interface Message {
  to: Audience;
  event_type: EventType;
  data: Record<string, unknown>;
}

/** Statuses an assigned supplier hears about (besides WorkIncompleteWithReason straight from TechWorkingOnSite). */
const SUPPLIER_STATUSES: readonly Status[] = [
  "ConfirmedByServiceProvider", "TechAssigned", "TechScheduled", "TechRescheduled", "WorkIncompleteWithReason",
  "WorkUnsatisfactory", "WorkReviewedAndCompleted", "CancelledWithReason", "PaymentMade",
];

/** Statuses in which a work order is waiting for its supplier: the supplier gets workorder.create. */
const WAITING_FOR_SUPPLIER: readonly Status[] = ["PendingConfirmationByServiceProvider", "SupplierInitiatedPendingApproval"];

type Payload = WorkOrderEventContext & Partial<StatusEventData> & Partial<NoteEventData>;

const statusData = (p: Payload, forSupplier: boolean, oldStatus: Status | null | undefined, newStatus: Status) => ({
  workOrderId: p.workOrderId,
  ...(forSupplier ? { customer: p.customer } : {}),
  location: p.location,
  ...(oldStatus ? { oldStatus } : {}),
  newStatus,
  changedBy: p.changedBy,
  changedAt: p.changedAt,
});

const noteData = (p: Payload) => ({
  workOrderId: p.workOrderId,
  newNote: p.newNote ?? "",
  ...(p.photo ? { photo: p.photo } : {}),
  ...(p.video ? { video: p.video } : {}),
  ...(p.photos ? { photos: p.photos } : {}),
  addedBy: p.addedBy,
  addedAt: p.addedAt,
});

/** The suppliers that follow a work order: the assigned one (once visible) and, if enabled, the visibility list. */
function followingSuppliers(p: Payload, visibilityWebhooks: boolean): number[] {
  const ids = new Set<number>();
  if (p.supplierFacilityId !== null && p.status !== "PendingApproval") ids.add(p.supplierFacilityId);
  if (visibilityWebhooks) for (const id of p.visibleToSupplierFacilityIds ?? []) ids.add(id);
  return [...ids];
}

export function messagesFor(event: OutboxRow, company: { visibilityWebhooks: boolean }): Message[] {
  const p = event.payload as Payload;
  const buyer: Audience = { buyerCompanyId: p.buyerCompanyId };
  const messages: Message[] = [];
  const supplier = (id: number): Audience => ({ supplierFacilityId: id });

  if (event.eventType === "workorder.create") {
    messages.push({ to: buyer, event_type: "workorder.create", data: statusData(p, false, undefined, p.newStatus!) });
    if (p.supplierFacilityId !== null && WAITING_FOR_SUPPLIER.includes(p.newStatus!)) {
      messages.push({ to: supplier(p.supplierFacilityId), event_type: "workorder.create", data: statusData(p, true, undefined, p.newStatus!) });
    }
    return messages;
  }

  if (event.eventType === "workorder.new_note") {
    messages.push({ to: buyer, event_type: "workorder.new_note", data: noteData(p) });
    for (const id of followingSuppliers(p, company.visibilityWebhooks)) messages.push({ to: supplier(id), event_type: "workorder.new_note", data: noteData(p) });
    return messages;
  }

  // workorder.status_update
  const oldStatus = p.oldStatus ?? null;
  const newStatus = p.newStatus!;
  const reassigned = p.previousSupplierFacilityId !== undefined && p.previousSupplierFacilityId !== p.supplierFacilityId;
  if (reassigned && p.previousSupplierFacilityId !== null) {
    // The old assignment ends as Rejected (an intermediate update), then the new status follows.
    messages.push({ to: buyer, event_type: "workorder.status_update", data: statusData(p, false, oldStatus, "Rejected") });
    messages.push({ to: buyer, event_type: "workorder.status_update", data: statusData(p, false, "Rejected", newStatus) });
  } else if (oldStatus !== newStatus) {
    messages.push({ to: buyer, event_type: "workorder.status_update", data: statusData(p, false, oldStatus, newStatus) });
  }

  // A supplier starts waiting on the work order: it was assigned to it, or approval released it.
  const nowWaiting = p.supplierFacilityId !== null && newStatus === "PendingConfirmationByServiceProvider" && (reassigned || oldStatus !== newStatus);
  if (nowWaiting) {
    messages.push({ to: supplier(p.supplierFacilityId!), event_type: "workorder.create", data: statusData(p, true, undefined, newStatus) });
  }
  const heard = SUPPLIER_STATUSES.includes(newStatus) && oldStatus !== newStatus
    && !(newStatus === "WorkIncompleteWithReason" && oldStatus === "TechWorkingOnSite");
  if (heard) {
    for (const id of followingSuppliers(p, company.visibilityWebhooks)) {
      messages.push({ to: supplier(id), event_type: "workorder.status_update", data: statusData(p, true, oldStatus, newStatus) });
    }
  }
  return messages;
}

export const audienceKey = (a: Audience) => ("buyerCompanyId" in a ? `buyer:${a.buyerCompanyId}` : `supplier:${a.supplierFacilityId}`);
