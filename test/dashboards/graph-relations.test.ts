// The rest of the dashboard graph from outside: an asset's model, meters and their readings, sub-assets,
// the parent work order, a work order's proposals and invoices, a location's assets, and purchasing's
// lines, vendor and parts, each as the key may read them through the target's root field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";

let t: TestApp;
let assigned: number, subContract: number, compressor: number;

beforeAll(async () => {
  t = await startTestApp();
  const { refs } = t.fixture;
  const model = await t.db.assetModel.create({
    data: { buyerCompanyId: refs.acme, assetTypeId: refs.rtu, modelName: "Carrier 48TC" },
  });
  await t.db.asset.update({ where: { id: refs["rtu-1"] }, data: { assetModelId: model.id } });
  compressor = (
    await t.db.asset.create({
      data: {
        buyerCompanyId: refs.acme,
        locationId: refs["store-1"],
        assetTypeId: refs.rtu,
        name: "Compressor",
        parentId: refs["rtu-1"],
      },
    })
  ).id;
  const meter = await t.db.meter.create({
    data: {
      buyerCompanyId: refs.acme,
      assetId: refs["rtu-1"],
      meterTypeId: refs.runtime,
      name: "Compressor hours",
      valueType: "number",
      locationId: refs["store-1"],
    },
  });
  for (const [value, day] of [
    ["100", 1],
    ["160.5", 2],
  ] as const)
    await t.db.meterReading.create({
      data: { buyerCompanyId: refs.acme, meterId: meter.id, value, recordedAt: new Date(Date.UTC(2026, 5, day)) },
    });

  assigned = (await acmeWorkOrder(t, { title: "Replace compressor" })).id;
  await t.db.workOrder.update({
    where: { id: assigned },
    data: { assetId: refs["rtu-1"], subAssetIds: [compressor] },
  });
  subContract = (await acmeWorkOrder(t, { title: "Crane for the compressor" })).id;
  await t.db.workOrder.update({
    where: { id: subContract },
    data: { parentWorkOrderId: assigned, assetId: refs["rtu-1"] },
  });

  const billing = {
    workOrderId: assigned,
    supplierFacilityId: refs["coolco-pdx"],
    buyerCompanyId: refs.acme,
    buyerFacilityId: refs["acme-hq"],
    locationId: refs["store-1"],
    createdById: refs.bob,
  };
  await t.db.proposal.create({ data: { ...billing, totalAfterTax: "1200.00" } });
  for (const status of ["pending", "draft"] as const)
    await t.db.invoice.create({
      data: {
        ...billing,
        status,
        problemTypeId: refs.hvac,
        currency: "USD",
        dateOfInvoice: new Date(),
        statusChangedAt: new Date(),
      },
    });

  const team = refs["acme-inhouse"];
  const part = await t.db.part.create({ data: { supplierCompanyId: team, number: "CMP-1", name: "Compressor" } });
  const vendor = await t.db.vendor.create({ data: { supplierCompanyId: team, name: "Parts Depot" } });
  await t.db.purchaseRequest.create({
    data: {
      supplierCompanyId: team,
      requestedBy: "ivy@acme.example",
      statusChangedAt: new Date(),
      lineItems: {
        create: [
          { partId: part.id, quantity: "1" },
          { description: "Brazing rods", quantity: "4" },
        ],
      },
    },
  });
  await t.db.purchaseOrder.create({
    data: {
      supplierCompanyId: team,
      vendorId: vendor.id,
      createdBy: "ivy@acme.example",
      statusChangedAt: new Date(),
      lineItems: { create: [{ partId: part.id, quantity: "1", unitCost: "850.00" }] },
    },
  });
});
afterAll(() => t?.close());

const ASSET = `query($filter: JSON) { assets(filter: $filter) { data {
  name model { modelName }
  meters { totalCount edges { node { name readings(last: 1) { totalCount edges { node { value } } } } } }
  workOrders(first: 1) { totalCount pageInfo { hasNextPage } edges { node { id } } }
} } }`;

describe("an asset's relations", () => {
  it("show a buyer the model, the meters with their latest reading, and the work orders", async () => {
    const reply = await t.graphql("acme-key", ASSET, { filter: { id: t.fixture.refs["rtu-1"] } });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.assets.data).toEqual([
      {
        name: "Rooftop unit 1",
        model: { modelName: "Carrier 48TC" },
        meters: {
          totalCount: 1,
          edges: [
            { node: { name: "Compressor hours", readings: { totalCount: 2, edges: [{ node: { value: "160.5" } }] } } },
          ],
        },
        // Newest first: the sub-contract was created last.
        workOrders: { totalCount: 2, pageInfo: { hasNextPage: true }, edges: [{ node: { id: subContract } }] },
      },
    ]);
  });

  it("show a supplier the meters it reads with the asset, but no model and no readings (buyer routes)", async () => {
    const reply = await t.graphql("coolco-key", ASSET, { filter: { id: t.fixture.refs["rtu-1"] } });
    expect(reply.body.errors).toBeUndefined();
    const [asset] = reply.body.data.assets.data;
    expect(asset.model).toBeNull();
    expect(asset.meters.totalCount).toBe(1);
    expect(asset.meters.edges[0].node.readings).toEqual({ totalCount: 0, edges: [] });
    expect(asset.workOrders.totalCount).toBe(2);
  });
});

describe("a work order's relations", () => {
  const QUERY = `query($id: Int!) { workOrder(id: $id) {
    parentWorkOrder { id title }
    subAssets { id name }
    proposals { totalCount edges { node { totalAfterTax } } }
    invoices { totalCount edges { node { status workOrder { id } } } }
    location { assets { totalCount } }
  } }`;

  it("show the buyer the parent, the sub-assets, proposals and its published invoices", async () => {
    const child = await t.graphql("acme-key", QUERY, { id: subContract });
    expect(child.body.data.workOrder.parentWorkOrder).toEqual({ id: assigned, title: "Replace compressor" });
    const reply = await t.graphql("acme-key", QUERY, { id: assigned });
    expect(reply.body.errors).toBeUndefined();
    const wo = reply.body.data.workOrder;
    expect(wo.parentWorkOrder).toBeNull();
    expect(wo.subAssets).toEqual([{ id: compressor, name: "Compressor" }]);
    expect(wo.proposals).toEqual({ totalCount: 1, edges: [{ node: { totalAfterTax: "1200.00" } }] });
    // The draft is the supplier's own until published.
    expect(wo.invoices).toEqual({
      totalCount: 1,
      edges: [{ node: { status: "pending", workOrder: { id: assigned } } }],
    });
    expect(wo.location.assets.totalCount).toBe(2);
  });

  it("show the supplier its own invoices, and no work order once it was reassigned away", async () => {
    const reply = await t.graphql("coolco-key", QUERY, { id: assigned });
    expect(reply.body.data.workOrder.invoices.totalCount).toBe(2);
    await t.db.workOrder.update({
      where: { id: assigned },
      data: { supplierFacilityId: t.fixture.refs["inhouse-west"] },
    });
    const invoices = await t.graphql("coolco-key", `{ invoices { data { status workOrder { id } } } }`);
    expect(invoices.body.errors).toBeUndefined();
    expect(invoices.body.data.invoices.data.map((i: { workOrder: unknown }) => i.workOrder)).toEqual([null, null]);
  });
});

describe("purchasing's relations", () => {
  it("show the team its requests' and orders' lines with their parts, and the order's vendor", async () => {
    const reply = await t.graphql(
      "inhouse-partner-key",
      `{ purchaseRequests { data { lines(first: 1) { totalCount pageInfo { hasNextPage } edges { node { quantity part { number } } } } } }
         purchaseOrders { data { vendor { name } lines { totalCount edges { node { lineTotal part { name } } } } } } }`,
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.purchaseRequests.data).toEqual([
      {
        lines: {
          totalCount: 2,
          pageInfo: { hasNextPage: true },
          edges: [{ node: { quantity: "1.0000", part: { number: "CMP-1" } } }],
        },
      },
    ]);
    expect(reply.body.data.purchaseOrders.data).toEqual([
      {
        vendor: { name: "Parts Depot" },
        lines: { totalCount: 1, edges: [{ node: { lineTotal: "850.00", part: { name: "Compressor" } } }] },
      },
    ]);
  });
});
