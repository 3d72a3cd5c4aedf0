// `operator events explain <workOrderId>`: for every event of a work order, whom the recipients rules
// addressed (the audiences whose webhook endpoints and live subscribers get it), which endpoints
// received which message (from the delivery log) and which were skipped and why. The rules are the
// relay's own: messagesFor (work-orders/events.ts) and endpointSkips (routing.ts). They run with the
// buyer company's visibility setting of today, which the relay read when it relayed the event.
import type { Db } from "../../../db.ts";
import { messagesFor, type Audience } from "../../work-orders/public.ts";
import { endpointOwner, endpointSkips } from "./routing.ts";

const audienceName = (a: Audience) =>
  "buyerCompanyId" in a ? `buyer company ${a.buyerCompanyId}` : `supplier facility ${a.supplierFacilityId}`;

interface Payload {
  supplierFacilityId?: number | null;
  previousSupplierFacilityId?: number | null;
  visibleToSupplierFacilityIds?: number[];
  status?: string;
  oldStatus?: string | null;
  newStatus?: string;
}

/** The suppliers an event concerns: assigned, reassigned away from, on the visibility list. */
function suppliersOf(p: Payload): number[] {
  return [p.supplierFacilityId, p.previousSupplierFacilityId, ...(p.visibleToSupplierFacilityIds ?? [])].filter(
    (id): id is number => typeof id === "number",
  );
}

/** What the recipients rules looked at, for a reason a person can check against docs/events.md. */
function facts(p: Payload, visibilityWebhooks: boolean): string {
  const status = p.newStatus ? `status ${p.oldStatus ?? "(new)"} → ${p.newStatus}` : `status ${p.status}`;
  const assigned = p.supplierFacilityId
    ? `assigned to supplier facility ${p.supplierFacilityId}`
    : "no supplier assigned";
  const visible = p.visibleToSupplierFacilityIds?.length
    ? `, visibility list ${p.visibleToSupplierFacilityIds.join(", ")} (visibility webhooks ${visibilityWebhooks ? "on" : "off"})`
    : "";
  return `${status}, ${assigned}${visible}`;
}

export async function explainWorkOrderEvents(db: Db, workOrderId: number) {
  const workOrder = await db.workOrder.findUnique({
    where: { id: workOrderId },
    select: { id: true, buyerCompanyId: true },
  });
  if (!workOrder) throw new Error(`no work order ${workOrderId}`);
  const [company, events] = await Promise.all([
    db.buyerCompany.findUniqueOrThrow({
      where: { id: workOrder.buyerCompanyId },
      select: { visibilityWebhooks: true },
    }),
    db.outboxEvent.findMany({ where: { workOrderId }, orderBy: { id: "asc" } }),
  ]);
  const deliveries = await db.webhookDelivery.findMany({
    where: { eventId: { in: events.map((e) => e.id) } },
    orderBy: [{ eventId: "asc" }, { endpointId: "asc" }, { sequence: "asc" }],
  });
  const supplierIds = [...new Set(events.flatMap((e) => suppliersOf(e.payload as Payload)))];
  const endpoints = await db.webhookEndpoint.findMany({
    where: {
      OR: [
        { buyerCompanyId: workOrder.buyerCompanyId },
        { supplierFacilityId: { in: supplierIds } },
        { id: { in: deliveries.map((d) => d.endpointId) } },
      ],
    },
    orderBy: { id: "asc" },
  });

  return {
    workOrderId,
    buyerCompanyId: workOrder.buyerCompanyId,
    visibilityWebhooks: company.visibilityWebhooks,
    endpointsConsidered: endpoints.map((e) => e.id),
    events: events.map((event) => {
      const payload = event.payload as Payload;
      const messages = messagesFor(event, company);
      const addressed = [...new Set(messages.map((m) => audienceName(m.to)))];
      return {
        eventId: String(event.id),
        eventType: event.eventType,
        createdAt: event.createdAt.toISOString(),
        relayedAt: event.relayedAt?.toISOString() ?? null,
        facts: facts(payload, company.visibilityWebhooks),
        // Live subscribers (GraphQL workOrderEvents) with a key of a message's audience got it too,
        // if they were connected when it was relayed.
        messages: messages.map((m) => ({
          to: m.to,
          audience: audienceName(m.to),
          eventType: m.event_type,
          data: m.data,
        })),
        endpoints: endpoints.map((e) => {
          const base = { endpointId: e.id, owner: audienceName(endpointOwner(e)), url: e.url, events: e.events };
          const received = deliveries.filter((d) => d.eventId === event.id && d.endpointId === e.id);
          if (received.length) {
            return {
              ...base,
              received: true,
              deliveries: received.map((d) => ({
                webhookId: d.webhookId,
                eventType: d.eventType,
                status: d.status,
                attempts: d.attempts,
                lastStatusCode: d.lastStatusCode,
                lastError: d.lastError,
                deliveredAt: d.deliveredAt?.toISOString() ?? null,
              })),
            };
          }
          return {
            ...base,
            received: false,
            skipped: skipReason(e, messages, event, addressed, payload, company.visibilityWebhooks),
          };
        }),
      };
    }),
  };
}

function skipReason(
  e: Parameters<typeof endpointSkips>[0] & { disabledAt: Date | null; createdAt: Date },
  messages: ReturnType<typeof messagesFor>,
  event: { relayedAt: Date | null },
  addressed: string[],
  payload: Payload,
  visibilityWebhooks: boolean,
): string {
  const skips = messages.map((m) => endpointSkips(e, m));
  if (!skips.includes("not-subscribed") && !skips.includes(null)) {
    const to = addressed.length ? addressed.join(", ") : "nobody";
    return `not addressed: the recipients rules send this event to ${to}, not to ${audienceName(endpointOwner(e))} (${facts(payload, visibilityWebhooks)})`;
  }
  if (!skips.includes(null)) {
    const types = [...new Set(messages.filter((_, i) => skips[i] === "not-subscribed").map((m) => m.event_type))];
    return `not subscribed: registered for ${e.events.join(", ")}, not for ${types.join(", ")}`;
  }
  if (!event.relayedAt) return "not relayed yet: the event is still waiting in the outbox (is a worker running?)";
  if (e.disabledAt && e.disabledAt <= event.relayedAt)
    return `disabled: the endpoint was disabled (since ${e.disabledAt.toISOString()}) when the event was relayed`;
  if (e.createdAt > event.relayedAt) return "registered later: the endpoint did not exist when the event was relayed";
  return "no delivery recorded: the endpoint was disabled, or registered for other events, when the event was relayed";
}
