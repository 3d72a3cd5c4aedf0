// Work order events: what a change writes to the transactional outbox (in the change's own transaction,
// so nothing is published from inside it and a Redis outage loses nothing), and who hears about each
// outbox row: the Events tables of the interface specification as one pure function (messagesFor).
// The webhooks feature relays the rows to endpoints and subscribers with these rules, so a live UI and
// an integrator's server always see the same events.
import { type Db, sqlPool, type Tx } from "../../db.ts";
import { afterCommit } from "../core/transaction.ts";
import type { Status } from "./rules/state-machine.ts";

export const EVENT_TYPES = ["workorder.create", "workorder.status_update", "workorder.new_note"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What every work order event carries for the recipients rules and payload builders. */
export interface WorkOrderEventContext {
  workOrderId: number;
  buyerCompanyId: number;
  /** Buyer company display name ("customer" in supplier deliveries). */
  customer: string;
  /** Location display name. */
  location: string;
  /** The location's id, for live subscription filters (absent on events written before it was recorded). */
  locationId?: number;
  /** The supplier facility assigned at the time of the event. */
  supplierFacilityId: number | null;
  /** Suppliers on the visibility list (events only when the company enables visibility webhooks). */
  visibleToSupplierFacilityIds: number[];
  /** The work order's status when the event was written (after the change, for status events). */
  status: Status;
}

export interface StatusEventData {
  oldStatus: Status | null;
  newStatus: Status;
  changedBy: string;
  changedAt: string;
  /** The action that caused the change (e.g. check_out), for the recipients rules. */
  action: string;
  /** On reassignment: the supplier the work order was taken from (it sees `Rejected`). */
  previousSupplierFacilityId?: number | null;
}

export interface NoteEventData {
  newNote: string;
  photo?: string | null;
  video?: string | null;
  /** Bulk photo posts: every URL of the batch, in order. */
  photos?: string[];
  addedBy: string;
  addedAt: string;
}

export async function writeEvent(
  tx: Tx,
  eventType: EventType,
  context: WorkOrderEventContext,
  data: StatusEventData | NoteEventData,
): Promise<void> {
  await tx.outboxEvent.create({
    data: {
      eventType,
      workOrderId: context.workOrderId,
      buyerCompanyId: context.buyerCompanyId,
      payload: { ...context, ...data } as object,
    },
  });
  afterCommit(tx, announceOutbox);
}

/** The channel committed outbox events are announced on; the relay listens (webhooks/jobs/start.ts). */
export const OUTBOX_CHANNEL = "outbox_event";

/** Per pool: an announcement on its way, and whether another was asked for meanwhile. */
const announcing = new WeakMap<object, { again: boolean }>();

/**
 * Tells the relays that outbox events were committed, on a statement of its own after the commit, at
 * most one at a time per pool (those asked for meanwhile become one more). Not a NOTIFY in the writing
 * transaction: PostgreSQL holds its notification lock through that transaction's commit, so every
 * writer's commit waited for the one before it to reach the disk (commits 0.4-0.6 s behind one slow WAL
 * flush in the work orders bench; docs/performance.md, "Index lag"). A hint only: a lost one costs the
 * relay's next poll, so its failure is not the request's.
 */
export function announceOutbox(db: Db): void {
  const pool = sqlPool(db);
  const pending = announcing.get(pool);
  if (pending) {
    pending.again = true;
    return;
  }
  const state = { again: false };
  announcing.set(pool, state);
  pool
    .query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`)
    .catch(() => undefined)
    .finally(() => {
      announcing.delete(pool);
      if (state.again) announceOutbox(db);
    });
}

// ---- recipients

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

/** Whether a message is addressed to an audience (a webhook endpoint's owner, a subscriber's tenant). */
export function addressedTo(audience: Audience, message: Pick<Message, "to">): boolean {
  if ("buyerCompanyId" in audience)
    return "buyerCompanyId" in message.to && message.to.buyerCompanyId === audience.buyerCompanyId;
  return "supplierFacilityId" in message.to && message.to.supplierFacilityId === audience.supplierFacilityId;
}

/** Statuses an assigned supplier hears about (besides WorkIncompleteWithReason straight from TechWorkingOnSite). */
const SUPPLIER_STATUSES: readonly Status[] = [
  "ConfirmedByServiceProvider",
  "TechAssigned",
  "TechScheduled",
  "TechRescheduled",
  "WorkIncompleteWithReason",
  "WorkUnsatisfactory",
  "WorkReviewedAndCompleted",
  "CancelledWithReason",
  "PaymentMade",
];

/** Statuses in which a work order is waiting for its supplier: the supplier gets workorder.create. */
const WAITING_FOR_SUPPLIER: readonly Status[] = [
  "PendingConfirmationByServiceProvider",
  "SupplierInitiatedPendingApproval",
];

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
      messages.push({
        to: supplier(p.supplierFacilityId),
        event_type: "workorder.create",
        data: statusData(p, true, undefined, p.newStatus!),
      });
    }
    return messages;
  }

  if (event.eventType === "workorder.new_note") {
    messages.push({ to: buyer, event_type: "workorder.new_note", data: noteData(p) });
    for (const id of followingSuppliers(p, company.visibilityWebhooks))
      messages.push({ to: supplier(id), event_type: "workorder.new_note", data: noteData(p) });
    return messages;
  }

  // workorder.status_update
  const oldStatus = p.oldStatus ?? null;
  const newStatus = p.newStatus!;
  const reassigned =
    p.previousSupplierFacilityId !== undefined && p.previousSupplierFacilityId !== p.supplierFacilityId;
  if (reassigned && p.previousSupplierFacilityId !== null) {
    // The old assignment ends as Rejected (an intermediate update), then the new status follows.
    messages.push({
      to: buyer,
      event_type: "workorder.status_update",
      data: statusData(p, false, oldStatus, "Rejected"),
    });
    messages.push({
      to: buyer,
      event_type: "workorder.status_update",
      data: statusData(p, false, "Rejected", newStatus),
    });
  } else if (oldStatus !== newStatus) {
    messages.push({
      to: buyer,
      event_type: "workorder.status_update",
      data: statusData(p, false, oldStatus, newStatus),
    });
  }

  // A supplier starts waiting on the work order: it was assigned to it, or approval released it.
  const nowWaiting =
    p.supplierFacilityId !== null &&
    newStatus === "PendingConfirmationByServiceProvider" &&
    (reassigned || oldStatus !== newStatus);
  if (nowWaiting) {
    messages.push({
      to: supplier(p.supplierFacilityId!),
      event_type: "workorder.create",
      data: statusData(p, true, undefined, newStatus),
    });
  }
  const heard =
    SUPPLIER_STATUSES.includes(newStatus) &&
    oldStatus !== newStatus &&
    !(newStatus === "WorkIncompleteWithReason" && oldStatus === "TechWorkingOnSite");
  if (heard) {
    for (const id of followingSuppliers(p, company.visibilityWebhooks)) {
      messages.push({
        to: supplier(id),
        event_type: "workorder.status_update",
        data: statusData(p, true, oldStatus, newStatus),
      });
    }
  }
  return messages;
}
