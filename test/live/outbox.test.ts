// What Redis does not bring, an API instance reads from the outbox (src/schema/live/tail.ts): a message
// published after a gap waits until the numbers before it are read, and a message never published
// arrives with the next catch-up. No worker runs here: the test relays and publishes by hand.
// Also: the work orders of typed events are loaded in batches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { relayOutbox, SUBSCRIPTION_CHANNEL } from "../../src/schema/webhooks/jobs/relay.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { createWorkOrderLoader } from "../../src/schema/live/work-orders.ts";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { increasing, subscribe } from "./client.ts";
import { waitFor } from "../support/wait.ts";

let t: TestApp;
let refs: Record<string, number>;

beforeAll(async () => {
  t = await startTestApp({
    configure: (c) => {
      c.live = { ...c.live, catchUpMs: 300 };
    },
  });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

async function note(text: string) {
  await t.db.$transaction((tx) =>
    writeEvent(
      tx,
      "workorder.new_note",
      {
        workOrderId: 4242,
        buyerCompanyId: refs.acme,
        customer: "Acme Foods",
        location: "Store 1 Portland",
        supplierFacilityId: null,
        visibleToSupplierFacilityIds: [],
        status: "ConfirmedByServiceProvider",
      },
      { newNote: text, addedBy: "Alice Admin", addedAt: new Date().toISOString() },
    ),
  );
}

const relay = () => relayOutbox({ db: t.db, now: () => new Date() });

describe("the outbox behind Redis", () => {
  it("delivers, in order, a message whose predecessor Redis never brought, and one never published at all", async () => {
    const head = (await t.graphql("acme-key", "{ workOrderEventsHead }")).body.data.workOrderEventsHead;
    const sub = subscribe(t.url, t.headers("acme-key"), { after: head, workOrderId: 4242 });
    const redis = new Redis(t.config.redisUrl);
    try {
      await waitFor(() => sub.socket?.readyState === 1, 5_000, "the socket");
      await new Promise((r) => setTimeout(r, 300));
      await note("lost");
      await relay(); // relayed and numbered, never published
      await note("published");
      const { messages } = await relay();
      await redis.publish(`${t.config.redisPrefix}:${SUBSCRIPTION_CHANNEL}`, JSON.stringify(messages));
      await waitFor(() => sub.events.length >= 2, 5_000, "both notes");
      expect(sub.events.map((e) => e.data.newNote)).toEqual(["lost", "published"]);

      await note("never published");
      await relay();
      await waitFor(() => sub.events.length >= 3, 5_000, "the catch-up");
      expect(sub.events.map((e) => e.data.newNote)).toEqual(["lost", "published", "never published"]);
      expect(increasing(sub.ids())).toBe(true);
      expect(sub.errors).toEqual([]);
    } finally {
      redis.disconnect();
      await sub.close();
    }
  });
});

describe("typed events' work orders", () => {
  it("are loaded in one query for many subscribers sharing a selection and a scope", async () => {
    const calls: unknown[] = [];
    const db = {
      workOrder: {
        findMany: async (args: unknown) => {
          calls.push(args);
          return [{ id: 1 }, { id: 2 }];
        },
      },
    };
    const loader = createWorkOrderLoader(db as never);
    const buyer = { kind: "buyer", buyerCompanyId: 7 } as Viewer;
    const otherBuyer = { kind: "buyer", buyerCompanyId: 8 } as Viewer;
    const query = { include: { location: true } };
    const loads = [
      ...Array.from({ length: 100 }, (_, i) => loader.load({ id: 1 + (i % 2), query, viewer: buyer })),
      loader.load({ id: 1, query: { select: { id: true } }, viewer: buyer }),
      loader.load({ id: 3, query, viewer: otherBuyer }),
    ];
    const rows = await Promise.all(loads);
    expect(calls).toHaveLength(3); // one per (selection, scope)
    expect(rows.slice(0, 100).every((r, i) => (r as { id: number }).id === 1 + (i % 2))).toBe(true);
    expect(rows[101]).toBeNull(); // not among the rows found
  });
});
