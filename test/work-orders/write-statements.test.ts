// A write's transaction holds a pool connection for every statement it sends, and each costs the API a
// round trip (docs/performance.md, "Index lag": the write phase's refusals were transactions waiting on
// the API between statements). A create reads every reference it names in one statement and a note
// checks its authors and subscribes them in one, so the statements a write sends do not grow with what
// the body names: counted here on the app's pool, over HTTP as a client sends them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrderBody } from "../support/work-order-events.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ countStatements: true });
});
afterAll(() => t.close());

const LIST = "/v1/buyer/work_order/work_orders";

/** Statements sent for one call, the announcement after its commit included (it follows the answer). */
async function statementsOf(method: string, path: string, body: unknown) {
  await sleep(50);
  const before = t.statements!.statements;
  const reply = await t.call("acme-key", method, path, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  await sleep(50);
  return { body: reply.body, statements: t.statements!.statements - before };
}

const create = (extra: Record<string, unknown> = {}) =>
  statementsOf("POST", LIST, acmeWorkOrderBody(t.fixture.refs, extra));

describe("statements per write", () => {
  it("a create sends as many with a supplier, an asset and a schedule as without, at most 10", async () => {
    const { refs } = t.fixture;
    await create(); // the first request of a kind prepares its statements
    const plain = await create();
    const named = await create({
      supplierFacilityId: refs["coolco-pdx"],
      assetId: refs["rtu-1"],
      plannedMaintenanceScheduleId: refs["pm-1"],
      woPriority: 4,
    });
    expect(named.body.data).toMatchObject({ supplierFacilityId: refs["coolco-pdx"], assetId: refs["rtu-1"] });
    // BEGIN, the references, the insert, its status entry, the event, the search vector, the answer, the
    // audit entry, COMMIT, and the announcement to the relay.
    expect(plain.statements).toBeLessThanOrEqual(10);
    expect(named.statements).toBe(plain.statements);
  });

  it("a note sends as many as a bulk post of three photos, at most 10", async () => {
    const { body } = await create({ supplierFacilityId: t.fixture.refs["coolco-pdx"] });
    const id = body.data.id as number;
    const note = () =>
      statementsOf("PATCH", `${LIST}/append_notes`, {
        id,
        note: { text: "checked", noteAddedBy: "alice@acme.example" },
        taggedUsers: ["bob@coolco.example"],
      });
    await note();
    const one = await note();
    const photos = await statementsOf("PATCH", `${LIST}/append_notes/bulk`, {
      id,
      notes: ["a", "b", "c"].map((p) => ({ photo: `https://files.example/${p}.jpg` })),
    });
    expect(photos.body.data.map((n: { photo: string }) => n.photo)).toEqual(
      ["a", "b", "c"].map((p) => `https://files.example/${p}.jpg`),
    );
    // BEGIN, the lock, the work order, the notes, the contacts check with the subscriptions, the event,
    // the search vector, the audit entry, COMMIT, and the announcement.
    expect(one.statements).toBeLessThanOrEqual(10);
    expect(photos.statements).toBe(one.statements);
    const subscribers = await t.db.workOrderSubscriber.findMany({
      where: { workOrderId: id },
      orderBy: { email: "asc" },
    });
    expect(subscribers.map((s) => s.email)).toEqual(["alice@acme.example", "bob@coolco.example"]);
  });
});
