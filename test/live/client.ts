// A live subscriber for the tests of test/live/: graphql-ws over a real websocket (its socket kept, to
// pause it or see how it closed), or server-sent events read frame by frame (the `id:` lines kept); and
// the app those tests run.
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { Config } from "../../src/config.ts";
import { startTestApp } from "../support/app.ts";

/** The app of the live tests: the worker role relays events every 20 ms; `configure` changes the rest. */
export const startLiveApp = (configure: (c: Config) => void = () => undefined) =>
  startTestApp({
    configure: (c) => {
      c.roles.worker = true;
      c.relayIntervalMs = 20;
      configure(c);
    },
  });

interface LiveEvent {
  id: string;
  eventType: string;
  workOrderId: number;
  data: Record<string, unknown>;
  workOrder?: Record<string, unknown> | null;
  [field: string]: unknown;
}

const EVENT_FIELDS = "id eventType workOrderId data";

const eventsQuery = (fields = EVENT_FIELDS) => `subscription(
  $after: String, $eventTypes: [String!], $workOrderId: Int, $locationIds: [Int!], $statuses: [WorkOrderStatus!],
  $supplierFacilityIds: [Int!]
) {
  workOrderEvents(after: $after, eventTypes: $eventTypes, workOrderId: $workOrderId, locationIds: $locationIds,
    statuses: $statuses, supplierFacilityIds: $supplierFacilityIds) { ${fields} }
}`;

export interface Subscriber {
  events: LiveEvent[];
  /** GraphQL errors of results, and errors of the connection (a CloseEvent, an Error: no extensions). */
  errors: { message: string; extensions: Record<string, unknown> }[];
  completed: boolean;
  /** The websocket's close code, once closed. */
  closeCode?: number;
  socket?: WebSocket;
  ids(): number[];
  close(): Promise<void>;
}

export function subscribe(
  baseUrl: string,
  headers: Record<string, string>,
  variables: Record<string, unknown> = {},
  fields = EVENT_FIELDS,
): Subscriber {
  // Closed by the test: results still in flight are dropped, as a client that went away never sees them.
  let closed = false;
  const sub: Subscriber = {
    events: [],
    errors: [],
    completed: false,
    ids: () => sub.events.map((e) => Number(e.id)),
    close: () => {
      closed = true;
      return client.dispose() as Promise<void>;
    },
  };
  class Kept extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      sub.socket = this;
      this.on("close", (code) => (sub.closeCode = code));
    }
  }
  const client: Client = createClient({
    url: `${baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: Kept,
    connectionParams: headers,
    retryAttempts: 0,
  });
  client.subscribe<{ workOrderEvents: LiveEvent }>(
    { query: eventsQuery(fields), variables },
    {
      next: (result) => {
        if (closed) return;
        if (result.data?.workOrderEvents) sub.events.push(result.data.workOrderEvents);
        else sub.errors.push(...((result.errors ?? []) as Subscriber["errors"]));
      },
      error: (e) => sub.errors.push(e as Subscriber["errors"][number]),
      complete: () => (sub.completed = true),
    },
  );
  return sub;
}

/** A subscriber over SSE: the events and the `id:` line of each frame. */
export function sseSubscribe(
  baseUrl: string,
  headers: Record<string, string>,
  variables: Record<string, unknown> = {},
) {
  const abort = new AbortController();
  const frames: { id?: string; event: LiveEvent }[] = [];
  const errors: unknown[] = [];
  const response = fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ query: eventsQuery(), variables }),
    signal: abort.signal,
  });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of (await response).body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
          if (!data) continue;
          const parsed = JSON.parse(data);
          if (parsed.errors) errors.push(...parsed.errors);
          else
            frames.push({ id: lines.find((l) => l.startsWith("id: "))?.slice(4), event: parsed.data.workOrderEvents });
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) errors.push(error);
    }
  })();
  return { frames, errors, response, close: () => abort.abort() };
}

export const increasing = (ids: number[]) => ids.every((id, i) => i === 0 || id > ids[i - 1]);
