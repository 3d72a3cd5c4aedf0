// Tenant scope and masking seen from outside, with other tenants' ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

describe("a foreign tenant's ids never return data", () => {
  const readPaths = () => [
    `/v1/buyer/location/locations/${refs["store-1"]}`,
    `/v1/buyer/location/regions/${refs.west}`,
    `/v1/buyer/asset/asset_types/${refs.rtu}`,
  ];

  it("gives 400 on single reads of another buyer's records", async () => {
    for (const path of readPaths()) {
      const reply = await t.call("globex-key", "GET", path);
      expect(reply.status, path).toBe(400);
      expect(reply.body.data).toBeUndefined();
    }
  });

  it("lists only the key's own records", async () => {
    const globex = await t.call("globex-key", "GET", "/v1/buyer/location/locations");
    expect(globex.body.data.map((l: { id: number }) => l.id)).toEqual([refs["g-store"]]);
    const types = await t.call("globex-key", "GET", "/v1/buyer/asset/asset_types");
    expect(types.body.data.map((a: { id: number }) => a.id)).toEqual([refs["g-rtu"]]);
    const count = await t.call("globex-key", "GET", "/v1/buyer/location/locations/count_by");
    expect(count.body.data).toEqual({ count: 1 });
    const multiple = await t.call(
      "globex-key",
      "GET",
      `/v1/buyer/location/locations/multiple/${refs["store-1"]},${refs["store-2"]}`,
    );
    expect(multiple.body).toMatchObject({ count: 0, data: [] });
  });

  it("cannot write another buyer's records, and the answer equals an unknown id's", async () => {
    const foreign = await t.call("globex-key", "PATCH", `/v1/buyer/location/locations/${refs["store-1"]}`, {
      locationTypeDetails: { storeNumber: "X" },
    });
    const unknown = await t.call("globex-key", "PATCH", "/v1/buyer/location/locations/777777", {
      locationTypeDetails: { storeNumber: "X" },
    });
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(foreign.body.message.replace(String(refs["store-1"]), "N")).toBe(
      unknown.body.message.replace("777777", "N"),
    );
    const upsert = await t.call("globex-key", "POST", "/v1/buyer/asset/asset_types", {
      id: refs.rtu,
      name: "hijacked",
    });
    expect(upsert.status).toBe(400);
    const stored = await t.db.location.findUniqueOrThrow({ where: { id: refs["store-1"] } });
    expect(stored.locationTypeDetails).toEqual({ storeNumber: "001", sqft: 5000 });
    expect((await t.db.assetType.findUniqueOrThrow({ where: { id: refs.rtu } })).name).toBe("Rooftop Unit");
  });

  it("gives a supplier with no relationship nothing", async () => {
    expect((await t.call("unrelated-supplier-key", "GET", "/v1/supplier/location/locations")).body).toMatchObject({
      count: 0,
      data: [],
    });
    expect(
      (await t.call("unrelated-supplier-key", "GET", "/v1/supplier/buyer_company/buyer_companies")).body,
    ).toMatchObject({ count: 0, data: [] });
    expect(
      (await t.call("unrelated-supplier-key", "GET", `/v1/supplier/location/locations/${refs["store-1"]}`)).status,
    ).toBe(400);
    expect((await t.call("unrelated-supplier-key", "GET", "/v1/supplier/location/locations/555555")).status).toBe(404);
  });

  it("shows a related supplier only its buyers' records", async () => {
    const reply = await t.call("coolco-key", "GET", "/v1/supplier/location/locations");
    expect(reply.body.count).toBe(2);
    expect(reply.body.data.every((l: { buyerCompanyId: number }) => l.buyerCompanyId === refs.acme)).toBe(true);
    expect((await t.call("coolco-key", "GET", `/v1/supplier/location/locations/${refs["g-store"]}`)).status).toBe(400);
    const regions = await t.call("coolco-key", "GET", "/v1/supplier/location/regions");
    expect(regions.body.data.map((r: { id: number }) => r.id)).toEqual([refs.west]);
  });

  it("stops showing a buyer once the relationship is deleted", async () => {
    await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: new Date() } });
    try {
      expect((await t.call("coolco-key", "GET", "/v1/supplier/location/locations")).body.count).toBe(0);
    } finally {
      await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: null } });
    }
  });
});

describe("masking for third-party supplier keys", () => {
  const MASKED = ["internalCode", "storeContacts", "locationTypeDetails"];

  it("returns buyer-private location fields as null, keeping the keys", async () => {
    const reply = await t.call("coolco-key", "GET", `/v1/supplier/location/locations/${refs["store-1"]}`);
    expect(reply.status).toBe(200);
    for (const field of MASKED) {
      expect(reply.body.data, field).toHaveProperty(field);
      expect(reply.body.data[field], field).toBeNull();
    }
    expect(reply.body.data.name).toBe("Store 1 Portland");
    const list = await t.call("coolco-key", "GET", "/v1/supplier/location/locations");
    expect(list.body.data.every((l: Record<string, unknown>) => MASKED.every((f) => l[f] === null))).toBe(true);
  });

  it("gives an internal service team key the full records", async () => {
    const reply = await t.call("inhouse-key", "GET", `/v1/supplier/location/locations/${refs["store-1"]}`);
    expect(reply.body.data).toMatchObject({
      internalCode: "PDX-001",
      storeContacts: ["manager@store1.example"],
      locationTypeDetails: { storeNumber: "001", sqft: 5000 },
    });
  });

  it("masks the same way in GraphQL", async () => {
    const query = `{ location(id: ${refs["store-1"]}) { internalCode storeContacts locationTypeDetails } }`;
    expect((await t.graphql("coolco-key", query)).body.data.location).toEqual({
      internalCode: null,
      storeContacts: null,
      locationTypeDetails: null,
    });
    expect((await t.graphql("inhouse-key", query)).body.data.location.internalCode).toBe("PDX-001");
    expect((await t.graphql("acme-key", query)).body.data.location.internalCode).toBe("PDX-001");
  });

  it("lists related buyer companies without their settings, ignoring pagination and filters", async () => {
    const reply = await t.call(
      "coolco-key",
      "GET",
      "/v1/supplier/buyer_company/buyer_companies?limit=1&offset=5&name=nothing",
    );
    expect(reply.body).toEqual({
      type: "BuyerCompany",
      status: "ok",
      count: 1,
      data: [{ id: refs.acme, name: "Acme Foods" }],
    });
    const inhouse = await t.call("inhouse-key", "GET", "/v1/supplier/buyer_company/buyer_companies");
    expect(inhouse.body.data.map((c: { id: number }) => c.id)).toEqual([refs.acme]);
    const graphql = await t.graphql(
      "inhouse-key",
      "{ buyerCompanies { data { name buyerCompanySettings { cancellationLock } } } }",
    );
    expect(graphql.body.data.buyerCompanies.data[0].buyerCompanySettings).toBeNull();
  });
});
