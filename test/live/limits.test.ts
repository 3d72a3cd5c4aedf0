// Bounded and fair (docs/events.md, "Subscriptions"): a subscriber that does not read its events is
// told where to resume and disconnected; connections and subscriptions per key are limited.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "../support/app.ts";
import { increasing, startLiveApp, subscribe, type Subscriber } from "./client.ts";
import { waitFor } from "../support/wait.ts";

let t: TestApp;
let refs: Record<string, number>;
let workOrderId: number;

beforeAll(async () => {
  t = await startLiveApp((c) => {
    c.live = { ...c.live, bufferLimit: 20, maxConnectionsPerKey: 3, maxSubscriptionsPerKey: 4 };
  });
  refs = t.fixture.refs;
  workOrderId = (
    await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Limits",
        status: "ConfirmedByServiceProvider",
        createdBy: "alice@acme.example",
        statusChangedAt: new Date(),
      },
    })
  ).id;
});
afterAll(() => t?.close());

const head = async () => (await t.graphql("acme-key", "{ workOrderEventsHead }")).body.data.workOrderEventsHead;

/** `count` notes of `size` characters, in one transaction (so the relay sends them in one round). */
async function notes(count: number, size: number) {
  const context = {
    workOrderId,
    buyerCompanyId: refs.acme,
    customer: "Acme Foods",
    location: "Store 1 Portland",
    supplierFacilityId: null,
    visibleToSupplierFacilityIds: [],
    status: "ConfirmedByServiceProvider" as const,
  };
  await t.db.$transaction(
    async (tx) => {
      for (let i = 0; i < count; i++) {
        const text = `${i} ${"x".repeat(size)}`;
        await writeEvent(tx, "workorder.new_note", context, {
          newNote: text,
          addedBy: "A",
          addedAt: new Date().toISOString(),
        });
      }
    },
    { timeout: 60_000 },
  ); // 24 MB of notes: slow on a loaded machine
}

/**
 * A proxy to the service whose server → client direction can be stopped: it stops reading what the
 * server sends, so the server's socket buffers fill (pausing the client's own socket does not hold:
 * ws resumes it when its receiver drains).
 */
async function pausableProxy(port: number) {
  const upstreams = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    upstreams.add(upstream);
    upstream.on("data", (d) => client.write(d));
    client.on("data", (d) => upstream.write(d));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ]) {
      a.on("close", () => b.destroy());
      a.on("error", () => undefined);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    pause: () => {
      for (const u of upstreams) u.pause();
    },
    resume: () => {
      for (const u of upstreams) u.resume();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("a subscriber that cannot keep up", () => {
  it("gets an error event with the id to resume from, is disconnected, and resumes without a gap", async () => {
    const start = await head();
    const proxy = await pausableProxy(Number(new URL(t.url).port));
    const slow = subscribe(proxy.url, t.headers("acme-key"), { after: start, workOrderId });
    const resumed: Subscriber[] = [];
    try {
      // Live once a first note came through (the subscription is made after the connection opens).
      await notes(1, 10);
      await waitFor(() => slow.events.length === 1, 10_000, "the first note");
      // Stop reading: once the socket buffers are full the server's writes stall and its events wait.
      proxy.pause();
      await notes(400, 60_000);
      await waitFor(
        async () => (await t.db.outboxEvent.count({ where: { relayedAt: null } })) === 0,
        20_000,
        "the relay",
      );
      await new Promise((r) => setTimeout(r, 1_000));
      proxy.resume();
      const [error] = await waitFor(() => slow.errors.length > 0 && slow.errors, 20_000, "the error event");
      expect(error.extensions.code).toBe("SubscriberTooSlowException");
      const resumeAfter = error.extensions.resumeAfter as string;
      expect(resumeAfter).toBe(slow.events.at(-1)?.id ?? start);
      expect(slow.events.length).toBeLessThan(401);
      await waitFor(() => slow.closeCode !== undefined, 5_000, "the disconnect");
      expect(slow.closeCode).toBe(4429);

      resumed.push(subscribe(t.url, t.headers("acme-key"), { after: resumeAfter, workOrderId }));
      const rest = resumed[0];
      await waitFor(() => slow.events.length + rest.events.length >= 401, 20_000, "the rest");
      const texts = [...slow.events, ...rest.events].slice(1).map((e) => Number(String(e.data.newNote).split(" ")[0]));
      expect(texts).toEqual(Array.from({ length: 400 }, (_, i) => i));
      expect(increasing([...slow.ids(), ...rest.ids()])).toBe(true);
      expect(rest.errors).toEqual([]);
    } finally {
      await Promise.all([slow, ...resumed].map((s) => s.close()));
      await proxy.close();
    }
  }, 60_000);
});

describe("limits per key", () => {
  it("refuses a key's connection beyond LIVE_MAX_CONNECTIONS_PER_KEY (close code 4429), others unaffected", async () => {
    const open = [1, 2, 3].map(() => subscribe(t.url, t.headers("acme-key"), { workOrderId }));
    try {
      await waitFor(() => open.every((s) => s.socket?.readyState === 1), 5_000, "three connections");
      await new Promise((r) => setTimeout(r, 200));
      const fourth = subscribe(t.url, t.headers("acme-key"), { workOrderId });
      await waitFor(() => fourth.closeCode !== undefined, 5_000, "the refusal");
      expect(fourth.closeCode).toBe(4429);
      const other = subscribe(t.url, t.headers("globex-key"));
      await waitFor(() => other.socket?.readyState === 1, 5_000, "another key's connection");
      await new Promise((r) => setTimeout(r, 200));
      expect(other.closeCode).toBeUndefined();
      await other.close();
      await open[0].close();
      const again = subscribe(t.url, t.headers("acme-key"), { workOrderId });
      await new Promise((r) => setTimeout(r, 300));
      expect(again.closeCode).toBeUndefined();
      await again.close();
    } finally {
      await Promise.all(open.map((s) => s.close()));
    }
  });

  it("refuses a key's subscription beyond LIVE_MAX_SUBSCRIPTIONS_PER_KEY (SSE included)", async () => {
    let controllers: AbortController[] = [];
    const sse = (signal: AbortSignal) =>
      fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { ...t.headers("acme-key"), accept: "text/event-stream", "content-type": "application/json" },
        body: JSON.stringify({ query: "subscription { workOrderEvents { id } }" }),
        signal,
      });
    try {
      // The tests above close their subscriptions as they end; the server releases each when it sees its
      // socket close, and until then it counts against the key. Four streams once those are gone.
      let streams: Response[] = [];
      for (const deadline = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 100))) {
        for (const c of controllers) c.abort();
        controllers = [1, 2, 3, 4].map(() => new AbortController());
        streams = await Promise.all(controllers.map((c) => sse(c.signal)));
        if (streams.every((r) => r.status === 200) || Date.now() > deadline) break;
      }
      expect(streams.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      await new Promise((r) => setTimeout(r, 300));
      const fifth = subscribe(t.url, t.headers("acme-key"));
      const [error] = await waitFor(() => fifth.errors.length > 0 && fifth.errors, 5_000, "the refusal");
      expect(error.extensions.code).toBe("TooManyRequestsException");
      expect(error.message).toContain("LIVE_MAX_SUBSCRIPTIONS_PER_KEY");
      await fifth.close();
      controllers[0].abort();
      await new Promise((r) => setTimeout(r, 300));
      const sixth = subscribe(t.url, t.headers("acme-key"));
      await new Promise((r) => setTimeout(r, 500));
      expect(sixth.errors).toEqual([]);
      await sixth.close();
    } finally {
      for (const c of controllers) c.abort();
    }
  });
});
