// GraphQL types of the webhook delivery log with its attempts. GraphQL only: none of this is in the
// REST cuts.
import { builder } from "../core/builder.ts";
import { DELIVERY_STATUSES, windowClosesAt } from "./rules/replay.ts";
import { describedValues } from "../core/enums.ts";

const GRAPHQL_ONLY = { subGraphs: ["graphql" as const] };

export const WebhookDeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", {
  description: "Where a webhook delivery stands (docs/events.md)",
  ...GRAPHQL_ONLY,
  values: describedValues(DELIVERY_STATUSES, {
    pending: "Waiting for its first attempt, in flight, or between retries",
    delivered: "A receiver acknowledged it with a 2xx",
    failed: "Given up for a reason other than time (e.g. the operator disabled the endpoint)",
    expired: "Given up: not delivered within three hours of the change (the three-hour rule)",
  }),
});

builder.prismaObject("WebhookAttempt", {
  ...GRAPHQL_ONLY,
  description: "One delivery attempt: the receiver's status code (null when it did not answer), latency and error",
  fields: (t) => ({
    attempt: t.exposeInt("attempt", { description: "Number of the attempt, from 1; replays continue the numbering" }),
    statusCode: t.exposeInt("statusCode", {
      nullable: true,
      description: "HTTP status the receiver answered; null when it did not answer (timeout, connection error)",
    }),
    latencyMs: t.exposeInt("latencyMs", { description: "Time the attempt took, in milliseconds" }),
    error: t.exposeString("error", {
      nullable: true,
      description: "Why the attempt failed (non-2xx, timeout, connection error); null when it succeeded",
    }),
    at: t.expose("at", { type: "DateTime", description: "When the attempt was made" }),
  }),
});

export const WebhookDeliveryRef = builder.prismaObject("WebhookDelivery", {
  ...GRAPHQL_ONLY,
  description: "One event for one endpoint: its webhook-id stays the same on every retry and replay",
  fields: (t) => ({
    webhookId: t.exposeString("webhookId", { description: "The webhook-id header" }),
    endpointId: t.exposeInt("endpointId", { description: "Id of the webhook endpoint the event is delivered to" }),
    eventId: t.string({
      resolve: (d) => d.eventId.toString(),
      description: "Id of the outbox event delivered (an integer as text)",
    }),
    eventType: t.exposeString("eventType", {
      description: "The event's type: workorder.create, workorder.status_update or workorder.new_note",
    }),
    workOrderId: t.int({
      description: "Id of the work order the event is about; null when the payload names none",
      nullable: true,
      resolve: (d) => (JSON.parse(d.body) as { data?: { workOrderId?: number } }).data?.workOrderId ?? null,
    }),
    payload: t.field({
      type: "JSON",
      description: "The body that is POSTed ({event_type, data})",
      resolve: (d) => JSON.parse(d.body),
    }),
    status: t.field({
      type: WebhookDeliveryStatusEnum,
      resolve: (d) => d.status,
      description: "Where the delivery stands: pending, delivered, failed or expired",
    }),
    eventAt: t.expose("eventAt", {
      type: "DateTime",
      description: "When the change happened (for a forced operator replay: when it was replayed)",
    }),
    replayableUntil: t.field({
      type: "DateTime",
      description: "End of the three-hour window: no attempt and no replay after it",
      resolve: (d) => windowClosesAt(d),
    }),
    deliveredAt: t.expose("deliveredAt", {
      type: "DateTime",
      nullable: true,
      description: "When an attempt was acknowledged with a 2xx; null until then",
    }),
    attemptCount: t.exposeInt("attempts", { description: "How many attempts were made so far" }),
    lastStatusCode: t.exposeInt("lastStatusCode", {
      nullable: true,
      description: "HTTP status of the latest attempt; null before the first or when the receiver did not answer",
    }),
    lastError: t.exposeString("lastError", {
      nullable: true,
      description: "Error of the latest failed attempt; null when none",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the delivery was queued" }),
    attempts: t.relation("attemptLog", {
      query: { orderBy: { attempt: "asc" } },
      description: "Every attempt, oldest first",
    }),
  }),
});

export const WebhookDeliveryPage = builder
  .objectRef<{ data: unknown[]; count: number }>("WebhookDeliveryPage")
  .implement({
    description: "One page of the webhook delivery log and how many deliveries match in all",
    ...GRAPHQL_ONLY,
    fields: (t) => ({
      data: t.field({
        type: [WebhookDeliveryRef],
        resolve: (p) => p.data as never,
        description: "The deliveries of this page, newest change first",
      }),
      count: t.exposeInt("count", { description: "Total matching deliveries, not the page length" }),
    }),
  });

export const RedeliveryResultRef = builder
  .objectRef<{
    endpointId: number;
    redelivered: string[];
    skipped: { webhookId: string; reason: string }[];
    more: boolean;
  }>("RedeliveryResult")
  .implement({
    description: "What a bulk replay of an endpoint's failures did",
    ...GRAPHQL_ONLY,
    fields: (t) => ({
      endpointId: t.exposeInt("endpointId", { description: "Id of the endpoint whose deliveries were replayed" }),
      redelivered: t.exposeStringList("redelivered", { description: "webhook-ids handed over again" }),
      skipped: t.field({
        description:
          "Deliveries left alone, with the reason (outside the three-hour window, being attempted right now)",
        type: [
          builder.objectRef<{ webhookId: string; reason: string }>("RedeliverySkip").implement({
            ...GRAPHQL_ONLY,
            description: "A delivery a bulk replay left alone, and why",
            fields: (s) => ({
              webhookId: s.exposeString("webhookId", { description: "The skipped delivery's webhook-id" }),
              reason: s.exposeString("reason", { description: "Why it was not replayed" }),
            }),
          }),
        ],
        resolve: (r) => r.skipped,
      }),
      more: t.exposeBoolean("more", { description: "More failures match than one call replays; call again" }),
    }),
  });
