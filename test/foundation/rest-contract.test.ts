// The generic contract machinery, seen from outside: envelopes, pagination, sorting, filters,
// count_by and the error body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let acme: number;
beforeAll(async () => {
  t = await startTestApp();
  acme = t.fixture.refs.acme;
  // 13 more Acme locations (15 in all) and 30 regions, so pages are full and clamps show.
  await t.db.region.createMany({
    data: Array.from({ length: 30 }, (_, i) => ({
      buyerCompanyId: acme,
      name: `Region ${String(i).padStart(2, "0")}`,
    })),
  });
  await t.db.location.createMany({
    data: Array.from({ length: 13 }, (_, i) => ({
      buyerCompanyId: acme,
      name: `Extra ${String(i).padStart(2, "0")}`,
      currency: i % 2 ? "CAD" : "USD",
      regionId: t.fixture.refs.west,
    })),
  });
});
afterAll(() => t?.close());

describe("list envelope and pagination", () => {
  it("wraps lists as {type, data, count, status} with count the total", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/location/locations");
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(["count", "data", "status", "type"]);
    expect(reply.body).toMatchObject({ type: "Location", status: "ok", count: 15 });
    expect(reply.body.data).toHaveLength(10);
  });

  it("clamps the location page to 10 and other lists to 25", async () => {
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/locations?limit=25")).body.data).toHaveLength(10);
    const regions = await t.call("acme-key", "GET", "/v1/buyer/location/regions?limit=100");
    expect(regions.body.data).toHaveLength(25);
    expect(regions.body.count).toBe(31);
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/regions")).body.data).toHaveLength(10);
  });

  it("pages with offset without overlap", async () => {
    const first = await t.call("acme-key", "GET", "/v1/buyer/location/locations?limit=10&offset=0");
    const second = await t.call("acme-key", "GET", "/v1/buyer/location/locations?limit=10&offset=10");
    expect(second.body.data).toHaveLength(5);
    const ids = [...first.body.data, ...second.body.data].map((l: { id: number }) => l.id);
    expect(new Set(ids).size).toBe(15);
    expect(second.body.count).toBe(15);
  });

  it("sorts by sort_by and order", async () => {
    const desc = await t.call("acme-key", "GET", "/v1/buyer/location/locations?sort_by=name&order=desc&limit=10");
    const names = desc.body.data.map((l: { name: string }) => l.name);
    expect(names).toEqual([...names].sort().reverse());
    expect(names[0]).toBe("Store 2 Vancouver");
    const asc = await t.call("acme-key", "GET", "/v1/buyer/location/locations?sort_by=name&order=asc");
    expect(asc.body.data[0].name).toBe("Extra 00");
  });

  it("treats other query parameters as filters, with comma meaning any of", async () => {
    const cad = await t.call("acme-key", "GET", "/v1/buyer/location/locations?currency=CAD");
    expect(cad.body.count).toBe(7);
    expect(cad.body.data.every((l: { currency: string }) => l.currency === "CAD")).toBe(true);
    const ids = [t.fixture.refs["store-1"], t.fixture.refs["store-2"]];
    const some = await t.call("acme-key", "GET", `/v1/buyer/location/locations?id=${ids.join(",")}`);
    expect(some.body.data.map((l: { id: number }) => l.id).sort()).toEqual(ids.sort());
    const repeated = await t.call("acme-key", "GET", `/v1/buyer/location/locations?id=${ids[0]}&id=${ids[1]}`);
    expect(repeated.body.count).toBe(2);
    const combined = await t.call("acme-key", "GET", `/v1/buyer/location/locations?currency=CAD&id=${ids.join(",")}`);
    expect(combined.body.data.map((l: { id: number }) => l.id)).toEqual([t.fixture.refs["store-2"]]);
  });

  it("cannot widen the tenant scope with a filter", async () => {
    const foreign = await t.call(
      "acme-key",
      "GET",
      `/v1/buyer/location/locations?buyerCompanyId=${t.fixture.refs.globex}`,
    );
    expect(foreign.status).toBe(200);
    expect(foreign.body).toMatchObject({ count: 0, data: [] });
    const byId = await t.call("acme-key", "GET", `/v1/buyer/location/locations?id=${t.fixture.refs["g-store"]}`);
    expect(byId.body.count).toBe(0);
  });

  it("rejects unknown filters, bad filter values, unknown sort fields and bad paging with 400", async () => {
    for (const query of [
      "colour=red",
      "id=abc",
      "id=1,x",
      "sort_by=secret",
      "order=sideways",
      "limit=0",
      "limit=-3",
      "offset=-1",
      "limit=abc",
      "offset=1.5",
    ]) {
      const reply = await t.call("acme-key", "GET", `/v1/buyer/location/locations?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body, query).toMatchObject({ type: "invalidInputDataException", status: "error" });
    }
  });
});

describe("count_by", () => {
  it("counts with the list's filters", async () => {
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/locations/count_by")).body).toEqual({
      type: "count",
      data: { count: 15 },
      status: "ok",
    });
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/locations/count_by?currency=CAD")).body.data).toEqual({
      count: 7,
    });
  });

  it("groups with group_by", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/location/locations/count_by?group_by=currency");
    expect(reply.body).toEqual({
      type: "count",
      status: "ok",
      data: [
        { value: "CAD", count: 7 },
        { value: "USD", count: 8 },
      ],
    });
    expect(
      (await t.call("acme-key", "GET", "/v1/buyer/location/locations/count_by?group_by=internalCode")).status,
    ).toBe(400);
  });
});

describe("multiple", () => {
  it("omits ids the key cannot read, and count equals the items", async () => {
    const { refs } = t.fixture;
    const reply = await t.call(
      "acme-key",
      "GET",
      `/v1/buyer/location/locations/multiple/${refs["store-1"]},${refs["g-store"]},999999,${refs["store-2"]}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBe(2);
    expect(reply.body.data.map((l: { id: number }) => l.id).sort()).toEqual([refs["store-1"], refs["store-2"]].sort());
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/locations/multiple/1,abc")).status).toBe(400);
  });
});

describe("single reads", () => {
  it("wraps one record as {type, data, status}", async () => {
    const reply = await t.call("acme-key", "GET", `/v1/buyer/location/locations/${t.fixture.refs["store-1"]}`);
    expect(reply.body).toMatchObject({
      type: "Location",
      status: "ok",
      data: { id: t.fixture.refs["store-1"], name: "Store 1 Portland", internalCode: "PDX-001" },
    });
    expect(Object.keys(reply.body).sort()).toEqual(["data", "status", "type"]);
  });

  it("gives 404 for an absent record and 400 for another tenant's", async () => {
    const absent = await t.call("acme-key", "GET", "/v1/buyer/location/locations/987654");
    expect(absent.status).toBe(404);
    expect(absent.body.type).toBe("NotFoundException");
    const foreign = await t.call("acme-key", "GET", `/v1/buyer/location/locations/${t.fixture.refs["g-store"]}`);
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body)).not.toContain("Globex");
  });
});

describe("bad input never gives a 500", () => {
  const cases: [string, string, unknown][] = [
    ["PATCH", "/v1/buyer/location/locations/1", "{not json"],
    ["PATCH", "/v1/buyer/location/locations/1", "[1,2]"],
    ["PATCH", "/v1/buyer/location/locations/1", '"text"'],
    ["PATCH", "/v1/buyer/location/locations/1", "null"],
    ["PATCH", "/v1/buyer/location/locations/abc", { locationTypeDetails: {} }],
    ["PATCH", "/v1/buyer/location/locations/99999999999", { locationTypeDetails: {} }],
    ["POST", "/v1/buyer/asset/asset_types", { name: 5 }],
    ["POST", "/v1/buyer/asset/asset_types", { name: "x", usesRefrigerant: "yes" }],
    ["POST", "/v1/buyer/asset/asset_types", { name: "x", fullChargeLb: "heavy" }],
    ["POST", "/v1/buyer/asset/asset_types", { name: "x", id: "seven" }],
    ["POST", "/v1/buyer/asset/asset_types", { usesRefrigerant: true }],
    ["POST", "/v1/buyer/asset/asset_types", { name: "x", id: 2147483648 }],
    ["POST", "/v1/buyer/asset/asset_types", '{"name": "x"'],
    ["GET", "/v1/buyer/location/locations/1.5", undefined],
    ["GET", "/v1/buyer/location/locations/-1", undefined],
    ["GET", "/v1/buyer/location/locations?limit=1e400", undefined],
    ["GET", "/v1/buyer/location/locations?createdAt=yesterday", undefined],
    ["GET", "/v1/buyer/location/locations?id[a]=1", undefined],
  ];
  it.each(cases)("%s %s", async (method, path, body) => {
    const reply = await t.call("acme-key", method, path, body);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.body).toMatchObject({ status: "error" });
    expect(typeof reply.body.traceId).toBe("string");
  });

  it("answers unknown routes and SOFA's own routes with the contract's 404", async () => {
    for (const [method, path] of [
      ["GET", "/v1/buyer/nothing"],
      ["POST", "/v1/buyer/webhook"],
      ["POST", "/v1/buyer/webhook/1"],
      ["DELETE", "/v1/buyer/webhook/1"],
      ["DELETE", "/v1/buyer/location/locations/1"],
      ["GET", "/v1/buyer/locations"],
      ["GET", "/nowhere"],
    ]) {
      const reply = await t.call("acme-key", method, path);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toMatchObject({ type: "NotFoundException", status: "error" });
    }
  });

  it("refuses a body over 1 MiB with 400", async () => {
    const reply = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "x".repeat(1_100_000) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("larger");
  });
});

describe("documentation", () => {
  it("serves an OpenAPI document per interface with contract paths only", async () => {
    const buyer = await t.call(null, "GET", "/v1/buyer/openapi.json");
    expect(buyer.status).toBe(200);
    const paths = Object.keys(buyer.body.paths);
    expect(paths).toContain("/v1/buyer/location/locations/{id}");
    expect(paths.some((p) => p.includes("webhook"))).toBe(false);
    const list = buyer.body.paths["/v1/buyer/location/locations"].get;
    expect(list.responses["200"].content["application/json"].schema.required).toEqual([
      "type",
      "data",
      "status",
      "count",
    ]);
    expect(list.responses["401"]).toBeDefined();
    const supplier = await t.call(null, "GET", "/v1/supplier/openapi.json");
    expect(Object.keys(supplier.body.paths)).toContain("/v1/supplier/buyer_company/buyer_companies");
    expect(Object.keys(supplier.body.paths)).not.toContain("/v1/supplier/me");
    const page = await fetch(`${t.url}/v1/buyer/docs`);
    expect(await page.text()).toContain("/v1/buyer/openapi.json");
  });
});
