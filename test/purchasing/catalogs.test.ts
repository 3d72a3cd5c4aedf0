// The internal teams' catalogs from the outside: vendors, parts, equipment types and stock locations
// (list, one, create, PATCH, filters, sorting, count_by), scoped to the partner key's team, refused to
// buyer and supplier keys, guarded by permissions, with stock counts on stock locations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../support/app.ts";
import {
  APPROVER,
  create,
  expectError,
  FOREIGN,
  NO_TEAM,
  ok,
  onHand,
  PARTNERS,
  READONLY,
  startPurchasingApp,
  TEAM,
  TECH,
} from "./helpers.ts";

let t: TestApp;
beforeAll(async () => (t = await startPurchasingApp()));
afterAll(() => t?.close());

const call = (method: string, path: string, body?: unknown, key = TEAM) =>
  t.call(key, method, `${PARTNERS}${path}`, body);

describe("interface and keys", () => {
  it("serves the catalogs to partner keys only: buyer and supplier keys get 401", async () => {
    for (const path of [
      "/purchasing/vendors",
      "/inventory/parts",
      "/inventory/equipment_types",
      "/inventory/stock_locations",
      "/inventory/work_order_parts",
    ]) {
      expect((await call("GET", path)).status, path).toBe(200);
      for (const key of ["acme-key", "coolco-key", "inhouse-key"])
        expectError(await call("GET", path, undefined, key), 401, "UnauthorizedException");
    }
    expectError(await call("POST", "/purchasing/vendors", { name: "X" }, "inhouse-key"), 401, "UnauthorizedException");
  });

  it("serves internal service teams: a partner key of a third-party supplier sees nothing and may create nothing (403)", async () => {
    await create(t, "/purchasing/vendors", { name: "Visible to the team only" });
    expect((await call("GET", "/purchasing/vendors", undefined, NO_TEAM)).body).toMatchObject({ data: [], count: 0 });
    const creates: [string, unknown][] = [
      ["/purchasing/vendors", { name: "X" }],
      ["/inventory/parts", { number: "X", name: "X" }],
      ["/inventory/equipment_types", { name: "X" }],
      ["/inventory/stock_locations", { name: "X" }],
      ["/purchasing/purchase_requests", { lineItems: [{ description: "X", quantity: "1" }] }],
      ["/purchasing/purchase_orders", { vendorId: 1, lineItems: [{ description: "X", quantity: "1", unitCost: "1" }] }],
      ["/inventory/work_order_parts", { workOrderId: 1, partId: 1, stockLocationId: 1, quantity: "1" }],
    ];
    for (const [path, body] of creates)
      expectError(await call("POST", path, body, NO_TEAM), 403, "ForbiddenException", /internal service teams/);
  });

  it("refuses the partner fields to buyer and supplier keys over GraphQL too", async () => {
    const reply = await t.graphql("acme-key", "{ vendors { count } }");
    expect(reply.body.errors?.[0]?.extensions?.code).toBe("ForbiddenException");
    const own = await t.graphql(TEAM, "{ vendors { count } }");
    expect(own.body.errors).toBeUndefined();
  });
});

describe("OpenAPI", () => {
  it("documents every internal-teams path with its method, envelope type and description", async () => {
    const doc = (await t.call(null, "GET", "/v1/partners/openapi.json")).body;
    const expected: [string, string, string][] = [
      ["/purchasing/vendors", "get", "Vendor"],
      ["/purchasing/vendors", "post", "Vendor"],
      ["/purchasing/vendors/{id}", "patch", "Vendor"],
      ["/purchasing/vendors/count_by", "get", "count"],
      ["/inventory/parts/{id}", "get", "Part"],
      ["/inventory/equipment_types", "post", "EquipmentType"],
      ["/inventory/stock_locations/{id}", "patch", "StockLocation"],
      ["/inventory/work_order_parts", "post", "WorkOrderPart"],
      ["/inventory/work_order_parts", "get", "WorkOrderPart"],
      ["/purchasing/purchase_requests", "post", "SupplierPurchaseRequest"],
      ["/purchasing/purchase_requests/{id}", "get", "SupplierPurchaseRequest"],
      ["/purchasing/purchase_requests/{id}/submit", "patch", "SupplierPurchaseRequest"],
      ["/purchasing/purchase_requests/{id}/approve", "patch", "SupplierPurchaseRequest"],
      ["/purchasing/purchase_requests/{id}/reject", "patch", "SupplierPurchaseRequest"],
      ["/purchasing/purchase_requests/{id}/line_items", "get", "SupplierPurchaseRequestLineItem"],
      ["/purchasing/purchase_orders", "get", "SupplierPurchaseOrder"],
      ["/purchasing/purchase_orders", "post", "SupplierPurchaseOrder"],
      [
        "/purchasing/purchase_orders/{id}/line_items/{lineItemId}/purchase_request_line_items",
        "put",
        "SupplierPurchaseRequestLineItem",
      ],
      ["/purchasing/purchase_orders/{id}/mark_ordered", "patch", "SupplierPurchaseOrder"],
      ["/purchasing/purchase_orders/{id}/cancel", "patch", "SupplierPurchaseOrder"],
      ["/purchasing/purchase_orders/{id}/receipts", "post", "SupplierReceipt"],
      ["/purchasing/purchase_orders/{id}/receipts", "get", "SupplierReceipt"],
    ];
    for (const [path, method, type] of expected) {
      const operation = doc.paths[`/v1/partners${path}`]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(
        operation.responses["200"].content["application/json"].schema.properties.type.enum,
        `${method} ${path}`,
      ).toEqual([type]);
    }
    expect(
      doc.paths["/v1/partners/purchasing/purchase_orders"].post.description ??
        doc.paths["/v1/partners/purchasing/purchase_orders"].post.summary,
    ).toMatch(/draft purchase order/);
    const body =
      doc.paths["/v1/partners/purchasing/purchase_orders/{id}/receipts"].post.requestBody.content["application/json"]
        .schema;
    expect(body.$ref).toBe("#/components/schemas/ReceiptInput");
    expect(doc.components.schemas.ReceiptLineInput.properties).toHaveProperty("quantityReceived");
  });
});

describe("vendors", () => {
  it("creates, reads and patches; absent keeps, null clears; the team comes from the key", async () => {
    const vendor = await create(t, "/purchasing/vendors", {
      name: " Grainger ",
      email: "Orders@Grainger.example",
      accountNumber: "AC-1",
      supplierCompanyId: 999,
    });
    expect(vendor).toMatchObject({
      name: "Grainger",
      email: "orders@grainger.example",
      accountNumber: "AC-1",
      isActive: true,
      supplierCompanyId: t.fixture.refs["acme-inhouse"],
    });
    const one = await call("GET", `/purchasing/vendors/${vendor.id}`);
    expect(one.body).toMatchObject({ type: "Vendor", status: "ok", data: { id: vendor.id } });
    const patched = await ok(
      call("PATCH", `/purchasing/vendors/${vendor.id}`, { phone: "555-0100", accountNumber: null }),
    );
    expect(patched).toMatchObject({
      name: "Grainger",
      phone: "555-0100",
      accountNumber: null,
      email: "orders@grainger.example",
    });
  });

  it("answers bad bodies with 400 and writes nothing", async () => {
    const before = await t.db.vendor.count();
    const bodies = [
      {},
      { name: "" },
      { name: "  " },
      { name: null },
      { name: "x".repeat(201) },
      { name: "V", email: "not-an-email" },
      { name: "V", isActive: null },
      { name: 5 },
      "[]",
    ];
    for (const body of bodies)
      expectError(await call("POST", "/purchasing/vendors", body), 400, "invalidInputDataException");
    expect(await t.db.vendor.count()).toBe(before);
  });

  it("keeps teams apart: another team's vendor is 400 to read and to patch, an unknown one 404 / 400", async () => {
    const theirs = await create(t, "/purchasing/vendors", { name: "Globex supplier" }, FOREIGN);
    expectError(await call("GET", `/purchasing/vendors/${theirs.id}`), 400, "invalidInputDataException");
    expectError(await call("GET", "/purchasing/vendors/987654"), 404, "NotFoundException");
    expectError(
      await call("PATCH", `/purchasing/vendors/${theirs.id}`, { name: "Mine" }),
      400,
      "invalidInputDataException",
      /no vendor \d+ that this key may change/,
    );
    expectError(
      await call("PATCH", "/purchasing/vendors/987654", { name: "Mine" }),
      400,
      "invalidInputDataException",
      /no vendor 987654/,
    );
    expect((await t.db.vendor.findUniqueOrThrow({ where: { id: theirs.id } })).name).toBe("Globex supplier");
    const list = await call("GET", `/purchasing/vendors?supplierCompanyId=${t.fixture.refs["globex-inhouse"]}`);
    expectError(list, 400, "invalidInputDataException", /unknown filter/);
    const ids = (await call("GET", "/purchasing/vendors?limit=25")).body.data.map((v: { id: number }) => v.id);
    expect(ids).not.toContain(theirs.id);
  });

  it("needs purchasing.write: a read-only or technician key gets 400, and a denied PATCH answers like an unknown vendor", async () => {
    const vendor = await create(t, "/purchasing/vendors", { name: "Fastenal" });
    for (const key of [READONLY, TECH]) {
      expectError(
        await call("POST", "/purchasing/vendors", { name: "No" }, key),
        400,
        "invalidInputDataException",
        /may not write purchasing records/,
      );
      expectError(
        await call("PATCH", `/purchasing/vendors/${vendor.id}`, { name: "No" }, key),
        400,
        "invalidInputDataException",
        new RegExp(`no vendor ${vendor.id} that this key may change`),
      );
    }
    // Reads need only the key.
    expect((await call("GET", `/purchasing/vendors/${vendor.id}`, undefined, READONLY)).status).toBe(200);
  });
});

describe("parts", () => {
  it("creates with a default vendor and equipment type of the team; unit cost is a decimal string", async () => {
    const vendor = await create(t, "/purchasing/vendors", { name: "Parts Town" });
    const type = await create(t, "/inventory/equipment_types", { name: "Walk-in cooler", manufacturer: "Kolpak" });
    const part = await create(t, "/inventory/parts", {
      number: "EVAP-FAN-1",
      name: "Evaporator fan motor",
      unit: "each",
      unitCost: "89.5",
      defaultVendorId: vendor.id,
      equipmentTypeId: type.id,
    });
    expect(part).toMatchObject({
      number: "EVAP-FAN-1",
      unitCost: "89.50",
      unit: "each",
      defaultVendorId: vendor.id,
      equipmentTypeId: type.id,
      onHand: [],
      onHandTotal: "0.0000",
    });
    const reply = await call("GET", `/inventory/parts/${part.id}`);
    expect(reply.body.type).toBe("Part");
  });

  it("refuses another team's vendor or equipment type, naming the field", async () => {
    const theirs = await create(t, "/purchasing/vendors", { name: "Theirs" }, FOREIGN);
    const theirType = await create(t, "/inventory/equipment_types", { name: "Theirs" }, FOREIGN);
    expectError(
      await call("POST", "/inventory/parts", { number: "X-1", name: "X", defaultVendorId: theirs.id }),
      400,
      "invalidInputDataException",
      /defaultVendorId/,
    );
    expectError(
      await call("POST", "/inventory/parts", { number: "X-1", name: "X", equipmentTypeId: theirType.id }),
      400,
      "invalidInputDataException",
      /equipmentTypeId/,
    );
    expect(await t.db.part.count({ where: { number: "X-1" } })).toBe(0);
  });

  it("keeps part numbers unique per team (400), while another team may use the same number", async () => {
    await create(t, "/inventory/parts", { number: "DUP-1", name: "First" });
    expectError(
      await call("POST", "/inventory/parts", { number: "DUP-1", name: "Second" }),
      400,
      "invalidInputDataException",
      /already exists/,
    );
    const other = await create(t, "/inventory/parts", { number: "DUP-2", name: "Other" });
    expectError(
      await call("PATCH", `/inventory/parts/${other.id}`, { number: "DUP-1" }),
      400,
      "invalidInputDataException",
      /already exists/,
    );
    await create(t, "/inventory/parts", { number: "DUP-1", name: "Globex's" }, FOREIGN);
  });

  it("refuses non-decimal, over-precise or negative unit costs", async () => {
    for (const unitCost of ["abc", "1.234", "-1.00", "1e3", 12.5, "12345678901.00"]) {
      expectError(
        await call("POST", "/inventory/parts", { number: `C-${String(unitCost)}`, name: "C", unitCost }),
        400,
        "invalidInputDataException",
      );
    }
    const part = await create(t, "/inventory/parts", { number: "C-OK", name: "C", unitCost: "0.10" });
    expect((await ok(call("PATCH", `/inventory/parts/${part.id}`, { unitCost: null }))).unitCost).toBeNull();
    expectError(
      await call("PATCH", `/inventory/parts/${part.id}`, { unit: null }),
      400,
      "invalidInputDataException",
      /unit must not be null/,
    );
  });

  it("lists with filters, sorting and count_by, like every list", async () => {
    const vendor = await create(t, "/purchasing/vendors", { name: "Sorted" });
    for (const [number, cost] of [
      ["S-3", "3.00"],
      ["S-1", "1.00"],
      ["S-2", "2.00"],
    ]) {
      await create(t, "/inventory/parts", {
        number,
        name: `Sorted ${number}`,
        unitCost: cost,
        defaultVendorId: vendor.id,
      });
    }
    const page = await call("GET", `/inventory/parts?defaultVendorId=${vendor.id}&sort_by=number&order=desc`);
    expect(page.body).toMatchObject({ type: "Part", status: "ok", count: 3 });
    expect(page.body.data.map((p: { number: string }) => p.number)).toEqual(["S-3", "S-2", "S-1"]);
    const byCost = await call("GET", `/inventory/parts?defaultVendorId=${vendor.id}&sort_by=unitCost&limit=2`);
    expect(byCost.body.data.map((p: { number: string }) => p.number)).toEqual(["S-1", "S-2"]);
    expect(byCost.body.count).toBe(3);
    expect((await call("GET", `/inventory/parts/count_by?defaultVendorId=${vendor.id}`)).body).toEqual({
      type: "count",
      data: { count: 3 },
      status: "ok",
    });
    const grouped = await call(
      "GET",
      `/inventory/parts/count_by?group_by=defaultVendorId&defaultVendorId=${vendor.id}`,
    );
    expect(grouped.body.data).toEqual([{ value: vendor.id, count: 3 }]);
    expectError(await call("GET", "/inventory/parts?sort_by=secret"), 400, "invalidInputDataException", /cannot sort/);
    expectError(await call("GET", "/inventory/parts?defaultVendorId=abc"), 400, "invalidInputDataException");
    // The foreign team's count_by sees none of ours.
    expect(
      (await call("GET", `/inventory/parts/count_by?defaultVendorId=${vendor.id}`, undefined, FOREIGN)).body.data,
    ).toEqual({ count: 0 });
  });
});

describe("equipment types", () => {
  it("creates, patches, reads one, lists and counts", async () => {
    const type = await create(t, "/inventory/equipment_types", {
      name: "Ice machine",
      manufacturer: "Hoshizaki",
      modelNumber: "KM-515",
    });
    expect(type).toMatchObject({
      name: "Ice machine",
      manufacturer: "Hoshizaki",
      modelNumber: "KM-515",
      description: null,
    });
    const patched = await ok(
      call("PATCH", `/inventory/equipment_types/${type.id}`, { description: "Cubers", modelNumber: null }),
    );
    expect(patched).toMatchObject({ name: "Ice machine", description: "Cubers", modelNumber: null });
    expect(await ok(call("GET", `/inventory/equipment_types/${type.id}`))).toEqual(patched);
    expectError(
      await call("GET", `/inventory/equipment_types/${type.id}`, undefined, FOREIGN),
      400,
      "invalidInputDataException",
    );
    const list = await call("GET", "/inventory/equipment_types?manufacturer=Hoshizaki");
    expect(list.body).toMatchObject({ type: "EquipmentType", count: 1, data: [{ id: type.id }] });
    expect((await call("GET", "/inventory/equipment_types/count_by?manufacturer=Hoshizaki")).body.data).toEqual({
      count: 1,
    });
    expectError(
      await call("PATCH", `/inventory/equipment_types/${type.id}`, { name: "Mine" }, FOREIGN),
      400,
      "invalidInputDataException",
    );
  });
});

describe("stock locations", () => {
  it("carry on-hand per part; onHand in a body is a stock count of the named parts", async () => {
    const a = await create(t, "/inventory/parts", { number: "SC-A", name: "A" });
    const b = await create(t, "/inventory/parts", { number: "SC-B", name: "B" });
    const location = await create(t, "/inventory/stock_locations", {
      name: "Warehouse",
      onHand: [
        { partId: a.id, quantity: "10" },
        { partId: b.id, quantity: "2.5" },
      ],
    });
    expect(location.onHand).toEqual([
      expect.objectContaining({ partId: a.id, stockLocationId: location.id, quantity: "10.0000" }),
      expect.objectContaining({ partId: b.id, quantity: "2.5000" }),
    ]);
    const counted = await ok(
      call("PATCH", `/inventory/stock_locations/${location.id}`, {
        description: "Back room",
        onHand: [{ partId: a.id, quantity: "7" }],
      }),
    );
    expect(counted).toMatchObject({ name: "Warehouse", description: "Back room" });
    expect(counted.onHand.map((l: { quantity: string }) => l.quantity)).toEqual(["7.0000", "2.5000"]);
    const part = await ok(call("GET", `/inventory/parts/${a.id}`));
    expect(part).toMatchObject({
      onHand: [{ stockLocationId: location.id, quantity: "7.0000" }],
      onHandTotal: "7.0000",
    });
    const one = await call("GET", `/inventory/stock_locations/${location.id}`);
    expect(one.body).toMatchObject({ type: "StockLocation", data: { id: location.id } });
  });

  it("refuses bad counts (another team's part, negative, over-precise, repeated) and writes nothing", async () => {
    const part = await create(t, "/inventory/parts", { number: "SC-C", name: "C" });
    const theirs = await create(t, "/inventory/parts", { number: "SC-THEIRS", name: "T" }, FOREIGN);
    const location = await create(t, "/inventory/stock_locations", {
      name: "Counted",
      onHand: [{ partId: part.id, quantity: "1" }],
    });
    const before = await t.db.stockLocation.count();
    const bad = [
      [{ partId: theirs.id, quantity: "1" }],
      [{ partId: part.id, quantity: "-1" }],
      [{ partId: part.id, quantity: "1.00001" }],
      [
        { partId: part.id, quantity: "1" },
        { partId: part.id, quantity: "2" },
      ],
      [{ partId: part.id, quantity: 1 }],
      [{ partId: part.id }],
    ];
    for (const onHandBody of bad) {
      expectError(
        await call("POST", "/inventory/stock_locations", { name: "Bad", onHand: onHandBody }),
        400,
        "invalidInputDataException",
      );
      expectError(
        await call("PATCH", `/inventory/stock_locations/${location.id}`, { name: "Renamed", onHand: onHandBody }),
        400,
        "invalidInputDataException",
      );
    }
    expect(await t.db.stockLocation.count()).toBe(before);
    expect((await t.db.stockLocation.findUniqueOrThrow({ where: { id: location.id } })).name).toBe("Counted");
    expect(await onHand(t, location.id, part.id)).toBe("1.0000");
  });

  it("lists by name and counts; a technician may write inventory, the read-only and approver-only keys may not", async () => {
    await create(t, "/inventory/stock_locations", { name: "Truck 7" }, TECH);
    await create(t, "/inventory/stock_locations", { name: "Truck 8" });
    for (const key of [READONLY, APPROVER]) {
      expectError(
        await call("POST", "/inventory/stock_locations", { name: "Truck 9" }, key),
        400,
        "invalidInputDataException",
        /may not write inventory/,
      );
    }
    const list = await call("GET", "/inventory/stock_locations?name=Truck 7,Truck 8&sort_by=name&order=desc");
    expect(list.body.data.map((l: { name: string }) => l.name)).toEqual(["Truck 8", "Truck 7"]);
    expect((await call("GET", "/inventory/stock_locations/count_by?name=Truck 7,Truck 8")).body.data).toEqual({
      count: 2,
    });
    expect(
      (await call("GET", "/inventory/stock_locations/count_by?name=Truck 7", undefined, FOREIGN)).body.data,
    ).toEqual({ count: 0 });
  });
});
