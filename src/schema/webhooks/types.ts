// GraphQL types of the webhook delivery log with its attempts. GraphQL only: none of this is in the
// REST cuts.
import { builder } from "../core/builder.ts";
import { DELIVERY_STATUSES, windowClosesAt } from "./rules/replay.ts";

const GRAPHQL_ONLY = { subGraphs: ["graphql" as const] };

export const WebhookDeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", {
  ...GRAPHQL_ONLY,
  values: DELIVERY_STATUSES,
});

builder.prismaObject("WebhookAttempt", {
  ...GRAPHQL_ONLY,
  description: "One delivery attempt: the receiver's status code (null when it did not answer), latency and error",
  fields: (t) => ({
    attempt: t.exposeInt("attempt"),
    statusCode: t.exposeInt("statusCode", { nullable: true }),
    latencyMs: t.exposeInt("latencyMs"),
    error: t.exposeString("error", { nullable: true }),
    at: t.expose("at", { type: "DateTime" }),
  }),
});

export const WebhookDeliveryRef = builder.prismaObject("WebhookDelivery", {
  ...GRAPHQL_ONLY,
  description: "One event for one endpoint: its webhook-id stays the same on every retry and replay",
  fields: (t) => ({
    webhookId: t.exposeString("webhookId", { description: "The webhook-id header" }),
    endpointId: t.exposeInt("endpointId"),
    eventId: t.string({ resolve: (d) => d.eventId.toString() }),
    eventType: t.exposeString("eventType"),
    workOrderId: t.int({
      nullable: true,
      resolve: (d) => (JSON.parse(d.body) as { data?: { workOrderId?: number } }).data?.workOrderId ?? null,
    }),
    payload: t.field({
      type: "JSON",
      description: "The body that is POSTed ({event_type, data})",
      resolve: (d) => JSON.parse(d.body),
    }),
    status: t.field({ type: WebhookDeliveryStatusEnum, resolve: (d) => d.status }),
    eventAt: t.expose("eventAt", {
      type: "DateTime",
      description: "When the change happened (for a forced operator replay: when it was replayed)",
    }),
    replayableUntil: t.field({
      type: "DateTime",
      description: "End of the three-hour window: no attempt and no replay after it",
      resolve: (d) => windowClosesAt(d),
    }),
    deliveredAt: t.expose("deliveredAt", { type: "DateTime", nullable: true }),
    attemptCount: t.exposeInt("attempts"),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    attempts: t.relation("attemptLog", { query: { orderBy: { attempt: "asc" } } }),
  }),
});

export const WebhookDeliveryPage = builder
  .objectRef<{ data: unknown[]; count: number }>("WebhookDeliveryPage")
  .implement({
    ...GRAPHQL_ONLY,
    fields: (t) => ({
      data: t.field({ type: [WebhookDeliveryRef], resolve: (p) => p.data as never }),
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
    ...GRAPHQL_ONLY,
    fields: (t) => ({
      endpointId: t.exposeInt("endpointId"),
      redelivered: t.exposeStringList("redelivered", { description: "webhook-ids handed over again" }),
      skipped: t.field({
        type: [
          builder.objectRef<{ webhookId: string; reason: string }>("RedeliverySkip").implement({
            ...GRAPHQL_ONLY,
            fields: (s) => ({ webhookId: s.exposeString("webhookId"), reason: s.exposeString("reason") }),
          }),
        ],
        resolve: (r) => r.skipped,
      }),
      more: t.exposeBoolean("more", { description: "More failures match than one call replays; call again" }),
    }),
  });
