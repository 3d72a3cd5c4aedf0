// Shared by the event tests: a real local webhook receiver, graphql-ws and SSE subscribers, polling,
// and "priming" a subscription (a probe published on the relay's Redis channel until the subscriber
// sees it, so a test knows the server is listening before it writes the event under test).
import http from "node:http";
import { Redis } from "ioredis";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import pino from "pino";
import { SUBSCRIPTION_CHANNEL } from "../../src/schema/webhooks/jobs/relay.ts";
import type { WorkOrderEventContext } from "../../src/schema/work-orders/events.ts";
import type { Audience } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "../support/app.ts";

export const silentLogger = () => pino({ level: "silent" });

export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 10_000,
  what = "condition",
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Receipt {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
  json: { event_type: string; data: Record<string, unknown> };
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** A webhook receiver on 127.0.0.1: answers 204, or 500 while `failing` is true. Records every request. */
export async function startReceiver() {
  const receipts: Receipt[] = [];
  const state = { failing: false };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const status = state.failing ? 500 : 204;
      receipts.push({
        path: req.url ?? "",
        headers: req.headers,
        body,
        status,
        json: JSON.parse(body),
        at: Date.now(),
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    receipts,
    state,
    /** Successful receipts of one webhook-id. */
    delivered: (webhookId: string) => receipts.filter((r) => r.headers["webhook-id"] === webhookId && r.status < 300),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

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

/** A work order of acme at store-1, assigned to coolco-pdx, for events to be about (title and status may differ). */
export async function acmeWorkOrder(
  t: TestApp,
  fields: { title?: string; status?: "ConfirmedByServiceProvider" | "PendingConfirmationByServiceProvider" } = {},
) {
  const { refs } = t.fixture;
  return t.db.workOrder.create({
    data: {
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      title: "Leaking unit",
      status: "ConfirmedByServiceProvider",
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
      statusChangedAt: new Date(),
      ...fields,
    },
  });
}

export function context(
  t: TestApp,
  workOrderId: number,
  overrides: Partial<WorkOrderEventContext> = {},
): WorkOrderEventContext {
  return {
    workOrderId,
    buyerCompanyId: t.fixture.refs.acme,
    customer: "Acme Foods",
    location: "Store 1 Portland",
    supplierFacilityId: t.fixture.refs["coolco-pdx"],
    visibleToSupplierFacilityIds: [],
    status: "ConfirmedByServiceProvider",
    ...overrides,
  };
}

export const confirmed = (at = new Date()) => ({
  oldStatus: "PendingConfirmationByServiceProvider" as const,
  newStatus: "ConfirmedByServiceProvider" as const,
  changedBy: "Bob Tech",
  changedAt: at.toISOString(),
  action: "confirm",
});

export const note = (text: string, at = new Date()) => ({
  newNote: text,
  addedBy: "Alice Admin",
  addedAt: at.toISOString(),
});
