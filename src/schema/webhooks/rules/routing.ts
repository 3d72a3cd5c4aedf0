// Which webhook endpoints get which message, and the body they are sent: the relay's rule
// (jobs/relay.ts) and the operator's `events explain` and `webhooks test` (explain.ts, test-event.ts).
import { addressedTo, type Audience, type Message } from "../../work-orders/public.ts";

/** The parts of a WebhookEndpoint that decide what it receives. */
export interface RoutedEndpoint {
  buyerCompanyId: number | null;
  supplierFacilityId: number | null;
  events: string[];
}

/** The audience an endpoint belongs to: its buyer company or its supplier facility. */
export function endpointOwner(e: Pick<RoutedEndpoint, "buyerCompanyId" | "supplierFacilityId">): Audience {
  return e.buyerCompanyId !== null
    ? { buyerCompanyId: e.buyerCompanyId }
    : { supplierFacilityId: e.supplierFacilityId! };
}

/**
 * Why an endpoint does not get a message, or null when it does: the message must be addressed to the
 * endpoint's owner and be of an event type the endpoint was registered for. (Disabled endpoints are
 * left out before this, by the relay's query.)
 */
export function endpointSkips(
  e: RoutedEndpoint,
  m: Pick<Message, "to" | "event_type">,
): "not-addressed" | "not-subscribed" | null {
  if (!addressedTo(endpointOwner(e), m)) return "not-addressed";
  return e.events.includes(m.event_type) ? null : "not-subscribed";
}

/** The body of a delivery: exactly `event_type` and `data`. */
export function messageBody(m: Pick<Message, "event_type" | "data">): string {
  return JSON.stringify({ event_type: m.event_type, data: m.data });
}
