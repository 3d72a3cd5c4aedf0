// GraphQL reads never write: reading a work order's notes over GraphQL (the root field or the relation)
// leaves no read mark; REST's GET keeps the contract and marks the thread read; the GraphQL-only
// mutation markWorkOrderNotesRead marks it, for work orders the key may read only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";

let t: TestApp;
let woId: number;
beforeAll(async () => {
  t = await startTestApp();
  woId = (await acmeWorkOrder(t)).id;
  await t.db.workOrderNote.create({
    data: { workOrderId: woId, text: "Unit replaced", noteAddedBy: "bob@coolco.example", noteAddedAt: new Date() },
  });
});
afterAll(() => t?.close());

/** The read marks of the work order's root thread, by contact email. */
async function readMarks() {
  const marks = await t.db.workOrderThreadRead.findMany({ where: { workOrderId: woId, thread: "root" } });
  const contacts = await t.db.contact.findMany({ where: { id: { in: marks.map((m) => m.contactId) } } });
  return contacts.map((c) => c.email).sort();
}

const MARK = `mutation($id: Int!) { markWorkOrderNotesRead(workOrderId: $id) }`;

describe("reading notes", () => {
  it("over GraphQL writes nothing, through the root field or the work order's notes", async () => {
    const root = await t.graphql("acme-key", `query($id: Int!) { workOrderNotes(woId: $id) { count data { text } } }`, {
      id: woId,
    });
    expect(root.body.data.workOrderNotes).toEqual({ count: 1, data: [{ text: "Unit replaced" }] });
    const related = await t.graphql(
      "coolco-key",
      `query($id: Int!) { workOrder(id: $id) { notes(last: 3) { edges { node { text } } } } }`,
      { id: woId },
    );
    expect(related.body.data.workOrder.notes.edges).toEqual([{ node: { text: "Unit replaced" } }]);
    expect(await readMarks()).toEqual([]);
  });

  it("over REST marks the thread read for the key's contact, as the contract says", async () => {
    const reply = await t.call("acme-key", "GET", `/v1/buyer/work_order/work_order_notes/${woId}`);
    expect(reply.status).toBe(200);
    expect(await readMarks()).toEqual(["alice@acme.example"]);
  });
});

describe("markWorkOrderNotesRead", () => {
  it("marks the root thread read for the key's contact", async () => {
    const reply = await t.graphql("coolco-key", MARK, { id: woId });
    expect(reply.body.errors).toBeUndefined();
    expect(Date.parse(reply.body.data.markWorkOrderNotesRead)).not.toBeNaN();
    expect(await readMarks()).toEqual(["alice@acme.example", "bob@coolco.example"]);
  });

  it("answers a work order of another tenant, or none, with the contract's error and marks nothing", async () => {
    for (const [key, id] of [
      ["globex-key", woId],
      ["acme-key", 999_999_999],
    ] as const) {
      const reply = await t.graphql(key, MARK, { id });
      expect(reply.body.data.markWorkOrderNotesRead).toBeNull();
      expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
      expect(reply.body.errors[0].message).toBe(`no work order ${id} that this key may change`);
    }
    expect(await readMarks()).toEqual(["alice@acme.example", "bob@coolco.example"]);
  });

  it("is not part of any REST interface", async () => {
    const openapi = await t.call(null, "GET", "/v1/buyer/openapi.json");
    expect(JSON.stringify(openapi.body)).not.toContain("markWorkOrderNotesRead");
    expect(JSON.stringify(openapi.body)).toContain("work_order_notes");
  });
});
