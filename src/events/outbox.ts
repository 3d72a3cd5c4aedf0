// The transactional outbox: every change integrators must hear about is written here in the same
// transaction as the change itself. Nothing is published from inside the transaction; the relay
// (src/workers) moves committed rows to webhooks and subscriptions, so a Redis outage loses nothing.
import type { Prisma } from "../generated/prisma/client.ts";
import type { Status } from "../schema/work-orders/state-machine.ts";

export type EventType = "workorder.create" | "workorder.status_update" | "workorder.new_note";

/** What every work order event carries for the recipients rules and payload builders. */
export interface WorkOrderEventContext {
  workOrderId: number;
  buyerCompanyId: number;
  /** Buyer company display name ("customer" in supplier deliveries). */
  customer: string;
  /** Location display name. */
  location: string;
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
  tx: Prisma.TransactionClient,
  eventType: EventType,
  context: WorkOrderEventContext,
  data: StatusEventData | NoteEventData,
): Promise<void> {
  await tx.outboxEvent.create({
    data: { eventType, workOrderId: context.workOrderId, buyerCompanyId: context.buyerCompanyId, payload: { ...context, ...data } as object },
  });
}
