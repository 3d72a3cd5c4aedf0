// Work order creation from outside: initial status resolution, reference checks per tenant, upsert,
// cross-currency, walkthrough task list, supplier-initiated creation, single reads with scope and
// masking, problem types and the published transition table.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { TRANSITIONS } from "../../src/schema/work-orders/rules/state-machine.ts";

let t: TestApp;
let refs: Record<string, number>;
const WO = "/v1/buyer/work_order/work_orders";
const SUPPLIER_WO = "/v1/supplier/work_order/work_orders";

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const body = (extra: Record<string, unknown> = {}) => ({
  title: "Walk-in cooler warm",
  locationId: refs["store-1"],
  problemTypeId: refs.hvac,
  buyerFacilityId: refs["acme-hq"],
  buyerCompanyId: refs.acme,
  createdBy: "Alice@Acme.example",
  ...extra,
});
const create = (extra: Record<string, unknown> = {}, key = "acme-key") => t.call(key, "POST", WO, body(extra));
const counts = async () => ({
  workOrders: await t.db.workOrder.count(),
  changes: await t.db.workOrderStatusChange.count(),
  events: await t.db.outboxEvent.count(),
});
const setAcme = (data: { serviceRequestsNeedApproval?: boolean }) =>
  t.db.buyerCompany.update({ where: { id: refs.acme }, data });

describe("POST /work_order/work_orders: initial status", () => {
  it("creates an Unassigned work order with its create entry, one workorder.create event and a search vector", async () => {
    const reply = await create({ description: "compressor short-cycling", poNumber: "PO-77", woPriority: 4 });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "WorkOrder", status: "ok" });
    const wo = reply.body.data;
    expect(wo).toMatchObject({
      status: "Unassigned",
      needsApproval: false,
      supplierFacilityId: null,
      assignedAt: null,
      createdBy: "alice@acme.example",
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      poNumber: "PO-77",
      woPriority: 4,
      isPM: false,
      currencyId: null,
    });
    expect(wo.statusChanges).toEqual([
      {
        from: null,
        to: "Unassigned",
        action: "create",
        actor: "Alice Admin",
        actorKind: "buyer",
        at: wo.statusChangedAt,
      },
    ]);
    const events = await t.db.outboxEvent.findMany({ where: { workOrderId: wo.id } });
    expect(events).toHaveLength(1);
    expect(events[0].eventType).toBe("workorder.create");
    expect(events[0].payload).toMatchObject({
      workOrderId: wo.id,
      buyerCompanyId: refs.acme,
      customer: "Acme Foods",
      location: "Store 1 Portland",
      oldStatus: null,
      newStatus: "Unassigned",
      changedBy: "Alice Admin",
      changedAt: wo.statusChangedAt,
      action: "create",
      supplierFacilityId: null,
    });
    const hits = await t.db.$queryRaw<{ id: number }[]>`
      SELECT id FROM "WorkOrder" WHERE "searchVector" @@ to_tsquery('english', 'compressor') AND "searchVector" @@ to_tsquery('simple', 'PO-77')`;
    expect(hits.map((h) => h.id)).toEqual([wo.id]);
  });

  it("assigns a supplier (PendingConfirmationByServiceProvider, assignedAt) or waits for approval", async () => {
    const assigned = (await create({ supplierFacilityId: refs["coolco-pdx"] })).body.data;
    expect(assigned).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      supplierFacilityId: refs["coolco-pdx"],
      needsApproval: false,
    });
    expect(Date.parse(assigned.assignedAt)).toBe(Date.parse(assigned.statusChangedAt));
    const approval = (await create({ supplierFacilityId: refs["coolco-pdx"], needApproval: true })).body.data;
    expect(approval).toMatchObject({
      status: "PendingApproval",
      needsApproval: true,
      supplierFacilityId: refs["coolco-pdx"],
    });
    expect(approval.assignedAt).not.toBeNull();
  });

  it("follows the company's serviceRequestsNeedApproval unless needApproval says otherwise", async () => {
    await setAcme({ serviceRequestsNeedApproval: true });
    try {
      expect((await create()).body.data).toMatchObject({ status: "PendingApproval", needsApproval: true });
      expect((await create({ needApproval: false, supplierFacilityId: refs["coolco-pdx"] })).body.data).toMatchObject({
        status: "PendingConfirmationByServiceProvider",
        needsApproval: false,
      });
    } finally {
      await setAcme({ serviceRequestsNeedApproval: false });
    }
  });

  it.each([
    ["PendingConfirmationByServiceProvider", false, false, "Unassigned"],
    ["Unassigned", true, false, "PendingConfirmationByServiceProvider"],
    ["PendingApproval", false, false, "PendingApproval"],
    ["PendingApproval", true, false, "PendingApproval"],
    ["PendingConfirmationByServiceProvider", true, true, "PendingApproval"],
    ["Unassigned", false, true, "PendingApproval"],
  ])(
    "resolves a supplied status %s (supplier %s, company approval %s) to %s",
    async (status, withSupplier, companyApproval, expected) => {
      await setAcme({ serviceRequestsNeedApproval: companyApproval });
      try {
        const reply = await create({ status, ...(withSupplier ? { supplierFacilityId: refs["coolco-pdx"] } : {}) });
        expect(reply.status).toBe(200);
        expect(reply.body.data.status).toBe(expected);
        expect(reply.body.data.needsApproval).toBe(expected === "PendingApproval");
      } finally {
        await setAcme({ serviceRequestsNeedApproval: false });
      }
    },
  );
});

describe("POST /work_order/work_orders: rejected bodies write nothing", () => {
  const cases: [string, () => Record<string, unknown>, RegExp][] = [
    ["another company's buyerCompanyId", () => ({ buyerCompanyId: refs.globex }), /buyerCompanyId/],
    ["another company's buyerFacilityId", () => ({ buyerFacilityId: refs["globex-hq"] }), /buyerFacilityId/],
    ["another company's location", () => ({ locationId: refs["g-store"] }), /locationId/],
    ["an unknown problem type", () => ({ problemTypeId: 999999 }), /problemTypeId 999999/],
    ["another company's asset", () => ({ assetId: refs["g-asset"] }), /assetId/],
    [
      "an asset at another location",
      () => ({ assetId: refs["rtu-1"], locationId: refs["store-2"] }),
      /not at location/,
    ],
    ["sub-assets without their parent", () => ({ subAssetIds: [refs["rtu-1"]] }), /subAssetIds/],
    ["an unrelated supplier", () => ({ supplierFacilityId: refs["coolco-sea"] }), /supplierFacilityId/],
    ["an unknown supplier", () => ({ supplierFacilityId: 999999 }), /supplierFacilityId 999999/],
    ["walkThroughId alone", () => ({ walkThroughId: refs["walk-1"] }), /together/],
    ["siteSurveyTaskTitleId alone", () => ({ siteSurveyTaskTitleId: refs["task-1"] }), /together/],
    [
      "a task of another survey",
      () => ({ walkThroughId: refs["walk-1"], siteSurveyTaskTitleId: 999999 }),
      /siteSurveyTaskTitleId/,
    ],
    ["an unknown schedule", () => ({ plannedMaintenanceScheduleId: 999999 }), /plannedMaintenanceScheduleId/],
    ["includeWalkthroughTaskList without a walkthrough", () => ({ includeWalkthroughTaskList: true }), /walkThroughId/],
    ["a createdBy that is no email", () => ({ createdBy: "alice" }), /createdBy/],
    ["a blank title", () => ({ title: "  " }), /title/],
    ["a missing title", () => ({ title: undefined }), /title/],
    ["a status that cannot be requested", () => ({ status: "TechAssigned" }), /cannot be requested/],
    ["a status that does not exist", () => ({ status: "Done" }), /status|Done/],
  ];

  it.each(cases)("400 for %s", async (_name, extra, message) => {
    const before = await counts();
    const reply = await create(extra());
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
    expect(reply.body.message).toMatch(message);
    expect(await counts()).toEqual(before);
  });

  it("names every offending reference at once", async () => {
    const reply = await create({ locationId: refs["g-store"], problemTypeId: 999999 });
    expect(reply.body.message).toMatch(/locationId.*problemTypeId/);
  });

  it("400 for a supplier whose relationship was deleted", async () => {
    await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: new Date() } });
    try {
      expect((await create({ supplierFacilityId: refs["coolco-pdx"] })).status).toBe(400);
    } finally {
      await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: null } });
    }
  });

  it("400 for globex creating with acme's ids, and for a key without write permission", async () => {
    const before = await counts();
    expect((await create({}, "globex-key")).status).toBe(400);
    await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["viewer"] } });
    await t.keyChangesSeen();
    try {
      const denied = await create();
      expect(denied.status).toBe(400);
      expect(denied.body.message).toMatch(/may not write/);
    } finally {
      await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["facility_manager"] } });
      await t.keyChangesSeen();
    }
    expect(await counts()).toEqual(before);
  });
});

describe("POST /work_order/work_orders: optional references", () => {
  it("accepts sub-assets below the main asset", async () => {
    const child = await t.db.asset.create({
      data: {
        buyerCompanyId: refs.acme,
        locationId: refs["store-1"],
        assetTypeId: refs.rtu,
        name: "Compressor",
        parentId: refs["rtu-1"],
      },
    });
    const reply = await create({ assetId: refs["rtu-1"], subAssetIds: [child.id] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ assetId: refs["rtu-1"], subAssetIds: [child.id] });
    expect((await create({ assetId: child.id, subAssetIds: [refs["rtu-1"]] })).status).toBe(400);
  });

  it("copies the walkthrough's tasks and answers into the description", async () => {
    const reply = await create({
      description: "Freezer alarm",
      walkThroughId: refs["walk-1"],
      siteSurveyTaskTitleId: refs["task-1"],
      includeWalkthroughTaskList: true,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      walkThroughId: refs["walk-1"],
      siteSurveyTaskTitleId: refs["task-1"],
      includeWalkthroughTaskList: true,
      description: "Freezer alarm\n\nWalkthrough task list:\n- Check freezer temps: -2F ok",
    });
    const plain = await create({
      description: "x",
      walkThroughId: refs["walk-1"],
      siteSurveyTaskTitleId: refs["task-1"],
    });
    expect(plain.body.data).toMatchObject({ description: "x", includeWalkthroughTaskList: false });
  });

  it("marks work orders of a planned maintenance schedule as PM unless told otherwise", async () => {
    expect((await create({ plannedMaintenanceScheduleId: refs["pm-1"] })).body.data).toMatchObject({
      isPM: true,
      plannedMaintenanceScheduleId: refs["pm-1"],
    });
    expect((await create({ plannedMaintenanceScheduleId: refs["pm-1"], isPM: false })).body.data.isPM).toBe(false);
  });

  it("sets cross-currency pricing from the latest rate location → supplier, null when none is stored", async () => {
    await t.db.supplierFacility.update({ where: { id: refs["coolco-pdx"] }, data: { currency: "CAD" } });
    try {
      const cross = (await create({ supplierFacilityId: refs["coolco-pdx"] })).body.data;
      expect(cross).toMatchObject({
        currencyId: "CAD",
        locationCurrencyId: "USD",
        currencyExchangeRateAt: "2026-11-01T00:00:00.000Z",
      });
      expect(Number(cross.currencyExchangeRate)).toBe(1.365);
      const same = (await create({ supplierFacilityId: refs["coolco-pdx"], locationId: refs["store-2"] })).body.data;
      expect(same).toMatchObject({
        currencyId: null,
        locationCurrencyId: null,
        currencyExchangeRate: null,
        currencyExchangeRateAt: null,
      });
      const noRate = (await create({ supplierFacilityId: refs["inhouse-west"], locationId: refs["store-2"] })).body
        .data;
      expect(noRate).toMatchObject({
        currencyId: "USD",
        locationCurrencyId: "CAD",
        currencyExchangeRate: null,
        currencyExchangeRateAt: null,
      });
    } finally {
      await t.db.supplierFacility.update({ where: { id: refs["coolco-pdx"] }, data: { currency: "USD" } });
    }
  });
});

describe("POST /work_order/work_orders with id (upsert)", () => {
  it("updates the fields but never the status, the supplier or the history", async () => {
    const wo = (await create({ supplierFacilityId: refs["coolco-pdx"], description: "first" })).body.data;
    const reply = await create({
      id: wo.id,
      title: "Cooler fixed title",
      status: "PendingApproval",
      needApproval: true,
      supplierFacilityId: refs["coolco-pdx"],
      poNumber: "PO-9",
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      id: wo.id,
      title: "Cooler fixed title",
      description: "first",
      poNumber: "PO-9",
      status: "PendingConfirmationByServiceProvider",
      needsApproval: false,
    });
    expect(reply.body.data.statusChanges).toHaveLength(1);
    expect(await t.db.outboxEvent.count({ where: { workOrderId: wo.id } })).toBe(1);
    const hits = await t.db.$queryRaw<
      { id: number }[]
    >`SELECT id FROM "WorkOrder" WHERE "searchVector" @@ to_tsquery('english', 'fixed')`;
    expect(hits.map((h) => h.id)).toEqual([wo.id]);
    // A different supplier must go through PATCH (reassignment).
    const moved = await create({ id: wo.id, supplierFacilityId: refs["inhouse-west"] });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toMatch(/PATCH/);
  });

  it("answers an unknown and a foreign id with the same 400, writing nothing", async () => {
    const foreign = await t.call("globex-key", "POST", WO, {
      title: "Globex leak",
      locationId: refs["g-store"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["globex-hq"],
      buyerCompanyId: refs.globex,
      createdBy: "gina@globex.example",
    });
    expect(foreign.status).toBe(400); // hvac is acme's problem type
    const globexType = await t.db.problemType.create({ data: { buyerCompanyId: refs.globex, name: "Leak" } });
    const globexWo = (
      await t.call("globex-key", "POST", WO, {
        title: "Globex leak",
        locationId: refs["g-store"],
        problemTypeId: globexType.id,
        buyerFacilityId: refs["globex-hq"],
        buyerCompanyId: refs.globex,
        createdBy: "gina@globex.example",
      })
    ).body.data;
    expect(globexWo.status).toBe("Unassigned");
    const before = await counts();
    const hijack = await create({ id: globexWo.id });
    const unknown = await create({ id: 999999 });
    expect(hijack.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(hijack.body.message.replace(String(globexWo.id), "N")).toBe(unknown.body.message.replace("999999", "N"));
    expect(await counts()).toEqual(before);
    expect((await t.db.workOrder.findUniqueOrThrow({ where: { id: globexWo.id } })).title).toBe("Globex leak");
  });
});

describe("POST /v1/supplier/work_order/work_orders (supplier-initiated)", () => {
  const supplierBody = (extra: Record<string, unknown> = {}) => ({
    title: "Found a leak",
    locationId: refs["store-1"],
    problemTypeId: refs.plumbing,
    ...extra,
  });

  it("opens a SupplierInitiatedPendingApproval work order for the caller's facility", async () => {
    const reply = await t.call("coolco-key", "POST", SUPPLIER_WO, supplierBody({ description: "under the sink" }));
    expect(reply.status).toBe(200);
    const wo = reply.body.data;
    expect(wo).toMatchObject({
      status: "SupplierInitiatedPendingApproval",
      supplierFacilityId: refs["coolco-pdx"],
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      createdBy: "bob@coolco.example",
      needsApproval: true,
    });
    expect(wo.assignedAt).not.toBeNull();
    expect(wo.statusChanges).toEqual([
      expect.objectContaining({
        from: null,
        to: "SupplierInitiatedPendingApproval",
        action: "create",
        actor: "Bob Tech",
        actorKind: "supplier",
      }),
    ]);
    const events = await t.db.outboxEvent.findMany({ where: { workOrderId: wo.id } });
    expect(events.map((e) => [e.eventType, (e.payload as { newStatus: string }).newStatus])).toEqual([
      ["workorder.create", "SupplierInitiatedPendingApproval"],
    ]);
    // The buyer sees it too.
    expect((await t.call("acme-key", "GET", `${WO}/${wo.id}`)).body.data.status).toBe(
      "SupplierInitiatedPendingApproval",
    );
  });

  it("lets the buyer's internal team open one even without a relationship", async () => {
    await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-2"] }, data: { deletedAt: new Date() } });
    try {
      const reply = await t.call("inhouse-key", "POST", SUPPLIER_WO, supplierBody({ locationId: refs["store-2"] }));
      expect(reply.status).toBe(200);
      expect(reply.body.data.supplierFacilityId).toBe(refs["inhouse-west"]);
    } finally {
      await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-2"] }, data: { deletedAt: null } });
    }
  });

  it("400 at a location of an unrelated buyer, or with another company's problem type; nothing written", async () => {
    const before = await counts();
    expect((await t.call("unrelated-supplier-key", "POST", SUPPLIER_WO, supplierBody())).status).toBe(400);
    expect(
      (await t.call("coolco-key", "POST", SUPPLIER_WO, supplierBody({ locationId: refs["g-store"] }))).status,
    ).toBe(400);
    const globexType = await t.db.problemType.findFirstOrThrow({ where: { buyerCompanyId: refs.globex } });
    expect(
      (await t.call("coolco-key", "POST", SUPPLIER_WO, supplierBody({ problemTypeId: globexType.id }))).status,
    ).toBe(400);
    expect(await counts()).toEqual(before);
  });
});

describe("GET /work_order/work_orders/{id}", () => {
  let coolcoWo: number;
  let inhouseWo: number;
  beforeAll(async () => {
    coolcoWo = (await create({ supplierFacilityId: refs["coolco-pdx"] })).body.data.id;
    inhouseWo = (await create({ supplierFacilityId: refs["inhouse-west"] })).body.data.id;
    const privateData = {
      nte: "250",
      glCode: "GL-1",
      costCenter: "CC-9",
      internalNotes: "budget tight",
      approvedBy: "boss@acme.example",
      approvedAt: new Date(),
    };
    await t.db.workOrder.updateMany({ where: { id: { in: [coolcoWo, inhouseWo] } }, data: privateData });
  });

  it("reads in scope, 400 outside it, 404 when absent", async () => {
    expect((await t.call("acme-key", "GET", `${WO}/${coolcoWo}`)).body).toMatchObject({
      type: "WorkOrder",
      status: "ok",
      data: { id: coolcoWo, nte: "250.00" },
    });
    expect((await t.call("globex-key", "GET", `${WO}/${coolcoWo}`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${WO}/999999`)).status).toBe(404);
    expect((await t.call("unrelated-supplier-key", "GET", `${SUPPLIER_WO}/${coolcoWo}`)).status).toBe(400);
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${inhouseWo}`)).status).toBe(400);
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/999999`)).status).toBe(404);
  });

  it("masks buyer-private fields for the third-party supplier only", async () => {
    const masked = (await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${coolcoWo}`)).body.data;
    expect(masked).toMatchObject({
      id: coolcoWo,
      nte: null,
      glCode: null,
      costCenter: null,
      internalNotes: null,
      approvedBy: null,
      approvedAt: null,
      subscribers: null,
    });
    expect(masked.title).toBe("Walk-in cooler warm");
    const full = (await t.call("inhouse-key", "GET", `${SUPPLIER_WO}/${inhouseWo}`)).body.data;
    expect(full).toMatchObject({
      nte: "250.00",
      glCode: "GL-1",
      costCenter: "CC-9",
      internalNotes: "budget tight",
      approvedBy: "boss@acme.example",
    });
  });

  it("shows a supplier on the visibility list the work order", async () => {
    await t.db.workOrderVisibility.create({ data: { workOrderId: inhouseWo, supplierFacilityId: refs["coolco-pdx"] } });
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${inhouseWo}`)).status).toBe(200);
  });
});

describe("problem types and the transition table", () => {
  it("lists the company's problem types", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/work_order/problem_types");
    expect(reply.body).toMatchObject({ type: "ProblemType", status: "ok", count: 2 });
    expect(reply.body.data).toEqual([
      { id: refs.hvac, name: "HVAC - Not cooling", buyerCompanyId: refs.acme },
      { id: refs.plumbing, name: "Plumbing - Leak", buyerCompanyId: refs.acme },
    ]);
    const globex = await t.call("globex-key", "GET", "/v1/buyer/work_order/problem_types");
    expect(globex.body.data.every((p: { buyerCompanyId: number }) => p.buyerCompanyId === refs.globex)).toBe(true);
    expect((await t.call("coolco-key", "GET", "/v1/supplier/work_order/problem_types")).status).toBe(404);
  });

  it("publishes every row of the table over GraphQL, to every key", async () => {
    const query = "{ workOrderTransitions { action actor from to } }";
    const rows = (await t.graphql("coolco-key", query)).body.data.workOrderTransitions;
    expect(rows.slice(0, 2)).toEqual([
      {
        action: "create",
        actor: "buyer",
        from: [],
        to: ["PendingApproval", "PendingConfirmationByServiceProvider", "Unassigned"],
      },
      { action: "create", actor: "supplier", from: [], to: ["SupplierInitiatedPendingApproval"] },
    ]);
    expect(rows.slice(2)).toEqual(TRANSITIONS.map(({ action, actor, from, to }) => ({ action, actor, from, to })));
    expect((await t.graphql("acme-key", query)).body.data.workOrderTransitions).toEqual(rows);
    // Not part of any REST interface.
    const openapi = await t.call(null, "GET", "/v1/buyer/openapi.json");
    expect(JSON.stringify(openapi.body)).not.toMatch(/workOrderTransitions|WorkOrderTransition/);
  });

  it("is the table docs/work-order-lifecycle.md shows", async () => {
    const doc = fs.readFileSync(new URL("../../docs/work-order-lifecycle.md", import.meta.url), "utf8");
    const table = doc.split("<!-- transitions:start -->")[1].split("<!-- transitions:end -->")[0];
    const list = (cell: string) => (cell === "—" ? [] : cell.split(", "));
    const rows = table
      .trim()
      .split("\n")
      .slice(2)
      .map((line) => {
        const [action, actor, from, to] = line
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim());
        return { action, actor, from: list(from), to: list(to) };
      });
    expect(rows).toEqual(
      (await t.graphql("acme-key", "{ workOrderTransitions { action actor from to } }")).body.data.workOrderTransitions,
    );
  });
});
