// The event tests' subscribers: graphql-ws and SSE subscribers of workOrderEvents, and "priming" a
// subscription (a probe published on the relay's Redis channel until the subscriber sees it, so a test
// knows the server is listening before it writes the event under test). What other folders share too
// (the webhook receiver, the events' work order and payloads, polling) is in test/support/.
import { Redis } from "ioredis";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { SUBSCRIPTION_CHANNEL } from "../../src/schema/webhooks/jobs/relay.ts";
import type { Audience } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "../support/app.ts";
import { sleep, waitFor } from "../support/wait.ts";

export interface LiveEvent {
  eventType: string;
  workOrderId: number;
  data: Record<string, unknown>;
}

const WORK_ORDER_EVENTS = `subscription($types: [String!], $wo: Int) {
  workOrderEvents(eventTypes: $types, workOrderId: $wo) { eventType workOrderId data }
}`;

/** A probe's work order id when the subscription does not filter by one: never a real one. */
const PROBE = -1;
const isProbe = (e: LiveEvent) => typeof e.data.probe === "string";

export interface Subscriber {
  events: LiveEvent[];
  errors: unknown[];
  /** Events other than probes. */
  real(): LiveEvent[];
  close(): Promise<void>;
}

/** A graphql-ws subscriber of workOrderEvents with a key's connectionParams. */
export function wsSubscriber(
  baseUrl: string,
  headers: Record<string, string>,
  variables: Record<string, unknown> = {},
): Subscriber {
  const client: Client = createClient({
    url: `${baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: headers,
    retryAttempts: 0,
    lazy: true,
  });
  const events: LiveEvent[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ workOrderEvents: LiveEvent }>(
    { query: WORK_ORDER_EVENTS, variables },
    {
      next: (result) => (result.data ? events.push(result.data.workOrderEvents) : errors.push(result.errors)),
      error: (e) => errors.push(e),
      complete: () => undefined,
    },
  );
  return {
    events,
    errors,
    real: () => events.filter((e) => !isProbe(e)),
    close: () => client.dispose() as Promise<void>,
  };
}

/** A subscriber over SSE (`Accept: text/event-stream` on POST /graphql). */
export function sseSubscriber(
  baseUrl: string,
  headers: Record<string, string>,
  variables: Record<string, unknown> = {},
) {
  const abort = new AbortController();
  const events: LiveEvent[] = [];
  const errors: unknown[] = [];
  const status = (async () => {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: "POST",
      headers: { ...headers, accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ query: WORK_ORDER_EVENTS, variables }),
      signal: abort.signal,
    });
    const contentType = response.headers.get("content-type") ?? "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame
              .split("\n")
              .filter((l) => l.startsWith("data:"))
              .map((l) => l.slice(5).trim())
              .join("\n");
            if (!data) continue;
            const parsed = JSON.parse(data) as { data?: { workOrderEvents: LiveEvent }; errors?: unknown };
            if (parsed.data?.workOrderEvents) events.push(parsed.data.workOrderEvents);
            else if (parsed.errors) errors.push(parsed.errors);
          }
        }
      } catch (e) {
        if (!abort.signal.aborted) errors.push(e);
      }
    })();
    void reading;
    return { status: response.status, contentType };
  })();
  return {
    events,
    errors,
    response: status,
    real: () => events.filter((e) => !isProbe(e)),
    close: async () => abort.abort(),
  };
}

/**
 * Publishes probes addressed to `to` on the relay's channel until `sub` has received one (each call its
 * own marker). Probes carry data.probe; `real()` leaves them out. Give the event type and work order id
 * a filtered subscription lets through.
 */
export async function prime(
  t: TestApp,
  sub: { events: LiveEvent[] },
  to: Audience,
  options: { eventType?: string; workOrderId?: number } = {},
  ms = 10_000,
) {
  const redis = new Redis(t.config.redisUrl);
  const marker = `probe-${Math.random().toString(36).slice(2)}`;
  const message = {
    to,
    event_type: options.eventType ?? "workorder.create",
    data: { workOrderId: options.workOrderId ?? PROBE, probe: marker },
    eventId: "probe",
  };
  try {
    await waitFor(
      async () => {
        await redis.publish(`${t.config.redisPrefix}:${SUBSCRIPTION_CHANNEL}`, JSON.stringify([message]));
        await sleep(50);
        return sub.events.some((e) => e.data.probe === marker);
      },
      ms,
      "the subscription to be live",
    );
  } finally {
    redis.disconnect();
  }
}
