// The meter type catalog: buyer keys discover the meterTypeId that POST /asset/meters needs; supplier
// keys read the catalogs of the buyers whose assets (and meters) they read; tenants stay apart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const TYPES = "/v1/buyer/asset/meter_types";
const SUPPLIER_TYPES = "/v1/supplier/asset/meter_types";
const ids = (reply: { body: { data: { id: number }[] } }) => reply.body.data.map((m) => m.id);

/** The standard catalog every company starts with (migration 20261207090002_standard_meter_types). */
const STANDARD = [
  ["Temperature (°F)", "°F"],
  ["Temperature (°C)", "°C"],
  ["Pressure (psi)", "psi"],
  ["Pressure (kPa)", "kPa"],
  ["Runtime hours (h)", "h"],
  ["Cycles (count)", "count"],
  ["Energy (kWh)", "kWh"],
  ["Water volume (gal)", "gal"],
  ["Water volume (m³)", "m³"],
  ["Refrigerant weight (lb)", "lb"],
  ["Refrigerant weight (kg)", "kg"],
];
const OWN = `${TYPES}?name=${encodeURIComponent("Runtime hours,Temperature")}`;

describe("GET /v1/buyer/asset/meter_types", () => {
  it("lists the company's catalog with value type and unit, filters, counts and reads one", async () => {
    const list = await t.call("acme-key", "GET", OWN);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      type: "MeterType",
      status: "ok",
      count: 2,
      data: [
        { id: refs.runtime, name: "Runtime hours", valueType: "number", valueUnit: "h", buyerCompanyId: refs.acme },
        { id: refs.temp, name: "Temperature", valueType: "number", valueUnit: "F", buyerCompanyId: refs.acme },
      ],
    });
    expect(ids(await t.call("acme-key", "GET", `${TYPES}?valueUnit=F`))).toEqual([refs.temp]);
    expect(ids(await t.call("acme-key", "GET", `${OWN}&sort_by=name&order=desc`))).toEqual([refs.temp, refs.runtime]);
    expect((await t.call("acme-key", "GET", `${TYPES}/count_by?valueType=number`)).body).toEqual({
      type: "count",
      data: { count: 2 + STANDARD.length },
      status: "ok",
    });
    expect((await t.call("acme-key", "GET", `${TYPES}?unit=F`)).status).toBe(400);
    const one = await t.call("acme-key", "GET", `${TYPES}/${refs.temp}`);
    expect(one.body).toMatchObject({ type: "MeterType", data: { id: refs.temp, valueUnit: "F" } });
    expect((await t.call("acme-key", "GET", `${TYPES}/999999`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${TYPES}/${refs["g-runtime"]}`)).status).toBe(400);
    const globex = await t.call("globex-key", "GET", `${TYPES}?limit=25`);
    expect(globex.body.count).toBe(1 + STANDARD.length);
    expect(ids(globex)).toContain(refs["g-runtime"]);
    expect(globex.body.data.every((m: { buyerCompanyId: number }) => m.buyerCompanyId === refs.globex)).toBe(true);
    expect((await t.call("acme-key", "GET", `${TYPES}?buyerCompanyId=${refs.globex}`)).body.count).toBe(0);
  });

  it("starts every company with the standard catalog, so a new company can create meters at once", async () => {
    const catalog = await t.call("acme-key", "GET", `${TYPES}?limit=25&sort_by=id`);
    const standard = catalog.body.data
      .filter((m: { id: number }) => m.id !== refs.runtime && m.id !== refs.temp)
      .map((m: { name: string; valueType: string; valueUnit: string }) => [m.name, m.valueUnit, m.valueType]);
    expect(standard).toEqual(STANDARD.map(([name, unit]) => [name, unit, "number"]));
    // A company created now (by whatever path) gets the same rows, its own.
    const newco = await t.db.buyerCompany.create({ data: { name: "Newco" } });
    const rows = await t.db.meterType.findMany({ where: { buyerCompanyId: newco.id }, orderBy: { id: "asc" } });
    expect(rows.map((m) => [m.name, m.valueUnit, m.valueType])).toEqual(STANDARD.map(([n, u]) => [n, u, "number"]));
    const kwh = (await t.call("acme-key", "GET", `${TYPES}?valueUnit=kWh`)).body.data[0];
    const meter = await t.call("acme-key", "POST", "/v1/buyer/asset/meters", {
      name: "Main panel energy",
      assetId: refs["rtu-1"],
      meterTypeId: kwh.id,
    });
    expect(meter.status).toBe(200);
    expect(meter.body.data).toMatchObject({ meterTypeId: kwh.id, valueType: "number", valueUnit: "kWh" });
  });

  it("gives an integrator the meterTypeId that POST /asset/meters needs", async () => {
    const hours = (await t.call("acme-key", "GET", `${TYPES}?valueUnit=h`)).body.data[0];
    const meter = await t.call("acme-key", "POST", "/v1/buyer/asset/meters", {
      name: "Compressor hours",
      assetId: refs["rtu-1"],
      meterTypeId: hours.id,
    });
    expect(meter.status).toBe(200);
    expect(meter.body.data).toMatchObject({
      meterTypeId: hours.id,
      valueType: hours.valueType,
      valueUnit: hours.valueUnit,
    });
  });
});

describe("GET /v1/supplier/asset/meter_types", () => {
  it("shows related buyers' catalogs (the types of the meters on the assets the key reads), nothing of unrelated buyers", async () => {
    await t.call("acme-key", "POST", "/v1/buyer/asset/meters", {
      name: "Supply temp",
      assetId: refs["rtu-1"],
      meterTypeId: refs.temp,
    });
    // Acme's whole catalog: the standard types and its own two.
    const acmeCatalog = ids(await t.call("acme-key", "GET", `${TYPES}?limit=25`));
    expect(acmeCatalog).toHaveLength(STANDARD.length + 2);
    expect(acmeCatalog).toEqual(expect.arrayContaining([refs.runtime, refs.temp]));
    for (const key of ["coolco-key", "inhouse-key"]) {
      const list = await t.call(key, "GET", `${SUPPLIER_TYPES}?limit=25`);
      expect(list.status, key).toBe(200);
      expect(ids(list), key).toEqual(acmeCatalog);
      const asset = await t.call(key, "GET", `/v1/supplier/asset/assets/${refs["rtu-1"]}`);
      for (const m of asset.body.data.meters) expect(ids(list)).toContain(m.meterTypeId);
      expect((await t.call(key, "GET", `${SUPPLIER_TYPES}/${refs.temp}`)).body.data.valueUnit).toBe("F");
      expect((await t.call(key, "GET", `${SUPPLIER_TYPES}/${refs["g-runtime"]}`)).status).toBe(400);
    }
    const unrelated = await t.call("unrelated-supplier-key", "GET", SUPPLIER_TYPES);
    expect(unrelated.body.count).toBe(0);
    expect((await t.call("unrelated-supplier-key", "GET", `${SUPPLIER_TYPES}/${refs.runtime}`)).status).toBe(400);
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_TYPES}/count_by`)).body.data.count).toBe(acmeCatalog.length);
  });
});
