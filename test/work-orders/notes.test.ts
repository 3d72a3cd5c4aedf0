// Work order notes from outside: PATCH append_notes (note rules, taggedUsers), PATCH append_notes/bulk
// (photo rules, one grouped event), GET work_order_notes (root thread only, read marking, denied reads
// as empty lists), with nothing persisted whenever a write is refused.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, withReadOnlyKey, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
const wo: Record<string, number> = {};
const APPEND = "/v1/buyer/work_order/work_orders/append_notes";
const BULK = "/v1/buyer/work_order/work_orders/append_notes/bulk";
const notesPath = (iface: "buyer" | "supplier", id: number) => `/v1/${iface}/work_order/work_order_notes/${id}`;
const note = (extra: Record<string, unknown> = {}) => ({
  text: "Compressor replaced",
  noteAddedBy: "alice@acme.example",
  ...extra,
});

/** Rows a refused write must leave untouched. */
const snapshot = async () => ({
  notes: await t.db.workOrderNote.count(),
  subscribers: await t.db.workOrderSubscriber.count(),
  outbox: await t.db.outboxEvent.count(),
});
const subscribersOf = async (workOrderId: number) =>
  (await t.db.workOrderSubscriber.findMany({ where: { workOrderId }, orderBy: { email: "asc" } })).map((s) => s.email);

async function expectRefused(method: string, path: string, body: unknown, key = "acme-key", message?: string) {
  const before = await snapshot();
  const reply = await t.call(key, method, path, body);
  expect(reply.status, JSON.stringify(body)).toBe(400);
  expect(reply.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
  if (message) expect(reply.body.message).toContain(message);
  expect(await snapshot(), JSON.stringify(body)).toEqual(before);
  return reply;
}

beforeAll(async () => {
  t = await startTestApp({ fixture: withReadOnlyKey() }); // plus a read-only Acme key
  refs = t.fixture.refs;
  const base = {
    buyerCompanyId: refs.acme,
    buyerFacilityId: refs["acme-hq"],
    locationId: refs["store-1"],
    problemTypeId: refs.hvac,
    createdBy: "alice@acme.example",
    statusChangedAt: new Date(),
  };
  const create = async (ref: string, data: Record<string, unknown>) =>
    (wo[ref] = (await t.db.workOrder.create({ data: { ...base, ...data } as never })).id);
  await create("assigned", {
    title: "Cooler warm",
    status: "PendingConfirmationByServiceProvider",
    supplierFacilityId: refs["coolco-pdx"],
  });
  await create("pending", {
    title: "Needs approval",
    status: "PendingApproval",
    supplierFacilityId: refs["coolco-pdx"],
  });
  await create("thread", {
    title: "Thread to read",
    status: "ConfirmedByServiceProvider",
    supplierFacilityId: refs["coolco-pdx"],
  });
  await create("globex", {
    title: "Globex order",
    status: "Unassigned",
    buyerCompanyId: refs.globex,
    buyerFacilityId: refs["globex-hq"],
    locationId: refs["g-store"],
    problemTypeId: (await t.db.problemType.create({ data: { buyerCompanyId: refs.globex, name: "General" } })).id,
  });
});
afterAll(() => t?.close());

describe("PATCH append_notes", () => {
  it("appends to the root thread with the server's time, subscribes the author and writes one new_note event", async () => {
    const started = Date.now();
    const reply = await t.call("acme-key", "PATCH", APPEND, {
      id: wo.assigned,
      note: note({
        noteAddedAt: "2001-01-01T00:00:00Z",
        photo: "https://files.example/a.jpg",
        noteAddedBy: "  Alice@Acme.example ",
      }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "WorkOrderNote",
      status: "ok",
      data: {
        workOrderId: wo.assigned,
        text: "Compressor replaced",
        noteAddedBy: "alice@acme.example",
        photo: "https://files.example/a.jpg",
        video: null,
        elements: [],
      },
    });
    const addedAt = Date.parse(reply.body.data.noteAddedAt);
    expect(addedAt).toBeGreaterThanOrEqual(started - 1000);
    expect(addedAt).toBeLessThanOrEqual(Date.now() + 1000);
    const stored = await t.db.workOrderNote.findUniqueOrThrow({ where: { id: reply.body.data.id } });
    expect(stored.thread).toBe("root");
    expect(await subscribersOf(wo.assigned)).toEqual(["alice@acme.example"]);
    const events = await t.db.outboxEvent.findMany({
      where: { workOrderId: wo.assigned, eventType: "workorder.new_note" },
    });
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      newNote: "Compressor replaced",
      photo: "https://files.example/a.jpg",
      addedBy: "Alice Admin",
    });
    // The note is searchable at once.
    const found = await t.call("acme-key", "GET", "/v1/buyer/work_order/work_orders?search=compressor");
    expect(found.body.data.map((w: { id: number }) => w.id)).toEqual([wo.assigned]);
  });

  it("requires a note with text and an email noteAddedBy, persisting nothing otherwise", async () => {
    for (const body of [
      { id: wo.assigned },
      { id: wo.assigned, note: "text" },
      { id: wo.assigned, note: [note()] },
      { id: wo.assigned, note: { noteAddedBy: "alice@acme.example" } },
      { id: wo.assigned, note: note({ text: "   " }) },
      { id: wo.assigned, note: note({ text: 7 }) },
      { id: wo.assigned, note: { text: "hello" } },
      { id: wo.assigned, note: note({ noteAddedBy: "Alice Admin" }) },
      { id: wo.assigned, note: note({ elements: "x" }) },
      { id: wo.assigned, note: note({ video: 5 }) },
      { note: note() },
      { id: "abc", note: note() },
    ])
      await expectRefused("PATCH", APPEND, body);
  });

  it("gives the same 400 for an unknown, a foreign and a denied work order", async () => {
    const unknown = await expectRefused("PATCH", APPEND, { id: 999_999, note: note() });
    const foreign = await expectRefused("PATCH", APPEND, { id: wo.globex, note: note() });
    const denied = await expectRefused(
      "PATCH",
      APPEND,
      { id: wo.assigned, note: note({ noteAddedBy: "rita@acme.example" }) },
      "acme-readonly-key",
    );
    expect(foreign.body.message.replace(String(wo.globex), "N")).toBe(unknown.body.message.replace("999999", "N"));
    expect(denied.body.message.replace(String(wo.assigned), "N")).toBe(unknown.body.message.replace("999999", "N"));
    // Supplier keys have no append path.
    expect(
      (
        await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/append_notes", {
          id: wo.assigned,
          note: note(),
        })
      ).status,
    ).toBe(404);
  });
});

describe("taggedUsers", () => {
  beforeEach(async () => {
    await t.db.workOrderSubscriber.deleteMany({ where: { workOrderId: wo.assigned } });
  });

  it("trims, lowercases and de-duplicates, skips users already in elements, folds the rest in as user elements and subscribes them", async () => {
    const reply = await t.call("acme-key", "PATCH", APPEND, {
      id: wo.assigned,
      note: note({
        elements: [
          { type: "text", value: "see" },
          { type: "user", email: "Carol@Acme.example" },
        ],
      }),
      taggedUsers: [" Dan@Acme.example ", "dan@acme.example", "carol@acme.example", "erin@coolco.example"],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.elements).toEqual([
      { type: "text", value: "see" },
      { type: "user", email: "Carol@Acme.example" },
      { type: "user", email: "dan@acme.example" },
      { type: "user", email: "erin@coolco.example" },
    ]);
    expect(await subscribersOf(wo.assigned)).toEqual([
      "alice@acme.example",
      "carol@acme.example",
      "dan@acme.example",
      "erin@coolco.example",
    ]);
  });

  it("ignores an empty list", async () => {
    const reply = await t.call("acme-key", "PATCH", APPEND, { id: wo.assigned, note: note(), taggedUsers: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.data.elements).toEqual([]);
    expect(await subscribersOf(wo.assigned)).toEqual(["alice@acme.example"]);
  });

  it("accepts 25 and refuses 26, an invalid email or a non-list, persisting nothing", async () => {
    const emails = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@acme.example`);
    expect(
      (await t.call("acme-key", "PATCH", APPEND, { id: wo.assigned, note: note(), taggedUsers: emails(25) })).status,
    ).toBe(200);
    await t.db.workOrderSubscriber.deleteMany({ where: { workOrderId: wo.assigned } });
    await expectRefused("PATCH", APPEND, { id: wo.assigned, note: note(), taggedUsers: emails(26) }, "acme-key", "25");
    await expectRefused(
      "PATCH",
      APPEND,
      { id: wo.assigned, note: note(), taggedUsers: ["ok@acme.example", "not-an-email"] },
      "acme-key",
      "not-an-email",
    );
    for (const taggedUsers of [
      ["a@b"],
      [""],
      [" "],
      [42],
      [null],
      ["two words@acme.example"],
      "dan@acme.example",
      { email: "dan@acme.example" },
    ]) {
      await expectRefused("PATCH", APPEND, { id: wo.assigned, note: note(), taggedUsers });
    }
    expect(await subscribersOf(wo.assigned)).toEqual([]);
  });

  it("needs a note object", async () => {
    await expectRefused("PATCH", APPEND, { id: wo.assigned, taggedUsers: ["dan@acme.example"] }, "acme-key", "note");
    await expectRefused("PATCH", APPEND, { id: wo.assigned, taggedUsers: [] }, "acme-key", "note");
  });
});

describe("PATCH append_notes/bulk", () => {
  const photos = (n: number) => Array.from({ length: n }, (_, i) => ({ photo: `https://files.example/p${i}.jpg` }));

  it("appends photo notes in the sent order with one noteAddedAt and one grouped event", async () => {
    const sent = [
      { photo: "https://files.example/z.jpg" },
      { photo: "https://files.example/a.jpg", text: "" },
      { photo: "https://files.example/m.jpg", noteAddedBy: "Ops@Acme.example" },
    ];
    const before = await t.db.outboxEvent.count({ where: { workOrderId: wo.thread } });
    const reply = await t.call("acme-key", "PATCH", BULK, { id: wo.thread, notes: sent });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ type: "WorkOrderNote", status: "ok", count: 3 });
    const data = reply.body.data as { photo: string; text: string; noteAddedAt: string; noteAddedBy: string }[];
    expect(data.map((n) => n.photo)).toEqual(sent.map((n) => n.photo));
    expect(new Set(data.map((n) => n.noteAddedAt)).size).toBe(1);
    expect(data.map((n) => n.noteAddedBy)).toEqual(["alice@acme.example", "alice@acme.example", "ops@acme.example"]);
    expect(data.every((n) => n.text === "")).toBe(true);
    const events = await t.db.outboxEvent.findMany({
      where: { workOrderId: wo.thread, eventType: "workorder.new_note" },
    });
    expect(events.length - before).toBe(1);
    expect(events.at(-1)!.payload).toMatchObject({ newNote: "", photos: sent.map((n) => n.photo) });
    expect(await subscribersOf(wo.thread)).toEqual(["alice@acme.example", "ops@acme.example"]);
    // The thread reads them back in the sent order.
    const thread = await t.call("acme-key", "GET", `${notesPath("buyer", wo.thread)}?limit=25`);
    expect(thread.body.data.slice(-3).map((n: { photo: string }) => n.photo)).toEqual(sent.map((n) => n.photo));
  });

  it("takes 1 to 25 notes", async () => {
    expect((await t.call("acme-key", "PATCH", BULK, { id: wo.assigned, notes: photos(25) })).body.count).toBe(25);
    for (const notes of [
      [],
      photos(26),
      undefined,
      "https://files.example/x.jpg",
      { photo: "https://files.example/x.jpg" },
    ]) {
      await expectRefused("PATCH", BULK, { id: wo.assigned, notes });
    }
  });

  it("refuses a note that is not exactly one photo, and a repeated photo, persisting nothing", async () => {
    const url = "https://files.example/only.jpg";
    for (const bad of [
      { text: "caption", photo: url },
      { photo: url, video: "https://files.example/v.mp4" },
      { photo: url, audio: "https://files.example/a.mp3" },
      { photo: url, otherFile: "https://files.example/f.pdf" },
      { photo: url, elements: [{ type: "user", email: "dan@acme.example" }] },
      { text: "no photo" },
      { photo: "" },
      { photo: 3 },
      "photo",
      { photo: url, noteAddedBy: "nobody" },
    ]) {
      await expectRefused("PATCH", BULK, {
        id: wo.assigned,
        notes: [{ photo: "https://files.example/first.jpg" }, bad],
      });
    }
    await expectRefused(
      "PATCH",
      BULK,
      { id: wo.assigned, notes: [{ photo: url }, { photo: "https://files.example/b.jpg" }, { photo: url }] },
      "acme-key",
      "repeats",
    );
  });

  it("needs write permission and a work order in scope", async () => {
    await expectRefused("PATCH", BULK, { id: wo.globex, notes: photos(1) });
    await expectRefused("PATCH", BULK, { id: 999_999, notes: photos(1) });
    await expectRefused("PATCH", BULK, { id: wo.assigned, notes: photos(1) }, "acme-readonly-key");
  });
});

describe("GET work_order_notes", () => {
  const readAt = async (workOrderId: number, email: string) => {
    const contact = await t.db.contact.findFirstOrThrow({ where: { email } });
    return (
      (await t.db.workOrderThreadRead.findFirst({ where: { workOrderId, contactId: contact.id, thread: "root" } }))
        ?.readAt ?? null
    );
  };

  beforeAll(async () => {
    // Root notes out of insertion order in time, with two sharing a time (ordered by id), and notes of other threads.
    const at = (m: number) => new Date(Date.UTC(2026, 2, 1, 10, m));
    const rows = [
      { text: "third", noteAddedAt: at(30) },
      { text: "first", noteAddedAt: at(10) },
      { text: "second-a", noteAddedAt: at(20) },
      { text: "second-b", noteAddedAt: at(20) },
      ...Array.from({ length: 8 }, (_, i) => ({ text: `later ${i}`, noteAddedAt: at(40 + i) })),
    ];
    const thread = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        createdBy: "x@acme.example",
        title: "Read me",
        status: "ConfirmedByServiceProvider",
        supplierFacilityId: refs["coolco-pdx"],
        statusChangedAt: new Date(),
      },
    });
    wo.read = thread.id;
    for (const row of rows)
      await t.db.workOrderNote.create({ data: { ...row, workOrderId: wo.read, noteAddedBy: "x@acme.example" } });
    await t.db.workOrderNote.createMany({
      data: [
        {
          workOrderId: wo.read,
          thread: "contractor",
          text: "sub-contractor talk",
          noteAddedBy: "x@coolco.example",
          noteAddedAt: at(0),
        },
        {
          workOrderId: wo.read,
          thread: "internal",
          text: "internal talk",
          noteAddedBy: "x@acme.example",
          noteAddedAt: at(0),
        },
      ],
    });
    await t.db.workOrderNote.create({
      data: { workOrderId: wo.pending, text: "pending note", noteAddedBy: "x@acme.example", noteAddedAt: at(0) },
    });
  });

  it("returns the root thread oldest first, paged, without contractor or internal notes", async () => {
    const reply = await t.call("acme-key", "GET", notesPath("buyer", wo.read));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "WorkOrderNote", status: "ok", count: 12 });
    const texts = reply.body.data.map((n: { text: string }) => n.text);
    expect(texts).toHaveLength(10);
    expect(texts.slice(0, 5)).toEqual(["first", "second-a", "second-b", "third", "later 0"]);
    const rest = await t.call("acme-key", "GET", `${notesPath("buyer", wo.read)}?offset=10`);
    expect(rest.body.data.map((n: { text: string }) => n.text)).toEqual(["later 6", "later 7"]);
    const all = await t.call("acme-key", "GET", `${notesPath("buyer", wo.read)}?limit=25`);
    expect(all.body.data.map((n: { text: string }) => n.text)).not.toContain("sub-contractor talk");
    expect(all.body.data.map((n: { text: string }) => n.text)).not.toContain("internal talk");
    expect(all.body.data[0]).toEqual(
      expect.objectContaining({ workOrderId: wo.read, noteAddedBy: "x@acme.example", photo: null, elements: [] }),
    );
  });

  it("marks the thread read for the caller's contact, again on every read", async () => {
    await t.db.workOrderThreadRead.deleteMany({});
    expect(await readAt(wo.read, "alice@acme.example")).toBeNull();
    await t.call("acme-key", "GET", notesPath("buyer", wo.read));
    const first = await readAt(wo.read, "alice@acme.example");
    expect(first).not.toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    await t.call("acme-key", "GET", notesPath("buyer", wo.read));
    expect((await readAt(wo.read, "alice@acme.example"))!.getTime()).toBeGreaterThan(first!.getTime());
    // Concurrent reads by one contact do not collide.
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => t.call("acme-key", "GET", notesPath("buyer", wo.read))),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("serves suppliers the threads of work orders in their scope, third-party and internal team alike", async () => {
    const reply = await t.call("coolco-key", "GET", notesPath("supplier", wo.read));
    expect(reply.body.count).toBe(12);
    expect(await readAt(wo.read, "bob@coolco.example")).not.toBeNull();
    const inhouseWo = await t.db.workOrder.update({
      where: { id: wo.read },
      data: { supplierFacilityId: refs["inhouse-west"] },
    });
    expect((await t.call("inhouse-key", "GET", notesPath("supplier", inhouseWo.id))).body.count).toBe(12);
    await t.db.workOrder.update({ where: { id: wo.read }, data: { supplierFacilityId: refs["coolco-pdx"] } });
  });

  it("answers a denied or unknown work order with an empty list and marks nothing", async () => {
    const denied: [string, "buyer" | "supplier", number, string][] = [
      ["globex-key", "buyer", wo.read, "gina@globex.example"],
      ["acme-key", "buyer", wo.globex, "alice@acme.example"],
      ["coolco-key", "supplier", wo.pending, "bob@coolco.example"],
      ["unrelated-supplier-key", "supplier", wo.read, "sam@coolco.example"],
      ["inhouse-key", "supplier", wo.read, "ivy@acme.example"],
      ["acme-key", "buyer", 999_999, "alice@acme.example"],
    ];
    await t.db.workOrderThreadRead.deleteMany({});
    for (const [key, iface, id, email] of denied) {
      const reply = await t.call(key, "GET", notesPath(iface, id));
      expect(reply.status, `${key} ${id}`).toBe(200);
      expect(reply.body, `${key} ${id}`).toMatchObject({ data: [], count: 0, status: "ok" });
      if (id !== 999_999) expect(await readAt(id, email), `${key} ${id}`).toBeNull();
    }
    // The pending work order does have a note: the buyer sees it.
    expect((await t.call("acme-key", "GET", notesPath("buyer", wo.pending))).body.count).toBe(1);
  });

  it("rejects a non-numeric id and bad paging like other lists", async () => {
    expect((await t.call("acme-key", "GET", notesPath("buyer", wo.read).replace(/\d+$/, "abc"))).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${notesPath("buyer", wo.read)}?limit=0`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${notesPath("buyer", wo.read)}?thread=contractor`)).status).toBe(400);
  });
});
