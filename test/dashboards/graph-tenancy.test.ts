// Tenancy and masking on every path of the dashboard graph, from outside: a relation reaches only rows
// the key could read through the target's root field (buyer acme, third-party supplier coolco, acme's
// in-house team, and globex, a foreign tenant whose work order points at acme's rows), masked fields stay
// masked through relations, and a page larger than the maximum is a 400-style error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";

let t: TestApp;
/** Assigned to coolco-pdx; assigned to acme's in-house team; the team's, visible to coolco; globex's. */
let coolco: number, inhouse: number, visible: number, foreign: number;

beforeAll(async () => {
  t = await startTestApp();
  const { refs } = t.fixture;
  const secret = { internalNotes: "budget: 900", assetId: refs["rtu-1"] };
  coolco = (await acmeWorkOrder(t, { title: "CoolCo's" })).id;
  inhouse = (await acmeWorkOrder(t, { title: "Team's" })).id;
  visible = (await acmeWorkOrder(t, { title: "Team's, shown to CoolCo" })).id;
  await t.db.workOrder.update({ where: { id: coolco }, data: secret });
  for (const id of [inhouse, visible])
    await t.db.workOrder.update({ where: { id }, data: { ...secret, supplierFacilityId: refs["inhouse-west"] } });
  await t.db.workOrderVisibility.create({ data: { workOrderId: visible, supplierFacilityId: refs["coolco-pdx"] } });
  for (const id of [coolco, inhouse]) {
    await t.db.workOrderLabelLink.create({ data: { workOrderId: id, labelId: refs.urgent } });
    await t.db.workOrderNote.create({
      data: { workOrderId: id, text: "on our way", noteAddedBy: "alice@acme.example", noteAddedAt: new Date() },
    });
  }
  // A globex work order whose references point at acme's rows (as a corrupted or forged row would):
  // every relation must apply the target's scope, never trust the foreign key.
  foreign = (
    await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.globex,
        buyerFacilityId: refs["globex-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Globex's",
        status: "ConfirmedByServiceProvider",
        createdBy: "gina@globex.example",
        supplierFacilityId: refs["coolco-sea"],
        assetId: refs["rtu-1"],
        subAssetIds: [refs["rtu-1"]],
        parentWorkOrderId: coolco,
        statusChangedAt: new Date(),
      },
    })
  ).id;
});
afterAll(() => t?.close());

const ids = (connection: { edges: { node: { id: number } }[] }) => connection.edges.map((e) => e.node.id).sort();

const AROUND = `query($id: Int!) {
  workOrder(id: $id) {
    id internalNotes
    supplierFacility { name company { name } }
    problemType { name }
    asset { name workOrders { totalCount edges { node { id } } } }
    labels { totalCount edges { node { label { name } } } }
    notes { totalCount }
    parts { totalCount }
    proposals { totalCount }
    invoices { totalCount }
    location {
      name internalCode
      workOrders { totalCount edges { node { id internalNotes } } }
    }
  }
}`;

async function around(key: string, id: number) {
  const reply = await t.graphql(key, AROUND, { id });
  expect(reply.status).toBe(200);
  return reply.body;
}

describe("relations from a buyer key", () => {
  it("reach the company's rows, and none of another tenant's pointing at them", async () => {
    const { data, errors } = await around("acme-key", coolco);
    expect(errors).toBeUndefined();
    const wo = data.workOrder;
    expect(wo.supplierFacility).toEqual({ name: "CoolCo Portland", company: { name: "CoolCo Mechanical" } });
    expect(wo.problemType).toEqual({ name: "HVAC - Not cooling" });
    expect(wo.labels).toEqual({ totalCount: 1, edges: [{ node: { label: { name: "Urgent" } } }] });
    expect(wo.notes.totalCount).toBe(1);
    expect(wo.location.internalCode).toBe("PDX-001");
    // globex's work order at store-1 is not acme's to see, through the location or the asset.
    expect(ids(wo.location.workOrders)).toEqual([coolco, inhouse, visible].sort());
    expect(wo.location.workOrders.totalCount).toBe(3);
    expect(ids(wo.asset.workOrders)).toEqual([coolco, inhouse, visible].sort());
    expect(wo.location.workOrders.edges.every((e: any) => e.node.internalNotes === "budget: 900")).toBe(true);
  });
});

describe("relations from a foreign tenant", () => {
  it("answer null or empty for every row of acme, even where globex's own work order points at it", async () => {
    const { data, errors } = await t
      .graphql(
        "globex-key",
        `query($id: Int!) { workOrder(id: $id) {
        id location { name } problemType { name } asset { name } subAssets { name }
        parentWorkOrder { id } supplierFacility { name } labels { totalCount }
      } }`,
        { id: foreign },
      )
      .then((r) => r.body);
    expect(errors).toBeUndefined();
    expect(data.workOrder).toEqual({
      id: foreign,
      location: null,
      problemType: null,
      asset: null,
      subAssets: [],
      parentWorkOrder: null,
      supplierFacility: null,
      labels: { totalCount: 0 },
    });
  });

  it("reads its own location's and asset's work orders without acme's", async () => {
    const { refs } = t.fixture;
    const reply = await t.graphql(
      "globex-key",
      `query($ids: IdList!) { locationsMultiple(ids: $ids) { data { id workOrders { totalCount } assets { totalCount edges { node { id workOrders { totalCount } } } } } } }`,
      { ids: [refs["g-store"]] },
    );
    expect(reply.body.errors).toBeUndefined();
    const [location] = reply.body.data.locationsMultiple.data;
    expect(location.workOrders.totalCount).toBe(0);
    expect(location.assets.edges).toEqual([{ node: { id: refs["g-asset"], workOrders: { totalCount: 0 } } }]);
  });
});

describe("relations from a third-party supplier key", () => {
  it("reach only its own work orders, masked, and nothing buyer-only", async () => {
    const { data, errors } = await around("coolco-key", coolco);
    expect(errors).toBeUndefined();
    const wo = data.workOrder;
    expect(wo.internalNotes).toBeNull();
    expect(wo.supplierFacility).toEqual({ name: "CoolCo Portland", company: { name: "CoolCo Mechanical" } });
    // Problem types are a buyer route; labels a buyer's catalog that third parties do not see.
    expect(wo.problemType).toBeNull();
    expect(wo.labels).toEqual({ totalCount: 0, edges: [] });
    expect(wo.location.name).toBe("Store 1 Portland");
    expect(wo.location.internalCode).toBeNull();
    // Its own work order and the one whose visibility list names it; not the team's other one, not globex's.
    expect(ids(wo.location.workOrders)).toEqual([coolco, visible].sort());
    expect(wo.location.workOrders.edges.map((e: any) => e.node.internalNotes)).toEqual([null, null]);
    expect(ids(wo.asset.workOrders)).toEqual([coolco, visible].sort());
  });

  it("does not name another supplier assigned to a work order it sees through a visibility list", async () => {
    const { data } = await around("coolco-key", visible);
    expect(data.workOrder.supplierFacility).toBeNull();
  });
});

describe("relations from the in-house team's supplier key", () => {
  it("see the team's work orders unmasked, the buyer's labels, and no invoices or proposals (a 403 domain)", async () => {
    const { data, errors } = await around("inhouse-key", inhouse);
    expect(errors).toBeUndefined();
    const wo = data.workOrder;
    expect(wo.internalNotes).toBe("budget: 900");
    expect(wo.supplierFacility).toEqual({ name: "Acme Facilities West", company: { name: "Acme Facilities Team" } });
    expect(wo.labels.totalCount).toBe(1);
    expect(wo.location.internalCode).toBe("PDX-001");
    expect(ids(wo.location.workOrders)).toEqual([inhouse, visible].sort());
    expect(wo.invoices).toEqual({ totalCount: 0 });
    expect(wo.proposals).toEqual({ totalCount: 0 });
  });
});

describe("connection pages", () => {
  it("page on with cursors, and refuse a page larger than 25 with a 400-style error", async () => {
    for (let i = 0; i < 3; i++)
      await t.db.workOrderNote.create({
        data: { workOrderId: coolco, text: `later ${i}`, noteAddedBy: "alice@acme.example", noteAddedAt: new Date() },
      });
    const page = `query($id: Int!, $after: String) { workOrder(id: $id) {
      notes(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { text } } } } }`;
    const first = (await t.graphql("acme-key", page, { id: coolco })).body.data.workOrder.notes;
    expect(first.totalCount).toBe(4);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = (await t.graphql("acme-key", page, { id: coolco, after: first.pageInfo.endCursor })).body.data
      .workOrder.notes;
    expect([...first.edges, ...next.edges].map((e: any) => e.node.text)).toEqual([
      "on our way",
      "later 0",
      "later 1",
      "later 2",
    ]);
    expect(next.pageInfo.hasNextPage).toBe(false);

    const tooMany = await t.graphql("acme-key", `{ workOrder(id: ${coolco}) { notes(first: 26) { totalCount } } }`);
    expect(tooMany.body.errors[0].extensions.code).toBe("invalidInputDataException");
    expect(tooMany.body.errors[0].message).toMatch(/first must be at most 25/);
    const most = await t.graphql("acme-key", `{ workOrder(id: ${coolco}) { notes(last: 25) { totalCount } } }`);
    expect(most.body.errors).toBeUndefined();
    for (const args of ["first: -1", 'after: "not a cursor"', 'first: 2, before: "x"']) {
      const bad = await t.graphql("acme-key", `{ workOrder(id: ${coolco}) { notes(${args}) { totalCount } } }`);
      expect(bad.body.errors?.[0]?.extensions?.code, args).toBe("invalidInputDataException");
    }
  });
});
