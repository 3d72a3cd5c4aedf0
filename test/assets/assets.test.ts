// Assets from the outside: the upsert's rules, tenant scope, supplier views, sub-assets, refrigerant
// overrides, the lite projection and the single read with meters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, withReadOnlyKey, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
let models: { rtu: number; otherType: number; globex: number };

beforeAll(async () => {
  t = await startTestApp({ fixture: withReadOnlyKey() }); // plus a read-only Acme key
  refs = t.fixture.refs;
  const otherType = await t.db.assetType.create({ data: { name: "Walk-in", buyerCompanyId: refs.acme } });
  const model = (assetTypeId: number, buyerCompanyId: number) =>
    t.db.assetModel.create({ data: { modelName: `M-${assetTypeId}`, assetTypeId, buyerCompanyId } }).then((m) => m.id);
  models = {
    rtu: await model(refs.rtu, refs.acme),
    otherType: await model(otherType.id, refs.acme),
    globex: await model(refs["g-rtu"], refs.globex),
  };
});
afterAll(() => t?.close());

const PATH = "/v1/buyer/asset/assets";
const base = () => ({
  name: "Unit",
  assetTypeId: refs.rtu,
  locationId: refs["store-1"],
  isActive: true,
  isLeased: false,
});
const post = (body: unknown, key = "acme-key") => t.call(key, "POST", PATH, body);
async function create(extra: Record<string, unknown> = {}) {
  const reply = await post({ ...base(), ...extra });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}
const assetCount = () => t.db.asset.count();

describe("POST /asset/assets", () => {
  it("creates with defaults; buyerCompanyId and buyerFacilityId are never read from the body", async () => {
    const reply = await post({
      ...base(),
      name: "RTU 2",
      serialNumber: "S-2",
      installDate: "2024-03-15",
      buyerCompanyId: refs.globex,
      buyerFacilityId: 999,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "Asset",
      status: "ok",
      data: {
        name: "RTU 2",
        buyerCompanyId: refs.acme,
        locationId: refs["store-1"],
        serialNumber: "S-2",
        installDate: "2024-03-15",
        isRefrigerantTracked: false,
        warranties: [],
        parentId: null,
        refrigerantTypeCode: null,
        fullChargeLb: null,
        effectiveRefrigerant: {
          refrigerantTypeCode: "R-410A",
          fullChargeLb: 24.5,
          applianceCategory: null,
          refrigerantRequiresProcessShutdown: null,
        },
      },
    });
    expect(reply.body.data).not.toHaveProperty("buyerFacilityId");
  });

  it("answers malformed or incomplete bodies with 400, never 500, and writes nothing", async () => {
    const before = await assetCount();
    const { isLeased: _, ...withoutIsLeased } = base();
    const bodies: unknown[] = [
      {},
      withoutIsLeased,
      { ...base(), name: "" },
      { ...base(), name: "   " },
      { ...base(), isActive: "yes" },
      { ...base(), assetTypeId: "1" },
      { ...base(), isActive: null },
      { ...base(), installDate: "2024-13-45" },
      { ...base(), installDate: "2024-01-01T00:00:00Z" },
      { ...base(), warranties: {} },
      { ...base(), warranties: [1] },
      { ...base(), fullChargeLb: 0 },
      { ...base(), fullChargeLb: -1 },
      { ...base(), fullChargeLb: "abc" },
      { ...base(), refrigerantRequiresProcessShutdown: "yes" },
      { ...base(), isRefrigerantTracked: "no" },
      [base()],
      "not json",
      "null",
      "42",
    ];
    for (const body of bodies) {
      const reply = await post(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    expect(await assetCount()).toBe(before);
  });

  it("rejects another company's asset type, location or model (400 naming the field) and writes nothing", async () => {
    const before = await assetCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ assetTypeId: refs["g-rtu"] }, "assetTypeId"],
      [{ locationId: refs["g-store"] }, "locationId"],
      [{ assetModelId: models.globex }, "assetModelId"],
      [{ assetModelId: models.otherType }, "assetModelId"], // a model of another asset type
      [{ assetTypeId: 987654 }, "assetTypeId"],
    ];
    for (const [extra, field] of cases) {
      const reply = await post({ ...base(), ...extra });
      expect(reply.status, JSON.stringify(extra)).toBe(400);
      expect(reply.body.message).toContain(field);
    }
    expect(await assetCount()).toBe(before);
    expect((await create({ assetModelId: models.rtu })).assetModelId).toBe(models.rtu);
  });

  it("upserts by id; an unknown or foreign id is 400 and nothing changes", async () => {
    const asset = await create({ serialNumber: "KEEP", manufacturer: "Carrier" });
    const updated = await post({ ...base(), id: asset.id, name: "Renamed", manufacturer: null });
    expect(updated.body.data).toMatchObject({
      id: asset.id,
      name: "Renamed",
      serialNumber: "KEEP",
      manufacturer: null,
    });
    const before = await assetCount();
    expect((await post({ ...base(), id: 777777 })).status).toBe(400);
    const foreign = await post(
      { ...base(), id: refs["rtu-1"], assetTypeId: refs["g-rtu"], locationId: refs["g-store"], name: "hijacked" },
      "globex-key",
    );
    expect(foreign.status).toBe(400);
    expect(await assetCount()).toBe(before);
    expect((await t.db.asset.findUniqueOrThrow({ where: { id: refs["rtu-1"] } })).name).toBe("Rooftop unit 1");
  });

  it("needs the asset write permission: a read-only contact's key gets 400 and writes nothing", async () => {
    const before = await assetCount();
    const reply = await post({ ...base(), name: "nope" }, "acme-readonly-key");
    expect(reply.status).toBe(400);
    expect(reply.body.type).toBe("invalidInputDataException");
    expect((await post({ ...base(), id: refs["rtu-1"], name: "nope" }, "acme-readonly-key")).status).toBe(400);
    expect(await assetCount()).toBe(before);
    expect((await t.call("acme-readonly-key", "GET", `${PATH}/${refs["rtu-1"]}`)).status).toBe(200);
  });

  it("refrigerant overrides: omitted keeps, explicit null or blank clears back to the type's value", async () => {
    const overrides = {
      refrigerantTypeCode: "R-22",
      fullChargeLb: 10,
      applianceCategory: "commercial",
      refrigerantRequiresProcessShutdown: true,
    };
    const asset = await create(overrides);
    expect(asset).toMatchObject(overrides);
    expect(asset.effectiveRefrigerant).toEqual(overrides);
    const kept = await post({ ...base(), id: asset.id });
    expect(kept.body.data).toMatchObject(overrides);
    const inherited = {
      refrigerantTypeCode: "R-410A",
      fullChargeLb: 24.5,
      applianceCategory: null,
      refrigerantRequiresProcessShutdown: null,
    };
    const nulls = {
      refrigerantTypeCode: null,
      fullChargeLb: null,
      applianceCategory: null,
      refrigerantRequiresProcessShutdown: null,
    };
    for (const clear of [
      nulls,
      { refrigerantTypeCode: "", fullChargeLb: "", applianceCategory: "  ", refrigerantRequiresProcessShutdown: "" },
    ]) {
      await post({ ...base(), id: asset.id, ...overrides });
      const cleared = await post({ ...base(), id: asset.id, ...clear });
      expect(cleared.status, JSON.stringify(clear)).toBe(200);
      expect(cleared.body.data).toMatchObject(nulls);
      expect(cleared.body.data.effectiveRefrigerant).toEqual(inherited);
    }
    // One field at a time: the others keep.
    await post({ ...base(), id: asset.id, ...overrides });
    const one = await post({ ...base(), id: asset.id, fullChargeLb: "" });
    expect(one.body.data).toMatchObject({ ...overrides, fullChargeLb: null });
    expect(one.body.data.effectiveRefrigerant.fullChargeLb).toBe(24.5);
  });

  it("isRefrigerantTracked: omitted or null keeps, true enrolls, only explicit false turns it off", async () => {
    const asset = await create({ isRefrigerantTracked: true });
    expect(asset.isRefrigerantTracked).toBe(true);
    const steps: [unknown, boolean][] = [
      [undefined, true],
      [null, true],
      [false, false],
      [undefined, false],
      [null, false],
      [true, true],
    ];
    for (const [value, expected] of steps) {
      const reply = await post({
        ...base(),
        id: asset.id,
        ...(value === undefined ? {} : { isRefrigerantTracked: value }),
      });
      expect(reply.body.data.isRefrigerantTracked, String(value)).toBe(expected);
    }
    expect((await create()).isRefrigerantTracked).toBe(false);
  });

  it("stores warranties, and null resets them to an empty list", async () => {
    const warranties = [
      { provider: "Carrier", description: "Compressor", startsAt: "2024-01-01", endsAt: "2029-01-01" },
    ];
    const asset = await create({ warranties });
    expect(asset.warranties).toEqual(warranties);
    expect((await post({ ...base(), id: asset.id })).body.data.warranties).toEqual(warranties);
    expect((await post({ ...base(), id: asset.id, warranties: null })).body.data.warranties).toEqual([]);
  });
});

describe("sub-assets", () => {
  it("attaches a child at the parent's location; rejects another location, itself, cycles and foreign parents", async () => {
    const parent = await create({ name: "Parent" });
    const child = await create({ name: "Child", parentId: parent.id });
    expect(child.parentId).toBe(parent.id);
    const atStore2 = await post({ ...base(), locationId: refs["store-2"], parentId: parent.id });
    expect(atStore2.status).toBe(400);
    expect(atStore2.body.message).toContain("parent");
    expect((await post({ ...base(), id: parent.id, parentId: parent.id })).status).toBe(400); // itself
    expect((await post({ ...base(), id: parent.id, parentId: child.id })).status).toBe(400); // a cycle
    expect((await post({ ...base(), parentId: refs["g-asset"] })).status).toBe(400); // another company's
    expect((await post({ ...base(), parentId: 888888 })).status).toBe(400);
    // A child cannot move away from its parent alone …
    expect((await post({ ...base(), id: child.id, name: "Child", locationId: refs["store-2"] })).status).toBe(400);
    const stored = await t.db.asset.findUniqueOrThrow({ where: { id: parent.id } });
    expect(stored.parentId).toBeNull();
    // … but null detaches it.
    const detached = await post({
      ...base(),
      id: child.id,
      name: "Child",
      parentId: null,
      locationId: refs["store-2"],
    });
    expect(detached.body.data).toMatchObject({ parentId: null, locationId: refs["store-2"] });
  });

  it("moves the sub-assets and all their meters with their parent", async () => {
    const parent = await create({ name: "Moving parent" });
    const child = await create({ name: "Moving child", parentId: parent.id });
    const grandchild = await create({ name: "Moving grandchild", parentId: child.id });
    for (const assetId of [parent.id, grandchild.id]) {
      expect(
        (
          await t.call("acme-key", "POST", "/v1/buyer/asset/meters", {
            name: "hours",
            assetId,
            meterTypeId: refs.runtime,
          })
        ).status,
      ).toBe(200);
    }
    const moved = await post({ ...base(), id: parent.id, name: "Moving parent", locationId: refs["store-2"] });
    expect(moved.status).toBe(200);
    const ids = [parent.id, child.id, grandchild.id];
    const assets = await t.db.asset.findMany({ where: { id: { in: ids } } });
    expect(assets.map((a) => a.locationId)).toEqual([refs["store-2"], refs["store-2"], refs["store-2"]]);
    const meters = await t.db.meter.findMany({ where: { assetId: { in: ids } } });
    expect(meters).toHaveLength(2);
    expect(meters.every((m) => m.locationId === refs["store-2"])).toBe(true);
  });

  it("needs sub-assets enabled for the company (Globex has them disabled)", async () => {
    const before = await assetCount();
    const reply = await post(
      {
        name: "Globex child",
        assetTypeId: refs["g-rtu"],
        locationId: refs["g-store"],
        isActive: true,
        isLeased: false,
        parentId: refs["g-asset"],
      },
      "globex-key",
    );
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("sub-assets");
    expect(await assetCount()).toBe(before);
    // Without a parent Globex writes assets normally.
    const plain = await post(
      {
        name: "Globex plain",
        assetTypeId: refs["g-rtu"],
        locationId: refs["g-store"],
        isActive: true,
        isLeased: false,
      },
      "globex-key",
    );
    expect(plain.body.data).toMatchObject({ buyerCompanyId: refs.globex, parentId: null });
  });
});

describe("reading assets", () => {
  it("lists with filters (comma means any of), sorting, and 400 on unknown filters or sort fields", async () => {
    await create({ name: "Filter A", serialNumber: "F-A", isActive: false, locationId: refs["store-2"] });
    await create({ name: "Filter B", serialNumber: "F-B" });
    const inactive = await t.call("acme-key", "GET", `${PATH}?isActive=false&limit=25`);
    expect(inactive.body.type).toBe("Asset");
    expect(inactive.body.data.map((a: { name: string }) => a.name)).toContain("Filter A");
    expect(inactive.body.data.every((a: { isActive: boolean }) => !a.isActive)).toBe(true);
    const serials = await t.call("acme-key", "GET", `${PATH}?serialNumber=F-A,F-B&sort_by=name&order=desc`);
    expect(serials.body).toMatchObject({ count: 2, data: [{ name: "Filter B" }, { name: "Filter A" }] });
    const atStore2 = await t.call("acme-key", "GET", `${PATH}?locationId=${refs["store-2"]}&serialNumber=F-A,F-B`);
    expect(atStore2.body.data.map((a: { name: string }) => a.name)).toEqual(["Filter A"]);
    const byType = await t.call("acme-key", "GET", `${PATH}?assetTypeId=${refs["g-rtu"]}`);
    expect(byType.body).toMatchObject({ count: 0, data: [] });
    for (const query of ["color=red", "sort_by=serialNumber", "isActive=maybe", "locationId=abc"]) {
      expect((await t.call("acme-key", "GET", `${PATH}?${query}`)).status, query).toBe(400);
    }
  });

  it("keeps tenants apart: 400 on another buyer's asset, 404 on an unknown one, lists only one's own", async () => {
    expect((await t.call("globex-key", "GET", `${PATH}/${refs["rtu-1"]}`)).status).toBe(400);
    expect((await t.call("globex-key", "GET", `${PATH}/5555555`)).status).toBe(404);
    const list = await t.call("globex-key", "GET", `${PATH}?limit=25`);
    expect(list.body.data.every((a: { buyerCompanyId: number }) => a.buyerCompanyId === refs.globex)).toBe(true);
    expect((await t.call("globex-key", "GET", `${PATH}?id=${refs["rtu-1"]}`)).body).toMatchObject({
      count: 0,
      data: [],
    });
    expect((await t.call("globex-key", "GET", `${PATH}?buyerCompanyId=${refs.acme}`)).body.count).toBe(0);
  });

  it("returns the single asset with its meters as ApiAssetWithMeter, to buyers and related suppliers", async () => {
    const meter = await t.call("acme-key", "POST", "/v1/buyer/asset/meters", {
      name: "Compressor hours",
      assetId: refs["rtu-1"],
      meterTypeId: refs.runtime,
    });
    expect(meter.status).toBe(200);
    for (const [key, path] of [
      ["acme-key", "/v1/buyer"],
      ["coolco-key", "/v1/supplier"],
      ["inhouse-key", "/v1/supplier"],
    ]) {
      const reply = await t.call(key, "GET", `${path}/asset/assets/${refs["rtu-1"]}`);
      expect(reply.status, key).toBe(200);
      expect(reply.body).toMatchObject({
        type: "ApiAssetWithMeter",
        status: "ok",
        data: { id: refs["rtu-1"], name: "Rooftop unit 1" },
      });
      expect(reply.body.data.meters).toContainEqual(
        expect.objectContaining({ id: meter.body.data.id, name: "Compressor hours", valueUnit: "h" }),
      );
    }
  });

  it("gives suppliers a read-only, tenant-scoped view", async () => {
    const list = await t.call("coolco-key", "GET", "/v1/supplier/asset/assets?limit=25");
    expect(list.status).toBe(200);
    expect(list.body.type).toBe("Asset");
    const companies = new Set(list.body.data.map((a: { buyerCompanyId: number }) => a.buyerCompanyId));
    expect([...companies]).toEqual([refs.acme]);
    expect((await t.call("coolco-key", "GET", `/v1/supplier/asset/assets/${refs["g-asset"]}`)).status).toBe(400);
    expect((await t.call("unrelated-supplier-key", "GET", "/v1/supplier/asset/assets")).body).toMatchObject({
      count: 0,
      data: [],
    });
    expect((await t.call("unrelated-supplier-key", "GET", `/v1/supplier/asset/assets/${refs["rtu-1"]}`)).status).toBe(
      400,
    );
    const before = await assetCount();
    expect((await t.call("coolco-key", "POST", "/v1/supplier/asset/assets", base())).status).toBe(404);
    expect((await t.call("inhouse-key", "POST", "/v1/supplier/asset/assets", base())).status).toBe(404);
    expect(await assetCount()).toBe(before);
  });
});

describe("GET /asset/assets/asset_lite", () => {
  beforeAll(async () => {
    // More assets than one default page, and more than the largest page.
    const existing = await t.db.asset.count({ where: { buyerCompanyId: refs.acme } });
    const row = (i: number) => ({
      name: `Lite ${i}`,
      buyerCompanyId: refs.acme,
      assetTypeId: refs.rtu,
      locationId: refs["store-2"],
      serialNumber: `L-${i}`,
    });
    await t.db.asset.createMany({ data: Array.from({ length: Math.max(0, 30 - existing) }, (_, i) => row(i)) });
  });

  it("without pagination parameters returns the whole set, and count equals the items returned", async () => {
    const total = await t.db.asset.count({ where: { buyerCompanyId: refs.acme } });
    expect(total).toBeGreaterThan(25);
    const reply = await t.call("acme-key", "GET", `${PATH}/asset_lite`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "AssetLite", status: "ok", count: total });
    expect(reply.body.data).toHaveLength(total);
    expect(Object.keys(reply.body.data[0]).sort()).toEqual([
      "assetTypeId",
      "id",
      "locationId",
      "name",
      "serialNumber",
      "warranties",
    ]);
    const rtu = reply.body.data.find((a: { id: number }) => a.id === refs["rtu-1"]);
    expect(rtu).toEqual({
      id: refs["rtu-1"],
      name: "Rooftop unit 1",
      assetTypeId: refs.rtu,
      serialNumber: "RTU-9001",
      locationId: refs["store-1"],
      warranties: [],
    });
    // Filters and sorting still apply.
    const sorted = await t.call(
      "acme-key",
      "GET",
      `${PATH}/asset_lite?sort_by=id&order=desc&locationId=${refs["store-1"]}`,
    );
    const ids = sorted.body.data.map((a: { id: number }) => a.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(sorted.body.count).toBe(
      await t.db.asset.count({ where: { buyerCompanyId: refs.acme, locationId: refs["store-1"] } }),
    );
  });

  it("with offset or limit pages like other lists (count is the total)", async () => {
    const total = await t.db.asset.count({ where: { buyerCompanyId: refs.acme } });
    const limited = await t.call("acme-key", "GET", `${PATH}/asset_lite?limit=5&offset=2`);
    expect(limited.body).toMatchObject({ type: "AssetLite", count: total });
    expect(limited.body.data).toHaveLength(5);
    const offsetOnly = await t.call("acme-key", "GET", `${PATH}/asset_lite?offset=1`);
    expect(offsetOnly.body.data).toHaveLength(10);
    expect(offsetOnly.body.count).toBe(total);
    expect((await t.call("acme-key", "GET", `${PATH}/asset_lite?limit=100`)).body.data).toHaveLength(25);
  });

  it("is tenant-scoped", async () => {
    const reply = await t.call("globex-key", "GET", `${PATH}/asset_lite`);
    expect(reply.body.data.length).toBe(reply.body.count);
    expect(reply.body.data.map((a: { id: number }) => a.id)).toContain(refs["g-asset"]);
    expect(reply.body.data.map((a: { id: number }) => a.id)).not.toContain(refs["rtu-1"]);
  });
});

describe("GraphQL", () => {
  it("serves the same fields: upsert, and the single read with meters and relations", async () => {
    const created = await t.graphql(
      "acme-key",
      `mutation($input: AssetInput!) { upsertAsset(input: $input) { id name buyerCompanyId effectiveRefrigerant { refrigerantTypeCode } } }`,
      { input: { ...base(), name: "From GraphQL", refrigerantTypeCode: "" } },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.upsertAsset).toMatchObject({
      name: "From GraphQL",
      buyerCompanyId: refs.acme,
      effectiveRefrigerant: { refrigerantTypeCode: "R-410A" },
    });
    const read = await t.graphql(
      "coolco-key",
      `{ asset(id: ${refs["rtu-1"]}) { id meters { name } location { id } } }`,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.asset.location.id).toBe(refs["store-1"]);
    expect(read.body.data.asset.meters.length).toBeGreaterThan(0);
    const denied = await t.graphql(
      "coolco-key",
      `mutation($input: AssetInput!) { upsertAsset(input: $input) { id } }`,
      { input: base() },
    );
    expect(denied.body.errors[0].extensions.code).toBe("ForbiddenException");
  });
});
