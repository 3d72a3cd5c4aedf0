// GraphQL subscriptions to work order events: the relay (worker role) publishes on Redis, every API
// instance fans out to its own subscribers, filtered exactly like webhook endpoints.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startApp } from "../../src/app.ts";
import {
  writeEvent,
  type NoteEventData,
  type StatusEventData,
  type EventType,
} from "../../src/schema/work-orders/events.ts";
import { messagesFor } from "../../src/schema/work-orders/events.ts";
import { SUBSCRIPTION_CHANNEL } from "../../src/schema/webhooks/jobs/relay.ts";
import { startTestApp, type TestApp, silentLogger } from "../support/app.ts";
import { prime, sseSubscriber, wsSubscriber } from "./helpers.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { acmeWorkOrder, confirmed, context, note } from "../support/work-order-events.ts";

let t: TestApp;
let workOrderId = 0;
let refs: Record<string, number>;

beforeAll(async () => {
  t = await startTestApp({
    configure: (c) => {
      c.roles.worker = true;
      c.relayIntervalMs = 20;
    },
  });
  refs = t.fixture.refs;
  workOrderId = (await acmeWorkOrder(t)).id;
});
afterAll(() => t?.close());

async function write(eventType: EventType, data: StatusEventData | NoteEventData, overrides = {}) {
  await t.db.$transaction((tx) => writeEvent(tx, eventType, context(t, workOrderId, overrides), data));
}

describe("workOrderEvents over graphql-ws", () => {
  it("delivers create, status and note events to a buyer subscriber with the webhook's data", async () => {
    const sub = wsSubscriber(t.url, t.headers("acme-key"), { wo: workOrderId });
    try {
      await prime(t, sub, { buyerCompanyId: refs.acme }, { workOrderId });
      const at = new Date();
      const create = {
        oldStatus: null,
        newStatus: "PendingConfirmationByServiceProvider" as const,
        changedBy: "Alice Admin",
        changedAt: at.toISOString(),
        action: "create",
      };
      await write("workorder.create", create, { status: "PendingConfirmationByServiceProvider" });
      await write("workorder.status_update", confirmed(at));
      await write("workorder.new_note", note("Parts ordered", at));
      const got = await waitFor(() => sub.real().length >= 3 && sub.real(), 10_000, "three events");
      expect(got.map((e) => e.eventType).sort()).toEqual([
        "workorder.create",
        "workorder.new_note",
        "workorder.status_update",
      ]);
      expect(got.every((e) => e.workOrderId === workOrderId)).toBe(true);
      // Field for field what the buyer's webhook endpoint gets: the relay's own recipients rules.
      const rows = await t.db.outboxEvent.findMany({ where: { workOrderId }, orderBy: { id: "asc" } });
      const company = { visibilityWebhooks: false };
      const expected = rows.flatMap((r) => messagesFor(r, company)).filter((m) => "buyerCompanyId" in m.to);
      for (const m of expected) expect(got).toContainEqual({ eventType: m.event_type, workOrderId, data: m.data });
      expect(got.find((e) => e.eventType === "workorder.create")!.data).toEqual({
        workOrderId,
        location: "Store 1 Portland",
        newStatus: "PendingConfirmationByServiceProvider",
        changedBy: "Alice Admin",
        changedAt: at.toISOString(),
      });
      expect(sub.errors).toEqual([]);
    } finally {
      await sub.close();
    }
  });

  it("gives each tenant only its own messages: other buyers nothing, a supplier only its facility's", async () => {
    const acme = wsSubscriber(t.url, t.headers("acme-key"));
    const globex = wsSubscriber(t.url, t.headers("globex-key"));
    const coolcoPdx = wsSubscriber(t.url, t.headers("coolco-key")); // third-party supplier, facility coolco-pdx
    const coolcoSea = wsSubscriber(t.url, t.headers("unrelated-supplier-key")); // third-party supplier, facility coolco-sea
    try {
      await Promise.all([
        prime(t, acme, { buyerCompanyId: refs.acme }),
        prime(t, globex, { buyerCompanyId: refs.globex }),
        prime(t, coolcoPdx, { supplierFacilityId: refs["coolco-pdx"] }),
        prime(t, coolcoSea, { supplierFacilityId: refs["coolco-sea"] }),
      ]);
      await write("workorder.status_update", confirmed()); // assigned to coolco-pdx: buyer + coolco-pdx
      await write(
        "workorder.status_update",
        { ...confirmed(), oldStatus: "TechAssigned", newStatus: "TechEnRoute", action: "en_route" },
        { status: "TechEnRoute" },
      ); // buyer only
      await write("workorder.new_note", note("For the Seattle crew"), { supplierFacilityId: refs["coolco-sea"] }); // buyer + coolco-sea
      await waitFor(() => acme.real().length >= 3, 10_000, "acme's three events");
      await waitFor(() => coolcoSea.real().length >= 1, 10_000, "coolco-sea's note");
      await waitFor(() => coolcoPdx.real().length >= 1, 10_000, "coolco-pdx's update");
      // Everything above has been published; a last probe to each shows nothing else is on its way.
      await Promise.all([
        prime(t, globex, { buyerCompanyId: refs.globex }),
        prime(t, coolcoPdx, { supplierFacilityId: refs["coolco-pdx"] }),
        prime(t, coolcoSea, { supplierFacilityId: refs["coolco-sea"] }),
      ]);
      expect(acme.real().map((e) => e.data.newStatus ?? e.data.newNote)).toEqual([
        "ConfirmedByServiceProvider",
        "TechEnRoute",
        "For the Seattle crew",
      ]);
      expect(acme.real()[0].data.customer).toBeUndefined();
      expect(globex.real()).toEqual([]);
      expect(coolcoPdx.real().map((e) => [e.eventType, e.data.newStatus, e.data.customer])).toEqual([
        ["workorder.status_update", "ConfirmedByServiceProvider", "Acme Foods"],
      ]);
      expect(coolcoSea.real().map((e) => [e.eventType, e.data.newNote])).toEqual([
        ["workorder.new_note", "For the Seattle crew"],
      ]);
    } finally {
      await Promise.all([acme.close(), globex.close(), coolcoPdx.close(), coolcoSea.close()]);
    }
  });

  it("filters by event type", async () => {
    const sub = wsSubscriber(t.url, t.headers("acme-key"), { types: ["workorder.new_note"] });
    try {
      await prime(t, sub, { buyerCompanyId: refs.acme }, { eventType: "workorder.new_note" });
      await write("workorder.status_update", confirmed());
      await write("workorder.new_note", note("After the update"));
      await waitFor(() => sub.real().some((e) => e.data.newNote === "After the update"));
      await prime(t, sub, { buyerCompanyId: refs.acme }, { eventType: "workorder.new_note" });
      expect(sub.real().map((e) => e.eventType)).toEqual(["workorder.new_note"]);
    } finally {
      await sub.close();
    }
  });

  it("refuses partner keys (no events on the internal teams interface)", async () => {
    const sub = wsSubscriber(t.url, t.headers("inhouse-partner-key"));
    try {
      const errors = await waitFor(() => sub.errors.length > 0 && sub.errors);
      expect(JSON.stringify(errors)).toContain("ForbiddenException");
      expect(sub.events).toEqual([]);
    } finally {
      await sub.close();
    }
  });

  it("holds one Redis subscription per instance while someone listens, none after", async () => {
    const redis = new Redis(t.config.redisUrl);
    const channel = `${t.config.redisPrefix}:${SUBSCRIPTION_CHANNEL}`;
    const numsub = async () => Number(((await redis.pubsub("NUMSUB", channel)) as [string, number])[1]);
    try {
      await waitFor(async () => (await numsub()) === 0, 5_000, "no subscription");
      const a = wsSubscriber(t.url, t.headers("acme-key"));
      const b = wsSubscriber(t.url, t.headers("globex-key"));
      await Promise.all([prime(t, a, { buyerCompanyId: refs.acme }), prime(t, b, { buyerCompanyId: refs.globex })]);
      expect(await numsub()).toBe(1);
      await a.close();
      await sleep(100);
      expect(await numsub()).toBe(1);
      await b.close();
      await waitFor(async () => (await numsub()) === 0, 5_000, "the subscription to be dropped");
    } finally {
      redis.disconnect();
    }
  });
});

describe("workOrderEvents over SSE", () => {
  it("streams events as text/event-stream on /graphql", async () => {
    const sub = sseSubscriber(t.url, t.headers("acme-key"), { wo: workOrderId });
    try {
      const response = await sub.response;
      expect(response.status).toBe(200);
      expect(response.contentType).toContain("text/event-stream");
      await prime(t, sub, { buyerCompanyId: refs.acme }, { workOrderId });
      await write("workorder.new_note", note("Over SSE"));
      const [event] = await waitFor(() => sub.real().length > 0 && sub.real());
      expect(event).toMatchObject({
        eventType: "workorder.new_note",
        workOrderId,
        data: { newNote: "Over SSE", addedBy: "Alice Admin" },
      });
      expect(sub.errors).toEqual([]);
    } finally {
      await sub.close();
    }
  });

  it("answers 401 without a key", async () => {
    const sub = sseSubscriber(t.url, {});
    expect((await sub.response).status).toBe(401);
    await sub.close();
  });
});

describe("any instance serves any subscriber", () => {
  it("a subscriber on an API-only instance receives an event relayed by another instance's worker", async () => {
    const apiOnly = await startApp(
      { ...t.config, roles: { api: true, worker: false } },
      { db: t.db, logger: silentLogger() },
    );
    const sub = wsSubscriber(`http://127.0.0.1:${apiOnly.port}`, t.headers("acme-key"), { wo: workOrderId });
    try {
      await prime(t, sub, { buyerCompanyId: refs.acme }, { workOrderId });
      await write("workorder.new_note", note("Relayed by instance A"));
      const [event] = await waitFor(() => sub.real().length > 0 && sub.real());
      expect(event.data.newNote).toBe("Relayed by instance A");
    } finally {
      await sub.close();
      await apiOnly.close();
    }
  });
});
