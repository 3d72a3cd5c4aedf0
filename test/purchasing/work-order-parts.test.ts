// Parts consumed on work orders: which work orders a team may record parts on, on-hand going down (and
// back up with returns), never below zero, the list, and the work order's `parts` in GraphQL for the
// buyer and supplier keys that read it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../support/app.ts";
import {
  catalog,
  create,
  expectError,
  FOREIGN,
  ok,
  onHand,
  PARTNERS,
  READONLY,
  servedWorkOrder,
  startPurchasingApp,
  TEAM,
  TECH,
} from "./helpers.ts";

let t: TestApp;
beforeAll(async () => (t = await startPurchasingApp()));
afterAll(() => t?.close());

const PATH = "/inventory/work_order_parts";
const call = (method: string, path: string, body?: unknown, key = TEAM) =>
  t.call(key, method, `${PARTNERS}${path}`, body);

/** A part with `stock` on hand at a stock location of the team. */
async function stocked(stock = "10", key = TEAM) {
  const { part, location } = await catalog(t, key);
  await ok(
    call("PATCH", `/inventory/stock_locations/${location.id}`, { onHand: [{ partId: part.id, quantity: stock }] }, key),
  );
  return { part, location };
}

describe("POST /inventory/work_order_parts", () => {
  it("takes parts from stock for a work order assigned to the team, lowering on-hand", async () => {
    const { part, location } = await stocked("10");
    const wo = await servedWorkOrder(t);
    const reply = await call("POST", PATH, {
      workOrderId: wo.id,
      partId: part.id,
      stockLocationId: location.id,
      quantity: "2.5",
      note: "Replaced valve",
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "WorkOrderPart",
      status: "ok",
      data: {
        workOrderId: wo.id,
        partId: part.id,
        stockLocationId: location.id,
        quantity: "2.5000",
        note: "Replaced valve",
        consumedBy: "ivy@acme.example",
      },
    });
    expect(await onHand(t, location.id, part.id)).toBe("7.5000");
    // A technician of the team may record parts too.
    await ok(
      call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "1" }, TECH),
    );
    expect(await onHand(t, location.id, part.id)).toBe("6.5000");
  });

  it("serves work orders on the team's visibility list, not other suppliers', other buyers' or those pending the buyer's approval", async () => {
    const { part, location } = await stocked("10");
    const visible = await servedWorkOrder(t, "coolco-pdx");
    await t.db.workOrderVisibility.create({
      data: { workOrderId: visible.id, supplierFacilityId: t.fixture.refs["inhouse-west"] },
    });
    await ok(
      call("POST", PATH, { workOrderId: visible.id, partId: part.id, stockLocationId: location.id, quantity: "1" }),
    );

    const coolco = await servedWorkOrder(t, "coolco-pdx");
    const pending = await ok(
      t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
        title: "Needs approval",
        locationId: t.fixture.refs["store-1"],
        problemTypeId: t.fixture.refs.hvac,
        buyerFacilityId: t.fixture.refs["acme-hq"],
        buyerCompanyId: t.fixture.refs.acme,
        createdBy: "alice@acme.example",
        supplierFacilityId: t.fixture.refs["inhouse-west"],
        needApproval: true,
      }),
    );
    expect(pending.status).toBe("PendingApproval");
    const before = await t.db.workOrderPart.count();
    for (const workOrderId of [coolco.id, pending.id, 987654]) {
      expectError(
        await call("POST", PATH, { workOrderId, partId: part.id, stockLocationId: location.id, quantity: "1" }),
        400,
        "invalidInputDataException",
        /workOrderId \d+ is not a work order this team serves/,
      );
    }
    // Acme's work order assigned to Acme's team is not served by Globex's team.
    const ours = await servedWorkOrder(t);
    const theirs = await stocked("5", FOREIGN);
    expectError(
      await call(
        "POST",
        PATH,
        { workOrderId: ours.id, partId: theirs.part.id, stockLocationId: theirs.location.id, quantity: "1" },
        FOREIGN,
      ),
      400,
      "invalidInputDataException",
      /workOrderId/,
    );
    expect(await t.db.workOrderPart.count()).toBe(before);
    expect(await onHand(t, location.id, part.id)).toBe("9.0000");
  });

  it("never takes on-hand below zero; refuses other teams' parts and stock locations and bad quantities; nothing written", async () => {
    const { part, location } = await stocked("3");
    const theirs = await stocked("3", FOREIGN);
    const empty = await create(t, "/inventory/stock_locations", { name: "Empty" });
    const wo = await servedWorkOrder(t);
    const body = (extra: Record<string, unknown>) => ({
      workOrderId: wo.id,
      partId: part.id,
      stockLocationId: location.id,
      quantity: "1",
      ...extra,
    });
    const refusals: [unknown, RegExp][] = [
      [body({ quantity: "3.0001" }), /would go below zero: 3\.0000 on hand, 3\.0001 requested/],
      [body({ stockLocationId: empty.id }), /below zero: 0\.0000 on hand/],
      [body({ partId: theirs.part.id }), /partId/],
      [body({ stockLocationId: theirs.location.id }), /stockLocationId/],
      [body({ quantity: "0" }), /must not be zero/],
      [body({ quantity: "1.00001" }), /4 digits/],
      [body({ quantity: 1 }), /must be a string/],
      [body({ quantity: "one" }), /decimal string/],
      [body({ quantity: "-1" }), /cannot return 1\.0000 of part \d+: work order \d+ has 0\.0000 of it/],
      [{ partId: part.id, stockLocationId: location.id, quantity: "1" }, /workOrderId/],
    ];
    for (const [payload, message] of refusals)
      expectError(await call("POST", PATH, payload), 400, "invalidInputDataException", message);
    expectError(
      await call("POST", PATH, body({}), READONLY),
      400,
      "invalidInputDataException",
      /may not write inventory/,
    );
    for (const key of ["acme-key", "inhouse-key"])
      expectError(await call("POST", PATH, body({}), key), 401, "UnauthorizedException");
    expect(await t.db.workOrderPart.count({ where: { workOrderId: wo.id } })).toBe(0);
    expect(await onHand(t, location.id, part.id)).toBe("3.0000");
    // Exactly what is on hand may go.
    await ok(call("POST", PATH, body({ quantity: "3" })));
    expect(await onHand(t, location.id, part.id)).toBe("0.0000");
  });

  it("returns unused parts to stock with a negative quantity, up to what the work order has net consumed", async () => {
    const { part, location } = await stocked("5");
    const wo = await servedWorkOrder(t);
    await ok(call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "3" }));
    const returned = await ok(
      call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "-1" }),
    );
    expect(returned.quantity).toBe("-1.0000");
    expect(await onHand(t, location.id, part.id)).toBe("3.0000");
    expectError(
      await call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "-2.5" }),
      400,
      "invalidInputDataException",
      /has 2\.0000 of it/,
    );
    expect(await onHand(t, location.id, part.id)).toBe("3.0000");
  });
});

describe("GET /inventory/work_order_parts", () => {
  it("lists the team's records with filters, sorting and count_by; one record; other teams' are 400", async () => {
    const { part, location } = await stocked("20");
    const wo = await servedWorkOrder(t);
    const ids = [];
    for (const quantity of ["1", "2", "3"])
      ids.push(
        (await ok(call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity })))
          .id,
      );
    const list = await call("GET", `${PATH}?workOrderId=${wo.id}`);
    expect(list.body).toMatchObject({ type: "WorkOrderPart", count: 3 });
    expect(list.body.data.map((p: { id: number }) => p.id)).toEqual([...ids].reverse());
    const sorted = await call("GET", `${PATH}?workOrderId=${wo.id}&sort_by=consumedAt&order=asc&limit=2`);
    expect(sorted.body.data.map((p: { quantity: string }) => p.quantity)).toEqual(["1.0000", "2.0000"]);
    expect((await call("GET", `${PATH}/count_by?workOrderId=${wo.id}&group_by=partId`)).body.data).toEqual([
      { value: part.id, count: 3 },
    ]);
    expect((await call("GET", `${PATH}/${ids[0]}`)).body).toMatchObject({
      type: "WorkOrderPart",
      data: { id: ids[0] },
    });
    expectError(await call("GET", `${PATH}/${ids[0]}`, undefined, FOREIGN), 400, "invalidInputDataException");
    expect((await call("GET", `${PATH}?workOrderId=${wo.id}`, undefined, FOREIGN)).body.count).toBe(0);
  });
});

describe("the work order's parts (GraphQL)", () => {
  const QUERY = `query ($id: Int!) { workOrder(id: $id) { id parts { edges { node { quantity consumedBy part { number unitCost onHandTotal } } } } } }`;
  const partsOf = (reply: { body: any }) => reply.body.data.workOrder.parts.edges.map((e: { node: unknown }) => e.node);

  it("shows the buyer and the in-house supplier key every part recorded; a third party on the visibility list sees no costs or stock", async () => {
    const { part, location } = await stocked("10");
    const wo = await servedWorkOrder(t);
    await ok(call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "2" }));
    await ok(
      call("POST", PATH, { workOrderId: wo.id, partId: part.id, stockLocationId: location.id, quantity: "-0.5" }),
    );
    const expected = [
      {
        quantity: "2.0000",
        consumedBy: "ivy@acme.example",
        part: { number: part.number, unitCost: "12.50", onHandTotal: "8.5000" },
      },
      {
        quantity: "-0.5000",
        consumedBy: "ivy@acme.example",
        part: { number: part.number, unitCost: "12.50", onHandTotal: "8.5000" },
      },
    ];
    for (const key of ["acme-key", "inhouse-key"]) {
      const reply = await t.graphql(key, QUERY, { id: wo.id });
      expect(reply.body.errors, key).toBeUndefined();
      expect(partsOf(reply)).toEqual(expected);
    }
    await t.db.workOrderVisibility.create({
      data: { workOrderId: wo.id, supplierFacilityId: t.fixture.refs["coolco-pdx"] },
    });
    const thirdParty = await t.graphql("coolco-key", QUERY, { id: wo.id });
    expect(thirdParty.body.errors).toBeUndefined();
    expect(partsOf(thirdParty)[0]).toEqual({
      quantity: "2.0000",
      consumedBy: "ivy@acme.example",
      part: { number: part.number, unitCost: null, onHandTotal: null },
    });
    // Not in REST: the contract's work order fields stay as they are.
    const rest = await t.call("acme-key", "GET", `/v1/buyer/work_order/work_orders/${wo.id}`);
    expect(rest.body.data).not.toHaveProperty("parts");
  });
});
