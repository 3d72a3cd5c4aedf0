// The AsyncAPI 3.0 description of the three webhook events (GET /asyncapi.json, public like the OpenAPI
// documents). Payloads are the Delivery tables of the interface specification; headers are the
// signatures of docs/decisions.md#webhooks. The service is the sender; each channel is addressed to the HTTPS URL
// the operator registered for an endpoint.
import { STATUSES } from "../work-orders/public.ts";

const status = { type: "string", enum: [...STATUSES] };
const timestamp = (what: string) => ({
  type: "string",
  format: "date-time",
  description: `${what}, ISO 8601 with offset`,
});
const url = (what: string) => ({ type: "string", format: "uri", description: what });

const statusFields = {
  workOrderId: { type: "integer", description: "Work order id" },
  customer: { type: "string", description: "Buyer company display name; on supplier deliveries only" },
  location: { type: "string", description: "Location display name" },
  newStatus: { ...status, description: "Current (on create: initial) status" },
  changedBy: { type: "string", description: "Display name of the actor" },
  changedAt: timestamp("When the change happened"),
};

const envelope = (eventType: string, data: object) => ({
  type: "object",
  required: ["event_type", "data"],
  additionalProperties: false,
  properties: { event_type: { type: "string", const: eventType }, data },
});

const signatureHeaders = {
  type: "object",
  required: ["X-Signature-256", "webhook-id", "webhook-timestamp", "webhook-signature"],
  properties: {
    "content-type": { type: "string", const: "application/json" },
    "X-Signature-256": {
      type: "string",
      pattern: "^sha256=[0-9a-f]{64}(, sha256=[0-9a-f]{64})?$",
      description:
        "Hex HMAC-SHA256 of the raw body with the endpoint's signing secret (the key bytes are the base64 after `whsec_`). " +
        "During a secret rotation (24 h) the previous secret signs too: two comma-separated values.",
    },
    "webhook-id": {
      type: "string",
      description: "Standard Webhooks: one id per event and endpoint, the same on every retry and replay",
    },
    "webhook-timestamp": {
      type: "string",
      pattern: "^[0-9]+$",
      description: "Standard Webhooks: unix seconds of this attempt",
    },
    "webhook-signature": {
      type: "string",
      pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)?$",
      description:
        "Standard Webhooks: v1,<base64 HMAC-SHA256 of `id.timestamp.body`>; during a rotation two, space-separated",
    },
    "x-webhook-mode": { type: "string", enum: ["test", "production"], description: "The endpoint's mode" },
    "user-agent": { type: "string", const: "wo-service-webhooks/1" },
  },
};

const deliveryBindings = { http: { method: "POST", bindingVersion: "0.3.0" } };

function message(name: string, eventType: string, title: string, summary: string, data: object, example: object) {
  return {
    name,
    title,
    summary,
    contentType: "application/json",
    headers: { $ref: "#/components/schemas/SignatureHeaders" },
    payload: envelope(eventType, data),
    bindings: { http: { bindingVersion: "0.3.0" } },
    examples: [{ name: `${name}Example`, payload: { event_type: eventType, data: example } }],
  };
}

/** The data of workorder.create (and the base of workorder.status_update). */
const createData = {
  type: "object",
  required: ["workOrderId", "location", "newStatus", "changedBy", "changedAt"],
  additionalProperties: false,
  properties: statusFields,
};

/** The data of workorder.status_update: the create's, and the status before. */
const statusData = {
  ...createData,
  properties: {
    ...statusFields,
    oldStatus: {
      ...status,
      description:
        "Previous status; absent on supplier deliveries whose newStatus is PendingConfirmationByServiceProvider or SupplierInitiatedPendingApproval",
    },
  },
};

/** The data of workorder.new_note. */
const noteData = {
  type: "object",
  required: ["workOrderId", "newNote", "addedBy", "addedAt"],
  additionalProperties: false,
  properties: {
    workOrderId: { type: "integer", description: "Work order id" },
    newNote: { type: "string", description: "Note text; empty for photo-only notes" },
    photo: url("Photo URL, when present"),
    video: url("Video URL, when present"),
    photos: {
      type: "array",
      items: { type: "string", format: "uri" },
      description: "Bulk photo posts: every URL of the batch, in order",
    },
    addedBy: { type: "string", description: "Author display name" },
    addedAt: timestamp("When the note was added"),
  },
};

/** A webhook event's channel: the endpoints' URLs, which the operator registers. */
const channel = (name: string, summary: string) => ({
  address: null,
  title: name,
  description:
    `${summary} Sent to the HTTPS URL of every endpoint registered (by the operator) for the buyer company or supplier ` +
    "facility and subscribed to this event. Any 2xx acknowledges.",
  messages: { [name]: { $ref: `#/components/messages/${name}` } },
});

/** The service sends each event on its channel. */
const operation = (name: string) => ({
  action: "send",
  channel: { $ref: `#/channels/${name}` },
  messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
  bindings: deliveryBindings,
});

function asyncApiDocument() {
  return {
    asyncapi: "3.0.0",
    info: {
      title: "Work order service webhooks",
      version: "1.0.0",
      description:
        "Work order events POSTed to integrators' endpoints as `{event_type, data}`. Delivery is at least once: deduplicate on " +
        "event_type + workOrderId + changedAt (addedAt for notes), or on the webhook-id header. Order is not guaranteed; trust the " +
        "fetched work order's status. Failed deliveries are retried at 5 s, 30 s, 2 min, 10 min, 30 min and 1 h after the first " +
        "failure, then hourly; an event not handed over within three hours of the change is discarded (reconcile by polling work " +
        "orders filtered by statusChangedAt). Each attempt times out after 10 s. The same events are available live over the " +
        "GraphQL subscription `workOrderEvents` (graphql-ws or SSE on /graphql). See docs/events.md.",
    },
    defaultContentType: "application/json",
    channels: {
      workorderCreate: channel(
        "workorderCreate",
        "workorder.create: a work order was created (buyer), or is waiting for the supplier facility (supplier).",
      ),
      workorderStatusUpdate: channel(
        "workorderStatusUpdate",
        "workorder.status_update: the status of a work order changed.",
      ),
      workorderNewNote: channel(
        "workorderNewNote",
        "workorder.new_note: a note was added to the buyer-supplier thread.",
      ),
    },
    operations: {
      sendWorkorderCreate: operation("workorderCreate"),
      sendWorkorderStatusUpdate: operation("workorderStatusUpdate"),
      sendWorkorderNewNote: operation("workorderNewNote"),
    },
    components: {
      schemas: {
        SignatureHeaders: signatureHeaders,
        CreateData: createData,
        StatusUpdateData: statusData,
        NewNoteData: noteData,
      },
      messages: {
        workorderCreate: message(
          "workorderCreate",
          "workorder.create",
          "Work order created",
          "A work order was created or is waiting for the supplier.",
          { $ref: "#/components/schemas/CreateData" },
          {
            workOrderId: 1042,
            location: "Store 1 Portland",
            newStatus: "PendingConfirmationByServiceProvider",
            changedBy: "Alice Admin",
            changedAt: "2026-11-02T15:04:05.000Z",
          },
        ),
        workorderStatusUpdate: message(
          "workorderStatusUpdate",
          "workorder.status_update",
          "Status changed",
          "The status of a work order changed value.",
          { $ref: "#/components/schemas/StatusUpdateData" },
          {
            workOrderId: 1042,
            location: "Store 1 Portland",
            oldStatus: "PendingConfirmationByServiceProvider",
            newStatus: "ConfirmedByServiceProvider",
            changedBy: "Bob Tech",
            changedAt: "2026-11-02T15:10:00.000Z",
          },
        ),
        workorderNewNote: message(
          "workorderNewNote",
          "workorder.new_note",
          "Note added",
          "A note was appended to the root buyer-supplier thread.",
          { $ref: "#/components/schemas/NewNoteData" },
          {
            workOrderId: 1042,
            newNote: "Compressor replaced",
            addedBy: "Bob Tech",
            addedAt: "2026-11-02T17:30:00.000Z",
          },
        ),
      },
    },
  };
}

let cached: string | undefined;

/** The document as served (built once). */
export function asyncApiJson(): string {
  cached ??= JSON.stringify(asyncApiDocument(), null, 2);
  return cached;
}
