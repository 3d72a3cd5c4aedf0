// Purchase requests, purchase orders, the association of request lines with order lines, and receipts
// (with returns), from the outside: every transition and refusal, with the team's keys of each role,
// another team's key, and buyer and supplier keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../support/app.ts";
import {
  APPROVER,
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

const REQUESTS = "/purchasing/purchase_requests";
const ORDERS = "/purchasing/purchase_orders";
const call = (method: string, path: string, body?: unknown, key = TEAM) =>
  t.call(key, method, `${PARTNERS}${path}`, body);

/** Everything purchasing may write, for "nothing written" checks. */
const written = async () => ({
  requests: await t.db.purchaseRequest.findMany({ orderBy: { id: "asc" } }),
  requestLines: await t.db.purchaseRequestLineItem.findMany({ orderBy: { id: "asc" } }),
  orders: await t.db.purchaseOrder.findMany({ orderBy: { id: "asc" } }),
  orderLines: await t.db.purchaseOrderLineItem.findMany({ orderBy: { id: "asc" } }),
  receipts: await t.db.receiptLine.count(),
  stock: await t.db.stockLevel.findMany({ orderBy: [{ stockLocationId: "asc" }, { partId: "asc" }] }),
});

async function approvedRequest(lineItems: Record<string, unknown>[]) {
  const request = await create(t, REQUESTS, { lineItems });
  await ok(call("PATCH", `${REQUESTS}/${request.id}/submit`));
  return ok(call("PATCH", `${REQUESTS}/${request.id}/approve`, undefined, APPROVER));
}
const action = (path: string, id: number, name: string, body?: unknown, key = TEAM) =>
  call("PATCH", `${path}/${id}/${name}`, body, key);
const associate = (orderId: number, lineId: number, ids: unknown, key = TEAM) =>
  call("PUT", `${ORDERS}/${orderId}/line_items/${lineId}/purchase_request_line_items`, { ids }, key);
const receive = (orderId: number, lines: unknown[], key = TEAM) =>
  call("POST", `${ORDERS}/${orderId}/receipts`, { lines }, key);

describe("unknown body fields", () => {
  it("are ignored at every depth, line items included, as everywhere in REST (docs/api.md)", async () => {
    const { part } = await catalog(t);
    const reply = await call("POST", REQUESTS, {
      description: "Unknown fields",
      bogusField: true,
      lineItems: [{ partId: part.id, quantity: "2", vendorId: 1, nested: { deep: [1] } }],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).not.toHaveProperty("bogusField");
    const lines = await t.db.purchaseRequestLineItem.findMany({ where: { purchaseRequestId: reply.body.data.id } });
    expect(lines.map((l) => [l.partId, l.quantity.toFixed(0)])).toEqual([[part.id, "2"]]);
    // A declared field of the wrong type is still refused: ignoring covers undeclared names only.
    expectError(
      await call("POST", REQUESTS, { lineItems: [{ partId: "x", quantity: "1" }] }),
      400,
      "invalidInputDataException",
      /lineItems\[0\]\.partId/,
    );
  });
});

describe("purchase requests", () => {
  it("are created as drafts with line items: a part (estimate defaults to its unit cost) or free text, optionally for a served work order", async () => {
    const { part } = await catalog(t);
    const wo = await servedWorkOrder(t);
    const reply = await call("POST", REQUESTS, {
      description: "Restock van",
      neededBy: "2026-12-01",
      lineItems: [
        { partId: part.id, quantity: "4", workOrderId: wo.id },
        { description: "Gasket kit", quantity: "1.5", estimatedUnitCost: "3.33" },
      ],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "SupplierPurchaseRequest",
      status: "ok",
      data: {
        status: "draft",
        description: "Restock van",
        neededBy: "2026-12-01",
        requestedBy: "ivy@acme.example",
        estimatedTotal: "55.00",
        supplierCompanyId: t.fixture.refs["acme-inhouse"],
        lineItems: [
          {
            partId: part.id,
            quantity: "4.0000",
            estimatedUnitCost: "12.50",
            workOrderId: wo.id,
            purchaseOrderLineItemId: null,
            purchaseOrderId: null,
          },
          { partId: null, description: "Gasket kit", quantity: "1.5000", estimatedUnitCost: "3.33", workOrderId: null },
        ],
      },
    });
  });

  it("refuse bad bodies (no lines, neither part nor text, zero, negative, over-precise or numeric quantities, foreign parts, unserved work orders) and write nothing", async () => {
    const { part } = await catalog(t);
    const theirs = await catalog(t, FOREIGN);
    const coolcoWo = await servedWorkOrder(t, "coolco-pdx");
    const before = await written();
    const line = (extra: Record<string, unknown>) => ({ lineItems: [{ partId: part.id, quantity: "1", ...extra }] });
    const bodies: [unknown, RegExp?][] = [
      [{ lineItems: [] }, /at least one line/],
      [{}],
      [{ lineItems: [{ quantity: "1" }] }, /partId or a description/],
      [line({ quantity: "0" }), /must not be zero/],
      [line({ quantity: "-1" }), /negative/],
      [line({ quantity: "1.00001" }), /4 digits/],
      [line({ quantity: 1 })],
      [line({ quantity: "1e2" }), /decimal string/],
      [line({ estimatedUnitCost: "1.005" }), /2 digits/],
      [line({ partId: theirs.part.id }), /partId/],
      [line({ workOrderId: coolcoWo.id }), /workOrderId/],
      [line({ workOrderId: 987654 }), /workOrderId/],
      [{ lineItems: Array.from({ length: 201 }, () => ({ description: "x", quantity: "1" })) }, /at most 200/],
    ];
    for (const [body, message] of bodies)
      expectError(await call("POST", REQUESTS, body), 400, "invalidInputDataException", message);
    expect(await written()).toEqual(before);
  });

  it("go draft → submitted → approved, or → rejected with a reason; illegal transitions are 400 with the status and change nothing", async () => {
    const request = await create(t, REQUESTS, { lineItems: [{ description: "Filters", quantity: "10" }] });
    expectError(
      await action(REQUESTS, request.id, "approve", undefined, APPROVER),
      400,
      "invalidInputDataException",
      /in status draft; allowed from submitted/,
    );
    const submitted = await ok(action(REQUESTS, request.id, "submit"));
    expect(submitted).toMatchObject({ status: "submitted", submittedAt: expect.any(String) });
    expectError(await action(REQUESTS, request.id, "submit"), 400, "invalidInputDataException", /in status submitted/);
    expectError(await action(REQUESTS, request.id, "reject", {}, APPROVER), 400, "invalidInputDataException");
    expectError(
      await action(REQUESTS, request.id, "reject", { reason: "  " }, APPROVER),
      400,
      "invalidInputDataException",
      /reason must not be blank/,
    );
    const rejected = await ok(action(REQUESTS, request.id, "reject", { reason: "Use stock" }, APPROVER));
    expect(rejected).toMatchObject({
      status: "rejected",
      rejectionReason: "Use stock",
      rejectedBy: "pam@acme.example",
    });
    const before = await written();
    expectError(await action(REQUESTS, request.id, "submit"), 400, "invalidInputDataException", /in status rejected/);
    expectError(
      await action(REQUESTS, request.id, "approve", undefined, APPROVER),
      400,
      "invalidInputDataException",
      /in status rejected/,
    );
    expect(await written()).toEqual(before);

    const other = await approvedRequest([{ description: "Belts", quantity: "2" }]);
    expect(other).toMatchObject({ status: "approved", approvedBy: "pam@acme.example", approvedAt: expect.any(String) });
  });

  it("need purchasing.approve to approve or reject, and purchasing.write to create or submit; denials and other teams answer like unknown requests", async () => {
    const request = await create(t, REQUESTS, { lineItems: [{ description: "Fuses", quantity: "3" }] });
    await ok(action(REQUESTS, request.id, "submit"));
    const unknown = new RegExp(`no purchase request ${request.id} that this key may change`);
    for (const key of [TEAM, TECH, READONLY, FOREIGN]) {
      expectError(
        await action(REQUESTS, request.id, "approve", undefined, key),
        400,
        "invalidInputDataException",
        unknown,
      );
    }
    expectError(
      await action(REQUESTS, request.id, "reject", { reason: "no" }, TEAM),
      400,
      "invalidInputDataException",
      unknown,
    );
    expectError(
      await call("POST", REQUESTS, { lineItems: [{ description: "x", quantity: "1" }] }, TECH),
      400,
      "invalidInputDataException",
      /may not write purchasing records/,
    );
    expectError(
      await action(REQUESTS, 987654, "submit"),
      400,
      "invalidInputDataException",
      /no purchase request 987654/,
    );
    expect((await t.db.purchaseRequest.findUniqueOrThrow({ where: { id: request.id } })).status).toBe("submitted");
  });

  it("list and count with filters (a bad status is 400), and read one; another team's is 400, an unknown one 404", async () => {
    const mine = await create(t, REQUESTS, {
      lineItems: [
        { description: "Count me", quantity: "1" },
        { description: "And me", quantity: "2" },
      ],
    });
    const theirs = await create(t, REQUESTS, { lineItems: [{ description: "Theirs", quantity: "1" }] }, FOREIGN);
    const list = await call("GET", `${REQUESTS}?status=draft&sort_by=id&order=desc&limit=25`);
    expect(list.body).toMatchObject({ type: "SupplierPurchaseRequest", status: "ok" });
    expect(list.body.data[0].id).toBe(mine.id);
    expect(list.body.data.map((r: { id: number }) => r.id)).not.toContain(theirs.id);
    expectError(await call("GET", `${REQUESTS}?status=open`), 400, "invalidInputDataException", /filter status/);
    const grouped = await call("GET", `${REQUESTS}/count_by?group_by=status`);
    expect(grouped.body.data).toEqual(expect.arrayContaining([{ value: "draft", count: list.body.count }]));
    expect((await call("GET", `${REQUESTS}/${mine.id}`)).body).toMatchObject({
      type: "SupplierPurchaseRequest",
      data: { id: mine.id },
    });
    expectError(await call("GET", `${REQUESTS}/${theirs.id}`), 400, "invalidInputDataException");
    expectError(await call("GET", `${REQUESTS}/987654`), 404, "NotFoundException");

    const lines = await call("GET", `${REQUESTS}/${mine.id}/line_items?sort_by=quantity&order=desc&limit=1`);
    expect(lines.body).toMatchObject({
      type: "SupplierPurchaseRequestLineItem",
      count: 2,
      data: [{ description: "And me", quantity: "2.0000" }],
    });
    expect((await call("GET", `${REQUESTS}/${mine.id}/line_items/count_by`)).body.data).toEqual({ count: 2 });
    expectError(await call("GET", `${REQUESTS}/${theirs.id}/line_items`), 400, "invalidInputDataException");
    expectError(await call("GET", `${REQUESTS}/987654/line_items`), 404, "NotFoundException");
    for (const key of ["acme-key", "inhouse-key"])
      expectError(await call("GET", `${REQUESTS}/${mine.id}/line_items`, undefined, key), 401, "UnauthorizedException");
  });
});

describe("purchase orders", () => {
  it("are created as drafts for an active vendor of the team; unit costs default to the part's; totals are exact", async () => {
    const { vendor, part } = await catalog(t);
    const reply = await call("POST", ORDERS, {
      vendorId: vendor.id,
      notes: "Net 30",
      expectedAt: "2026-12-10",
      lineItems: [
        { partId: part.id, quantity: "3" },
        { description: "Freight", quantity: "1", unitCost: "19.99" },
        { partId: part.id, quantity: "0.3333", unitCost: "0.10" },
      ],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "SupplierPurchaseOrder",
      data: {
        status: "draft",
        vendorId: vendor.id,
        notes: "Net 30",
        expectedAt: "2026-12-10",
        createdBy: "ivy@acme.example",
        total: "57.52",
        lineItems: [
          {
            partId: part.id,
            quantity: "3.0000",
            unitCost: "12.50",
            lineTotal: "37.50",
            quantityReceived: "0.0000",
            purchaseRequestLineItemIds: [],
          },
          { partId: null, description: "Freight", unitCost: "19.99", lineTotal: "19.99" },
          { quantity: "0.3333", unitCost: "0.10", lineTotal: "0.03" },
        ],
      },
    });
  });

  it("refuse another team's or an inactive vendor, a line without a known cost, and bad quantities; nothing written", async () => {
    const { vendor, part } = await catalog(t);
    const theirs = await catalog(t, FOREIGN);
    const inactive = await create(t, "/purchasing/vendors", { name: "Closed", isActive: false });
    const noCost = await create(t, "/inventory/parts", { number: "NO-COST", name: "No cost" });
    const before = await written();
    const bodies: [unknown, RegExp][] = [
      [{ vendorId: theirs.vendor.id, lineItems: [{ partId: part.id, quantity: "1" }] }, /vendorId/],
      [{ vendorId: inactive.id, lineItems: [{ partId: part.id, quantity: "1" }] }, /inactive/],
      [{ vendorId: vendor.id, lineItems: [{ partId: noCost.id, quantity: "1" }] }, /unitCost is required/],
      [{ vendorId: vendor.id, lineItems: [{ description: "Labor", quantity: "1" }] }, /unitCost is required/],
      [{ vendorId: vendor.id, lineItems: [{ partId: theirs.part.id, quantity: "1" }] }, /partId/],
      [{ vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "-2" }] }, /negative/],
      [{ vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "abc" }] }, /decimal/],
      [{ vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "1", unitCost: "-1.00" }] }, /negative/],
    ];
    for (const [body, message] of bodies)
      expectError(await call("POST", ORDERS, body), 400, "invalidInputDataException", message);
    expect(await written()).toEqual(before);
  });

  it("take approved request lines on a draft order line (PUT, the full set); refuse draft, submitted, rejected, associated, foreign, mismatched and oversized lines", async () => {
    const { vendor, part } = await catalog(t);
    const other = await catalog(t);
    const order = await create(t, ORDERS, {
      vendorId: vendor.id,
      lineItems: [
        { partId: part.id, quantity: "10" },
        { partId: other.part.id, quantity: "1" },
      ],
    });
    const [line, otherLine] = order.lineItems;
    const approved = await approvedRequest([
      { partId: part.id, quantity: "4" },
      { description: "Any fan", quantity: "5" },
      { partId: part.id, quantity: "7" },
    ]);
    const [a, b, big] = approved.lineItems;

    const reply = await associate(order.id, line.id, [a.id, b.id, a.id]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "SupplierPurchaseRequestLineItem",
      count: 2,
      data: [{ id: a.id, purchaseOrderLineItemId: line.id, purchaseOrderId: order.id }, { id: b.id }],
    });
    expect((await ok(call("GET", `${ORDERS}/${order.id}`))).lineItems[0].purchaseRequestLineItemIds).toEqual([
      a.id,
      b.id,
    ]);

    const draft = await create(t, REQUESTS, { lineItems: [{ partId: part.id, quantity: "1" }] });
    const submitted = await create(t, REQUESTS, { lineItems: [{ partId: part.id, quantity: "1" }] });
    await ok(action(REQUESTS, submitted.id, "submit"));
    const rejected = await create(t, REQUESTS, { lineItems: [{ partId: part.id, quantity: "1" }] });
    await ok(action(REQUESTS, rejected.id, "submit"));
    await ok(action(REQUESTS, rejected.id, "reject", { reason: "no" }, APPROVER));
    const foreign = await create(t, REQUESTS, { lineItems: [{ description: "x", quantity: "1" }] }, FOREIGN);

    const before = await written();
    const refusals: [number, unknown, RegExp][] = [
      [line.id, [a.id, draft.lineItems[0].id], /status draft/],
      [line.id, [submitted.lineItems[0].id], /status submitted/],
      [line.id, [rejected.lineItems[0].id], /status rejected/],
      [otherLine.id, [a.id], /already on purchase order line item/],
      [otherLine.id, [big.id], /for part/],
      [line.id, [a.id, b.id, big.id], /need 16\.0000, more than the 10\.0000/],
      [line.id, [foreign.lineItems[0].id], /not purchase request line items of this team/],
      [line.id, [987654], /not purchase request line items/],
      [line.id, "1,2", /must be an array/],
      [line.id, [1.5], /whole numbers/],
      [987654, [a.id], /has no line item 987654/],
    ];
    for (const [lineId, ids, message] of refusals)
      expectError(await associate(order.id, lineId, ids), 400, "invalidInputDataException", message);
    expectError(
      await call("PUT", `${ORDERS}/${order.id}/line_items/${line.id}/purchase_request_line_items`, {}),
      400,
      "invalidInputDataException",
      /ids is required/,
    );
    expectError(
      await associate(order.id, line.id, [a.id], FOREIGN),
      400,
      "invalidInputDataException",
      new RegExp(`no purchase order ${order.id} that this key may change`),
    );
    expectError(
      await associate(order.id, line.id, [a.id], READONLY),
      400,
      "invalidInputDataException",
      new RegExp(`no purchase order ${order.id}`),
    );
    expect(await written()).toEqual(before);

    // The full set: [b] drops a; [] clears.
    expect((await ok(associate(order.id, line.id, [b.id]))).map((l: { id: number }) => l.id)).toEqual([b.id]);
    expect(await ok(associate(order.id, line.id, []))).toEqual([]);
    expect(
      (await t.db.purchaseRequestLineItem.findUniqueOrThrow({ where: { id: a.id } })).purchaseOrderLineItemId,
    ).toBeNull();
  });

  it("mark_ordered orders a request once every line is on an ordered order; cancel frees the lines and reopens it", async () => {
    const { vendor, part } = await catalog(t);
    const request = await approvedRequest([
      { partId: part.id, quantity: "2" },
      { partId: part.id, quantity: "3" },
    ]);
    const [first, second] = request.lineItems;
    const orderA = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "2" }] });
    const orderB = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "3" }] });
    await ok(associate(orderA.id, orderA.lineItems[0].id, [first.id]));
    await ok(associate(orderB.id, orderB.lineItems[0].id, [second.id]));

    const orderedA = await ok(action(ORDERS, orderA.id, "mark_ordered"));
    expect(orderedA).toMatchObject({ status: "ordered", orderedAt: expect.any(String) });
    expect((await ok(call("GET", `${REQUESTS}/${request.id}`))).status).toBe("approved");
    expectError(
      await associate(orderA.id, orderA.lineItems[0].id, []),
      400,
      "invalidInputDataException",
      /only while the purchase order is a draft/,
    );
    expectError(await action(ORDERS, orderA.id, "mark_ordered"), 400, "invalidInputDataException", /in status ordered/);

    await ok(action(ORDERS, orderB.id, "mark_ordered"));
    expect(await ok(call("GET", `${REQUESTS}/${request.id}`))).toMatchObject({
      status: "ordered",
      orderedAt: expect.any(String),
    });
    // Every line is taken now: none can be associated again.
    const orderC = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "9" }] });
    expectError(
      await associate(orderC.id, orderC.lineItems[0].id, [first.id]),
      400,
      "invalidInputDataException",
      /status ordered/,
    );

    const cancelled = await ok(action(ORDERS, orderB.id, "cancel", { reason: "Vendor out of stock" }));
    expect(cancelled).toMatchObject({
      status: "cancelled",
      cancellationReason: "Vendor out of stock",
      cancelledAt: expect.any(String),
    });
    expect(await ok(call("GET", `${REQUESTS}/${request.id}`))).toMatchObject({ status: "approved", orderedAt: null });
    expect(
      (await t.db.purchaseRequestLineItem.findUniqueOrThrow({ where: { id: second.id } })).purchaseOrderLineItemId,
    ).toBeNull();
    expect(
      (await t.db.purchaseRequestLineItem.findUniqueOrThrow({ where: { id: first.id } })).purchaseOrderLineItemId,
    ).toBe(orderA.lineItems[0].id);
    // The freed line goes on another order.
    await ok(associate(orderC.id, orderC.lineItems[0].id, [second.id]));
    await ok(action(ORDERS, orderC.id, "mark_ordered"));
    expect((await ok(call("GET", `${REQUESTS}/${request.id}`))).status).toBe("ordered");

    expectError(
      await action(ORDERS, orderB.id, "cancel"),
      400,
      "invalidInputDataException",
      /in status cancelled; allowed from draft, ordered/,
    );
    expectError(
      await action(ORDERS, orderB.id, "mark_ordered"),
      400,
      "invalidInputDataException",
      /in status cancelled/,
    );
    const draft = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "1" }] });
    expect((await ok(action(ORDERS, draft.id, "cancel"))).status).toBe("cancelled");
  });

  it("status actions are the team's: other teams, read-only keys and unknown ids get the same 400", async () => {
    const { vendor, part } = await catalog(t);
    const order = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "1" }] });
    for (const key of [FOREIGN, READONLY, TECH]) {
      for (const name of ["mark_ordered", "cancel"])
        expectError(
          await action(ORDERS, order.id, name, undefined, key),
          400,
          "invalidInputDataException",
          new RegExp(`no purchase order ${order.id}`),
        );
    }
    expectError(
      await action(ORDERS, 987654, "mark_ordered"),
      400,
      "invalidInputDataException",
      /no purchase order 987654/,
    );
    for (const key of ["acme-key", "coolco-key"])
      expectError(await action(ORDERS, order.id, "mark_ordered", undefined, key), 401, "UnauthorizedException");
    expect((await t.db.purchaseOrder.findUniqueOrThrow({ where: { id: order.id } })).status).toBe("draft");
  });

  it("list with filters and sorting, count_by, and line items; another team's order is 400", async () => {
    const { vendor, part } = await catalog(t);
    const o1 = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "1" }] });
    const o2 = await create(t, ORDERS, {
      vendorId: vendor.id,
      lineItems: [
        { partId: part.id, quantity: "2" },
        { description: "Ship", quantity: "1", unitCost: "5" },
      ],
    });
    await ok(action(ORDERS, o2.id, "mark_ordered"));
    const list = await call("GET", `${ORDERS}?vendorId=${vendor.id}&sort_by=id`);
    expect(list.body).toMatchObject({ type: "SupplierPurchaseOrder", count: 2, data: [{ id: o1.id }, { id: o2.id }] });
    expect(
      (await call("GET", `${ORDERS}?vendorId=${vendor.id}&status=ordered`)).body.data.map((o: { id: number }) => o.id),
    ).toEqual([o2.id]);
    expect((await call("GET", `${ORDERS}/count_by?vendorId=${vendor.id}&group_by=status`)).body.data).toEqual([
      { value: "draft", count: 1 },
      { value: "ordered", count: 1 },
    ]);
    expectError(await call("GET", `${ORDERS}?status=shipped`), 400, "invalidInputDataException");
    const lines = await call("GET", `${ORDERS}/${o2.id}/line_items?partId=${part.id}`);
    expect(lines.body).toMatchObject({
      type: "SupplierPurchaseOrderLineItem",
      count: 1,
      data: [{ partId: part.id, quantity: "2.0000" }],
    });
    expect((await call("GET", `${ORDERS}/${o2.id}/line_items/count_by`)).body.data).toEqual({ count: 2 });
    expect((await call("GET", `${ORDERS}/${o2.id}/line_items/count_by?partId=${part.id}`)).body.data).toEqual({
      count: 1,
    });
    expectError(await call("GET", `${ORDERS}/${o2.id}`, undefined, FOREIGN), 400, "invalidInputDataException");
    for (const path of ["line_items", "line_items/count_by"])
      expectError(
        await call("GET", `${ORDERS}/${o2.id}/${path}`, undefined, FOREIGN),
        400,
        "invalidInputDataException",
      );
  });
});

describe("receipts", () => {
  async function orderedOrder(lines: Record<string, unknown>[]) {
    const { vendor, part, location } = await catalog(t);
    const order = await create(t, ORDERS, {
      vendorId: vendor.id,
      lineItems: lines.map((l) => ({ partId: part.id, ...l })),
    });
    await ok(action(ORDERS, order.id, "mark_ordered"));
    return { order, part, location };
  }

  it("move the order to partially_received and received, add to on-hand, and a negative quantity returns", async () => {
    const { order, part, location } = await orderedOrder([
      { quantity: "10" },
      { partId: null, description: "Freight", quantity: "1", unitCost: "20" },
    ]);
    const [parts, freight] = order.lineItems;
    const first = await call("POST", `${ORDERS}/${order.id}/receipts`, {
      note: "Box 1 of 2",
      lines: [{ purchaseOrderLineItemId: parts.id, quantityReceived: "4", stockLocationId: location.id }],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      type: "SupplierReceipt",
      data: {
        purchaseOrderId: order.id,
        receivedBy: "ivy@acme.example",
        note: "Box 1 of 2",
        purchaseOrderStatus: "partially_received",
        lines: [
          {
            purchaseOrderLineItemId: parts.id,
            partId: part.id,
            stockLocationId: location.id,
            quantityReceived: "4.0000",
          },
        ],
      },
    });
    expect(await onHand(t, location.id, part.id)).toBe("4.0000");
    // Two stock locations in one receipt, and a free-text line without one.
    const other = await create(t, "/inventory/stock_locations", { name: "Shelf" });
    const second = await ok(
      receive(order.id, [
        { purchaseOrderLineItemId: parts.id, quantityReceived: "5", stockLocationId: location.id },
        { purchaseOrderLineItemId: parts.id, quantityReceived: "1", stockLocationId: other.id },
        { purchaseOrderLineItemId: freight.id, quantityReceived: "1" },
      ]),
    );
    expect(second.purchaseOrderStatus).toBe("received");
    const received = await ok(call("GET", `${ORDERS}/${order.id}`));
    expect(received).toMatchObject({
      status: "received",
      receivedAt: expect.any(String),
      lineItems: [{ quantityReceived: "10.0000" }, { quantityReceived: "1.0000" }],
    });
    expect([await onHand(t, location.id, part.id), await onHand(t, other.id, part.id)]).toEqual(["9.0000", "1.0000"]);

    const returned = await ok(
      receive(order.id, [
        { purchaseOrderLineItemId: parts.id, quantityReceived: "-2.5", stockLocationId: location.id },
      ]),
    );
    expect(returned).toMatchObject({
      purchaseOrderStatus: "partially_received",
      lines: [{ quantityReceived: "-2.5000" }],
    });
    expect(await onHand(t, location.id, part.id)).toBe("6.5000");
    expect(
      (await t.db.purchaseOrderLineItem.findUniqueOrThrow({ where: { id: parts.id } })).quantityReceived.toFixed(4),
    ).toBe("7.5000");

    const list = await call("GET", `${ORDERS}/${order.id}/receipts?sort_by=id&order=desc`);
    expect(list.body).toMatchObject({
      type: "SupplierReceipt",
      count: 3,
      data: [{ id: returned.id }, { id: second.id }, { id: first.body.data.id }],
    });
    expect((await call("GET", `${ORDERS}/${order.id}/receipts/count_by`)).body.data).toEqual({ count: 3 });
    expectError(
      await call("GET", `${ORDERS}/${order.id}/receipts`, undefined, FOREIGN),
      400,
      "invalidInputDataException",
    );
  });

  it("refuse receiving more than ordered, returning more than received, on-hand below zero, and bad lines; nothing written", async () => {
    const { order, part, location } = await orderedOrder([{ quantity: "5" }]);
    const line = order.lineItems[0];
    await ok(
      receive(order.id, [{ purchaseOrderLineItemId: line.id, quantityReceived: "3", stockLocationId: location.id }]),
    );
    // Two of the three received go out on a work order: a return of three would take on-hand below zero.
    const wo = await servedWorkOrder(t);
    await ok(
      call("POST", "/inventory/work_order_parts", {
        workOrderId: wo.id,
        partId: part.id,
        stockLocationId: location.id,
        quantity: "2",
      }),
    );
    const theirs = await catalog(t, FOREIGN);
    const otherOrder = await orderedOrder([{ quantity: "1" }]);
    const before = await written();
    const lineOf = (extra: Record<string, unknown>) => [
      { purchaseOrderLineItemId: line.id, quantityReceived: "1", stockLocationId: location.id, ...extra },
    ];
    const refusals: [unknown[], RegExp][] = [
      [lineOf({ quantityReceived: "2.0001" }), /receiving more than was ordered is refused/],
      [
        [...lineOf({ quantityReceived: "1" }), ...lineOf({ quantityReceived: "1.5" })],
        /receiving more than was ordered/,
      ],
      [lineOf({ quantityReceived: "-3.5" }), /cannot be returned/],
      [lineOf({ quantityReceived: "-3" }), /would go below zero: 1\.0000 on hand, 3\.0000 requested/],
      [lineOf({ quantityReceived: "0" }), /must not be zero/],
      [lineOf({ quantityReceived: "1.12345" }), /4 digits/],
      [lineOf({ quantityReceived: 1 }), /must be a string/],
      [lineOf({ stockLocationId: null }), /stockLocationId is required/],
      [lineOf({ stockLocationId: theirs.location.id }), /stockLocationId/],
      [lineOf({ purchaseOrderLineItemId: otherOrder.order.lineItems[0].id }), /purchaseOrderLineItemId/],
      [[], /at least one line/],
    ];
    for (const [lines, message] of refusals)
      expectError(await receive(order.id, lines), 400, "invalidInputDataException", message);
    expectError(
      await receive(order.id, lineOf({}), FOREIGN),
      400,
      "invalidInputDataException",
      new RegExp(`no purchase order ${order.id}`),
    );
    expectError(
      await receive(order.id, lineOf({}), TECH),
      400,
      "invalidInputDataException",
      new RegExp(`no purchase order ${order.id}`),
    );
    expect(await written()).toEqual(before);
    expect(await onHand(t, location.id, part.id)).toBe("1.0000");
  });

  it("are refused on draft and cancelled orders", async () => {
    const { vendor, part, location } = await catalog(t);
    const order = await create(t, ORDERS, { vendorId: vendor.id, lineItems: [{ partId: part.id, quantity: "1" }] });
    const lines = [
      { purchaseOrderLineItemId: order.lineItems[0].id, quantityReceived: "1", stockLocationId: location.id },
    ];
    expectError(
      await receive(order.id, lines),
      400,
      "invalidInputDataException",
      /cannot receive a purchase order in status draft/,
    );
    await ok(action(ORDERS, order.id, "cancel"));
    expectError(await receive(order.id, lines), 400, "invalidInputDataException", /in status cancelled/);
    expect(await t.db.receipt.count({ where: { purchaseOrderId: order.id } })).toBe(0);
    expect(await onHand(t, location.id, part.id)).toBeNull();
    // Partly received orders cannot be cancelled.
    const { order: ordered, location: loc } = await orderedOrder([{ quantity: "2" }]);
    await ok(
      receive(ordered.id, [
        { purchaseOrderLineItemId: ordered.lineItems[0].id, quantityReceived: "1", stockLocationId: loc.id },
      ]),
    );
    expectError(
      await action(ORDERS, ordered.id, "cancel"),
      400,
      "invalidInputDataException",
      /in status partially_received/,
    );
  });
});

describe("transition tables", () => {
  it("are published over GraphQL, one per record kind", async () => {
    const reply = await t.graphql(
      TEAM,
      "{ purchasingTransitions { purchaseRequest { action actor from to } purchaseOrder { action from to } } }",
    );
    expect(reply.body.errors).toBeUndefined();
    const { purchaseRequest, purchaseOrder } = reply.body.data.purchasingTransitions;
    expect(purchaseRequest).toContainEqual({
      action: "reject",
      actor: "approver",
      from: ["submitted"],
      to: ["rejected"],
    });
    expect(purchaseOrder).toContainEqual({ action: "cancel", from: ["draft", "ordered"], to: ["cancelled"] });
  });
});
