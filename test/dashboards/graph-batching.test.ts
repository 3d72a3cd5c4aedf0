// The dashboard graph is batched: a deep board query (supplier and its company, problem type, location
// and region, asset, labels, the last three notes, status history) sends as many SQL statements for a
// page of 25 work orders as for a page of one, counted on the app's own database pool.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ countStatements: true });
  const { refs } = t.fixture;
  for (let i = 0; i < 25; i++) {
    const wo = await acmeWorkOrder(t, { title: `Board row ${i}` });
    await t.db.workOrder.update({ where: { id: wo.id }, data: { assetId: refs["rtu-1"] } });
    await t.db.workOrderLabelLink.create({ data: { workOrderId: wo.id, labelId: refs.urgent } });
    await t.db.workOrderStatusChange.create({
      data: {
        workOrderId: wo.id,
        to: "ConfirmedByServiceProvider",
        action: "confirm",
        actor: "Bob",
        actorKind: "supplier",
        at: new Date(),
      },
    });
    await t.db.workOrderNote.createMany({
      data: [1, 2, 3, 4].map((n) => ({
        workOrderId: wo.id,
        text: `note ${n} of ${i}`,
        noteAddedBy: "alice@acme.example",
        noteAddedAt: new Date(Date.UTC(2026, 0, 1, 0, n)),
      })),
    });
  }
});
afterAll(() => t?.close());

const BOARD = `query Board($limit: Int) {
  workOrders(limit: $limit) {
    count
    data {
      id title status
      supplierFacility { name company { name } }
      problemType { name }
      location { name region { name } }
      asset { name }
      labels { totalCount edges { node { label { name color } } } }
      notes(last: 3) { totalCount edges { cursor node { text } } }
      statusChanges { to at }
    }
  }
}`;

/** Statements the app sent for one request (made once before, so one-off work is not counted). */
async function statementsFor(limit: number, query = BOARD) {
  await t.graphql("acme-key", query, { limit });
  const before = t.statements!.statements;
  const reply = await t.graphql("acme-key", query, { limit });
  return { reply, statements: t.statements!.statements - before };
}

describe("the board query", () => {
  it("answers every relation of a row in one request", async () => {
    const { reply } = await statementsFor(1);
    expect(reply.body.errors).toBeUndefined();
    const [row] = reply.body.data.workOrders.data;
    expect(row.supplierFacility).toEqual({ name: "CoolCo Portland", company: { name: "CoolCo Mechanical" } });
    expect(row.problemType).toEqual({ name: "HVAC - Not cooling" });
    expect(row.location).toEqual({ name: "Store 1 Portland", region: { name: "West" } });
    expect(row.asset).toEqual({ name: "Rooftop unit 1" });
    expect(row.labels).toEqual({ totalCount: 1, edges: [{ node: { label: { name: "Urgent", color: "#f57c00" } } }] });
    expect(row.notes.totalCount).toBe(4);
    expect(row.notes.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual([
      expect.stringMatching(/^note 2 of/),
      expect.stringMatching(/^note 3 of/),
      expect.stringMatching(/^note 4 of/),
    ]);
    expect(row.statusChanges).toHaveLength(1);
  });

  it("sends the same number of SQL statements for 1 row and for 25", async () => {
    const one = await statementsFor(1);
    const page = await statementsFor(25);
    expect(one.reply.body.data.workOrders.data).toHaveLength(1);
    expect(page.reply.body.data.workOrders.data).toHaveLength(25);
    expect(
      page.reply.body.data.workOrders.data.every(
        (row: { notes: { edges: unknown[] } }) => row.notes.edges.length === 3,
      ),
    ).toBe(true);
    expect(one.statements).toBeGreaterThan(0);
    expect(page.statements).toBe(one.statements);
  });

  it("stays constant through connections whose rows have relations of their own", async () => {
    const { refs } = t.fixture;
    const other = await acmeWorkOrder(t, { title: "At store 2" });
    await t.db.workOrder.update({ where: { id: other.id }, data: { locationId: refs["store-2"] } });
    const SITES = `query Sites($limit: Int) { locations(limit: $limit) { data {
      name region { name }
      assets { totalCount edges { node { name assetType { name } } } }
      workOrders(first: 5) { totalCount edges { node { id problemType { name } supplierFacility { name } labels { totalCount } } } }
    } } }`;
    const one = await statementsFor(1, SITES);
    const both = await statementsFor(2, SITES);
    expect(one.reply.body.errors).toBeUndefined();
    expect(
      both.reply.body.data.locations.data.map((l: { workOrders: { totalCount: number } }) => l.workOrders.totalCount),
    ).toEqual([25, 1]);
    expect(both.statements).toBe(one.statements);
  });
});
