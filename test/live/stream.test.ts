// The live stream over real websockets and SSE (docs/events.md, "Subscriptions"): resume at the seam
// under concurrent writes, filters, typed events with masking, two API instances, SSE ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeEvent, type EventType } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "../support/app.ts";
import { increasing, sseSubscribe, startLiveApp, subscribe, type Subscriber } from "./client.ts";
import { waitFor } from "../support/wait.ts";

let t: TestApp;
let refs: Record<string, number>;

beforeAll(async () => {
  t = await startLiveApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

async function head(key = "acme-key"): Promise<string> {
  const reply = await t.graphql(key, "{ workOrderEventsHead }");
  return reply.body.data.workOrderEventsHead;
}

/** A work order created over REST by acme (workorder.create for acme, and for coolco-pdx while it waits for it). */
async function createWorkOrder(fields: Record<string, unknown> = {}, base = t.url): Promise<number> {
  const response = await fetch(`${base}/v1/buyer/work_order/work_orders`, {
    method: "POST",
    headers: { ...t.headers("acme-key"), "content-type": "application/json" },
    body: JSON.stringify({
      title: "Walk-in cooler warm",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
      ...fields,
    }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data.id;
}

/** A note on the root thread (workorder.new_note for acme and the assigned supplier). */
async function addNote(id: number, text: string) {
  const reply = await t.call("acme-key", "PATCH", "/v1/buyer/work_order/work_orders/append_notes", {
    id,
    note: { text, noteAddedBy: "alice@acme.example" },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

const confirm = (id: number) => t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/confirm", { id });

/** A status update or note written straight to the outbox, as a change's transaction writes it. */
async function writeDirect(workOrderId: number, n: number) {
  const eventType: EventType = n % 3 === 0 ? "workorder.new_note" : "workorder.status_update";
  const at = new Date().toISOString();
  const data =
    eventType === "workorder.new_note"
      ? { newNote: `note ${n}`, addedBy: "Alice Admin", addedAt: at }
      : {
          oldStatus: "PendingConfirmationByServiceProvider" as const,
          newStatus: "ConfirmedByServiceProvider" as const,
          changedBy: "Bob Tech",
          changedAt: at,
          action: "confirm",
        };
  await t.db.$transaction((tx) =>
    writeEvent(
      tx,
      eventType,
      {
        workOrderId,
        buyerCompanyId: refs.acme,
        customer: "Acme Foods",
        location: "Store 1 Portland",
        locationId: refs["store-1"],
        supplierFacilityId: refs["coolco-pdx"],
        visibleToSupplierFacilityIds: [],
        status: "ConfirmedByServiceProvider",
      },
      data,
    ),
  );
}

const closeAll = (subs: Subscriber[]) => Promise.all(subs.map((s) => s.close()));

describe("resuming", () => {
  it("gives every event after the id once, in order, at the seam between replay and live, under concurrent writes", async () => {
    const workOrderId = await createWorkOrder();
    const start = await head();
    // The create may be relayed before or after the head was read: only the writers' events count.
    const only = { workOrderId, eventTypes: ["workorder.status_update", "workorder.new_note"] };
    const all = subscribe(t.url, t.headers("acme-key"), { after: start, ...only });
    const writers = 4;
    const perWriter = 40;
    const writing = Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) {
          await writeDirect(workOrderId, w * perWriter + i);
          await new Promise((r) => setTimeout(r, Math.random() * 15));
        }
      }),
    );
    // While the writers go on: one subscriber resumes after an event in the middle; another one
    // resumes after it, drops its connection part way through and resumes again from its last id.
    const middle = await waitFor(() => all.events.length >= 30 && all.events[29].id, 20_000, "30 events");
    const resumed = subscribe(t.url, t.headers("acme-key"), { after: middle, ...only });
    const first = subscribe(t.url, t.headers("acme-key"), { after: middle, ...only });
    await waitFor(() => first.events.length >= 20, 20_000, "20 events after the middle");
    await first.close();
    const last = first.events.at(-1)!.id;
    const again = subscribe(t.url, t.headers("acme-key"), { after: last, ...only });
    await writing;
    const total = writers * perWriter;
    try {
      await waitFor(() => all.events.length >= total, 20_000, "every event");
      const idsAfter = (s: Subscriber, id: string) => s.ids().filter((n) => n > Number(id));
      await waitFor(() => resumed.ids().at(-1) === all.ids().at(-1), 10_000, "the resumed subscriber to catch up");
      await waitFor(() => again.ids().at(-1) === all.ids().at(-1), 10_000, "the reconnected one to catch up");
      expect(all.events).toHaveLength(total);
      expect(increasing(all.ids())).toBe(true);
      expect(resumed.ids()).toEqual(idsAfter(all, middle));
      expect([...first.ids(), ...again.ids()]).toEqual(
        idsAfter(all, middle).slice(0, first.events.length + again.events.length),
      );
      expect(again.ids()).toEqual(idsAfter(all, last));
      for (const s of [all, resumed, first, again]) expect(s.errors).toEqual([]);
    } finally {
      await closeAll([all, resumed, again]);
    }
  });

  it("refuses an id from the future and one older than the retention window (re-sync by listing)", async () => {
    const workOrderId = await createWorkOrder();
    const sub = subscribe(t.url, t.headers("acme-key"), { after: await head(), workOrderId });
    await confirm(workOrderId);
    const [event] = await waitFor(() => sub.events.length > 0 && sub.events, 10_000, "the confirmation");
    await sub.close();
    const future = subscribe(t.url, t.headers("acme-key"), { after: String(Number(await head()) + 1000) });
    const aged = await t.db
      .$executeRaw`UPDATE "OutboxEvent" SET "relayedAt" = now() - interval '25 hours' WHERE seq >= ${Number(event.id)}`;
    expect(aged).toBeGreaterThan(0);
    const old = subscribe(t.url, t.headers("acme-key"), { after: event.id });
    try {
      await waitFor(() => future.errors.length > 0 && old.errors.length > 0, 10_000, "both refusals");
      expect(future.errors[0].extensions).toMatchObject({ code: "invalidInputDataException", field: "after" });
      expect(old.errors[0].extensions.code).toBe("EventsExpiredException");
      expect(old.errors[0].message).toMatch(/older than the 24 h .* re-sync by listing/);
      expect(old.events).toEqual([]);
    } finally {
      await t.db
        .$executeRaw`UPDATE "OutboxEvent" SET "relayedAt" = now() WHERE "relayedAt" < now() - interval '1 hour'`;
      await closeAll([future, old]);
    }
  });
});

describe("filters", () => {
  it("narrow by location, status, supplier facility, event type and work order, combined", async () => {
    const start = await head();
    const subs = {
      store2: subscribe(t.url, t.headers("acme-key"), { after: start, locationIds: [refs["store-2"]] }),
      confirmed: subscribe(t.url, t.headers("acme-key"), { after: start, statuses: ["ConfirmedByServiceProvider"] }),
      pdxUpdates: subscribe(t.url, t.headers("acme-key"), {
        after: start,
        supplierFacilityIds: [refs["coolco-pdx"]],
        eventTypes: ["workorder.status_update"],
      }),
      sea: subscribe(t.url, t.headers("acme-key"), { after: start, supplierFacilityIds: [refs["coolco-sea"]] }),
      all: subscribe(t.url, t.headers("acme-key"), { after: start }),
    };
    const atStore1 = await createWorkOrder();
    const atStore2 = await createWorkOrder({ locationId: refs["store-2"] });
    await confirm(atStore1);
    const one = subscribe(t.url, t.headers("acme-key"), {
      after: start,
      workOrderId: atStore1,
      statuses: ["ConfirmedByServiceProvider"],
    });
    try {
      await waitFor(() => subs.all.events.length >= 3, 10_000, "three events");
      await waitFor(() => one.events.length >= 1, 10_000, "the confirmation");
      const seen = (s: Subscriber) => s.events.map((e) => [e.eventType, e.workOrderId]);
      // Everything is relayed: whatever a filtered subscriber has not got by now it will not get.
      await new Promise((r) => setTimeout(r, 300));
      expect(seen(subs.all)).toEqual([
        ["workorder.create", atStore1],
        ["workorder.create", atStore2],
        ["workorder.status_update", atStore1],
      ]);
      expect(seen(subs.store2)).toEqual([["workorder.create", atStore2]]);
      expect(seen(subs.confirmed)).toEqual([["workorder.status_update", atStore1]]);
      expect(seen(subs.pdxUpdates)).toEqual([["workorder.status_update", atStore1]]);
      expect(seen(subs.sea)).toEqual([]);
      expect(seen(one)).toEqual([["workorder.status_update", atStore1]]);
    } finally {
      await closeAll([...Object.values(subs), one]);
    }
  });
});

describe("typed events", () => {
  it("carry the work order as each key may see it: buyer unmasked, third-party supplier masked, other tenants nothing", async () => {
    const fields =
      "id eventType workOrderId occurredAt oldStatus newStatus changedBy note workOrder { id title status glCode } data";
    const start = await head();
    const buyer = subscribe(t.url, t.headers("acme-key"), { after: start }, fields);
    const supplier = subscribe(t.url, t.headers("coolco-key"), { after: start }, fields);
    const otherBuyer = subscribe(t.url, t.headers("globex-key"), { after: start }, fields);
    const otherSupplier = subscribe(t.url, t.headers("unrelated-supplier-key"), { after: start }, fields);
    const id = await createWorkOrder({ title: "Typed event" });
    await t.db.workOrder.update({ where: { id }, data: { glCode: "GL-7" } });
    await confirm(id);
    await addNote(id, "Gate code 4321");
    try {
      await waitFor(() => buyer.events.length >= 3 && supplier.events.length >= 3, 10_000, "three events each");
      const confirmation = (s: Subscriber) => s.events.find((e) => e.eventType === "workorder.status_update")!;
      expect(confirmation(buyer)).toMatchObject({
        workOrderId: id,
        oldStatus: "PendingConfirmationByServiceProvider",
        newStatus: "ConfirmedByServiceProvider",
        changedBy: expect.any(String),
        note: null,
        workOrder: { id, title: "Typed event", status: expect.any(String), glCode: "GL-7" },
      });
      expect(Date.parse(confirmation(buyer).occurredAt as string)).not.toBeNaN();
      expect(confirmation(buyer).data).toMatchObject({ workOrderId: id, newStatus: "ConfirmedByServiceProvider" });
      expect(confirmation(supplier).workOrder).toEqual({
        id,
        title: "Typed event",
        status: expect.any(String),
        glCode: null,
      });
      expect(confirmation(supplier).data.customer).toBe("Acme Foods");
      const note = buyer.events.find((e) => e.eventType === "workorder.new_note")!;
      expect(note).toMatchObject({ note: "Gate code 4321", newStatus: null });
      await new Promise((r) => setTimeout(r, 300));
      expect(otherBuyer.events).toEqual([]);
      expect(otherSupplier.events).toEqual([]);
      for (const s of [buyer, supplier, otherBuyer, otherSupplier]) expect(s.errors).toEqual([]);
    } finally {
      await closeAll([buyer, supplier, otherBuyer, otherSupplier]);
    }
  });
});

describe("two API instances", () => {
  it("an event written through one instance reaches a subscriber of the other", async () => {
    const second = await t.secondInstance();
    const start = await head();
    const onFirst = subscribe(t.url, t.headers("acme-key"), { after: start });
    const onSecond = subscribe(second.url, t.headers("acme-key"), { after: start });
    try {
      const viaSecond = await createWorkOrder({ title: "Through the second instance" }, second.url);
      const viaFirst = await createWorkOrder({ title: "Through the first instance" });
      for (const s of [onFirst, onSecond]) {
        await waitFor(() => s.events.length >= 2, 10_000, "both creates");
        expect(s.events.map((e) => e.workOrderId)).toEqual([viaSecond, viaFirst]);
      }
    } finally {
      await closeAll([onFirst, onSecond]);
      await second.close();
    }
  });
});

describe("server-sent events", () => {
  it("send each event's id as `id:` and resume after Last-Event-ID", async () => {
    const workOrderId = await createWorkOrder();
    const start = await head();
    const first = sseSubscribe(t.url, t.headers("acme-key"), { after: start, workOrderId });
    await confirm(workOrderId);
    await waitFor(
      () => first.frames.some((f) => f.event.eventType === "workorder.status_update"),
      10_000,
      "the confirmation",
    );
    first.close();
    for (const frame of first.frames) expect(frame.id).toBe(frame.event.id);
    const lastId = first.frames.at(-1)!.id!;
    await addNote(workOrderId, "While away");
    const resumed = sseSubscribe(t.url, { ...t.headers("acme-key"), "Last-Event-ID": lastId }, { workOrderId });
    try {
      await waitFor(() => resumed.frames.length >= 1, 10_000, "the note written while away");
      expect(resumed.frames.map((f) => [f.event.eventType, f.event.data.newNote])).toEqual([
        ["workorder.new_note", "While away"],
      ]);
      expect(Number(resumed.frames[0].id)).toBeGreaterThan(Number(lastId));
      expect([...first.errors, ...resumed.errors]).toEqual([]);
    } finally {
      resumed.close();
    }
  });
});
