// The vertical slice's write rules: location PATCH and asset type upsert; the supplier's read-only views.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

describe("PATCH location", () => {
  const path = () => `/v1/buyer/location/locations/${refs["store-2"]}`;

  it("reads only locationTypeDetails, validated against the location type's fields", async () => {
    const reply = await t.call("acme-key", "PATCH", path(), {
      locationTypeDetails: { storeNumber: "002", sqft: 1234.5 },
      name: "Renamed",
      currency: "EUR",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "Location",
      status: "ok",
      data: { name: "Store 2 Vancouver", currency: "CAD", locationTypeDetails: { storeNumber: "002", sqft: 1234.5 } },
    });
  });

  it("merges, and null removes a value", async () => {
    const reply = await t.call("acme-key", "PATCH", path(), { locationTypeDetails: { sqft: null } });
    expect(reply.body.data.locationTypeDetails).toEqual({ storeNumber: "002" });
  });

  it("rejects unknown fields, wrong kinds and a missing or non-object value, writing nothing", async () => {
    for (const body of [
      { locationTypeDetails: { color: "red" } },
      { locationTypeDetails: { sqft: "big" } },
      { locationTypeDetails: { storeNumber: 7 } },
      { locationTypeDetails: [1] },
      { locationTypeDetails: "x" },
      {},
      { name: "only" },
    ]) {
      const reply = await t.call("acme-key", "PATCH", path(), body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    const stored = await t.db.location.findUniqueOrThrow({ where: { id: refs["store-2"] } });
    expect(stored.locationTypeDetails).toEqual({ storeNumber: "002" });
  });

  it("is not available to supplier keys", async () => {
    expect(
      (
        await t.call("inhouse-key", "PATCH", `/v1/supplier/location/locations/${refs["store-2"]}`, {
          locationTypeDetails: {},
        })
      ).status,
    ).toBe(404);
  });
});

describe("asset types", () => {
  it("creates with defaults and derives buyerCompanyId from the key", async () => {
    const reply = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", {
      name: "Walk-in cooler",
      buyerCompanyId: refs.globex,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "AssetType",
      status: "ok",
      data: {
        name: "Walk-in cooler",
        usesRefrigerant: false,
        refrigerantTypeCode: null,
        fullChargeLb: null,
        applianceCategory: null,
        buyerCompanyId: refs.acme,
      },
    });
  });

  it("upserts by id: omitted keys keep their value, explicit null clears", async () => {
    const created = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", {
      name: "Reach-in",
      usesRefrigerant: true,
      refrigerantTypeCode: "R-134a",
      fullChargeLb: 2.5,
      applianceCategory: "commercial",
    });
    const id = created.body.data.id;
    const kept = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { id, name: "Reach-in 2" });
    expect(kept.body.data).toMatchObject({
      id,
      name: "Reach-in 2",
      usesRefrigerant: true,
      refrigerantTypeCode: "R-134a",
      fullChargeLb: 2.5,
      applianceCategory: "commercial",
    });
    const cleared = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", {
      id,
      name: "Reach-in 2",
      refrigerantTypeCode: null,
      fullChargeLb: null,
      applianceCategory: null,
    });
    expect(cleared.body.data).toMatchObject({
      id,
      refrigerantTypeCode: null,
      fullChargeLb: null,
      applianceCategory: null,
      usesRefrigerant: true,
    });
    expect(await t.db.assetType.count({ where: { name: { startsWith: "Reach-in" } } })).toBe(1);
  });

  it("requires a name and a positive fullChargeLb", async () => {
    for (const body of [{}, { name: "" }, { name: "x", fullChargeLb: 0 }, { name: "x", fullChargeLb: -2 }]) {
      const reply = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("rejects an unknown id instead of creating", async () => {
    const before = await t.db.assetType.count();
    expect(
      (await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { id: 424242, name: "ghost" })).status,
    ).toBe(400);
    expect(await t.db.assetType.count()).toBe(before);
  });

  it("lists and reads one, for buyers and (read-only) for related suppliers", async () => {
    const list = await t.call("acme-key", "GET", "/v1/buyer/asset/asset_types?usesRefrigerant=true");
    expect(list.body.data.every((a: { usesRefrigerant: boolean }) => a.usesRefrigerant)).toBe(true);
    expect(list.body.count).toBeGreaterThanOrEqual(2);
    const one = await t.call("coolco-key", "GET", `/v1/supplier/asset/asset_types/${refs.rtu}`);
    expect(one.body).toMatchObject({
      type: "AssetType",
      data: { id: refs.rtu, refrigerantTypeCode: "R-410A", fullChargeLb: 24.5 },
    });
    expect((await t.call("coolco-key", "POST", "/v1/supplier/asset/asset_types", { name: "nope" })).status).toBe(404);
  });
});

describe("regions", () => {
  it("lists and reads one", async () => {
    const list = await t.call("acme-key", "GET", "/v1/buyer/location/regions");
    expect(list.body).toEqual({
      type: "Region",
      status: "ok",
      count: 1,
      data: [{ id: refs.west, name: "West", buyerCompanyId: refs.acme }],
    });
    expect((await t.call("acme-key", "GET", `/v1/buyer/location/regions/${refs.west}`)).body.data.name).toBe("West");
  });
});
