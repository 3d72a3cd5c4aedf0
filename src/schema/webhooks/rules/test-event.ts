// `operator webhooks test <endpointId> --event <type>`: a signed sample event sent to one endpoint now,
// like `stripe trigger`. The sample is what the recipients rules would send the endpoint's owner for a
// made-up work order (id 0), sent through the delivery worker's own signing and POST (jobs/send.ts).
// It is not written to the delivery log and is never retried.
import crypto from "node:crypto";
import type { Db } from "../../../db.ts";
import {
  EVENT_TYPES,
  addressedTo,
  messagesFor,
  type EventType,
  type NoteEventData,
  type StatusEventData,
  type WorkOrderEventContext,
} from "../../work-orders/public.ts";
import { createSender, type SenderOptions } from "../jobs/send.ts";
import { endpointOwner, messageBody } from "./routing.ts";

/** The sample work order's event, as the outbox would hold it, for an endpoint's owner. */
function sampleEvent(eventType: EventType, owner: ReturnType<typeof endpointOwner>, at: Date) {
  const supplierFacilityId = "supplierFacilityId" in owner ? owner.supplierFacilityId : null;
  const context: WorkOrderEventContext = {
    workOrderId: 0,
    buyerCompanyId: "buyerCompanyId" in owner ? owner.buyerCompanyId : 0,
    customer: "Sample customer",
    location: "Sample location",
    supplierFacilityId,
    visibleToSupplierFacilityIds: [],
    status:
      eventType === "workorder.status_update" ? "ConfirmedByServiceProvider" : "PendingConfirmationByServiceProvider",
  };
  const actor = "Operator test event";
  const data: StatusEventData | NoteEventData =
    eventType === "workorder.new_note"
      ? { newNote: "This is a test note sent by the operator.", addedBy: actor, addedAt: at.toISOString() }
      : {
          oldStatus: eventType === "workorder.create" ? null : "PendingConfirmationByServiceProvider",
          newStatus: context.status,
          changedBy: actor,
          changedAt: at.toISOString(),
          action: eventType === "workorder.create" ? "create" : "confirm",
        };
  return { id: 0, eventType, payload: { ...context, ...data } };
}

export async function sendTestEvent(
  db: Db,
  endpointId: number,
  eventType: string,
  options: SenderOptions & { now?: Date },
) {
  if (!EVENT_TYPES.includes(eventType as EventType))
    throw new Error(`--event must be one of ${EVENT_TYPES.join(", ")}`);
  const endpoint = await db.webhookEndpoint.findUnique({ where: { id: endpointId } });
  if (!endpoint) throw new Error(`no webhook endpoint ${endpointId}`);
  const at = options.now ?? new Date();
  const owner = endpointOwner(endpoint);
  // Whether the endpoint subscribes to the type does not matter: a test may try an event before subscribing.
  const message = messagesFor(sampleEvent(eventType as EventType, owner, at), { visibilityWebhooks: false }).find(
    (m) => m.event_type === eventType && addressedTo(owner, m),
  );
  if (!message) throw new Error(`the recipients rules send no sample ${eventType} to this endpoint's owner`);
  const body = messageBody(message);
  const webhookId = `msg_test_${crypto.randomBytes(8).toString("hex")}`;
  const sender = createSender(options);
  try {
    const started = performance.now();
    const { statusCode, error } = await sender.post(endpoint, body, webhookId, at);
    return {
      endpointId,
      url: endpoint.url,
      mode: endpoint.mode,
      eventType,
      webhookId,
      subscribed: endpoint.events.includes(eventType),
      disabled: endpoint.disabledAt !== null,
      acknowledged: error === null,
      statusCode,
      latencyMs: Math.round(performance.now() - started),
      error,
      body: JSON.parse(body) as unknown,
    };
  } finally {
    await sender.close();
  }
}
