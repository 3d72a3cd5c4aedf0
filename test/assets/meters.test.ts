// Meters and meter readings from the outside: derived fields, reading modes, tenant scope, numeric
// values, readings across meters and the batched lastBaselineValue.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const METERS = "/v1/buyer/asset/meters";
const READINGS = "/v1/buyer/asset/meter_readings";

async function meter(extra: Record<string, unknown> = {}) {
  const reply = await t.call("acme-key", "POST", METERS, {
    name: "Runtime",
    assetId: refs["rtu-1"],
    meterTypeId: refs.runtime,
    ...extra,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}
async function reading(meterId: number, value: string, recordedAt: string, extra: Record<string, unknown> = {}) {
  const reply = await t.call("acme-key", "POST", READINGS, { meterId, value, recordedAt, ...extra });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

describe("POST /asset/meters", () => {
  it("defaults to direct_reading and derives valueType, valueUnit and locationId, ignoring them in the body", async () => {
    const reply = await t.call("acme-key", "POST", METERS, {
      name: "Temp",
      assetId: refs["rtu-1"],
      meterTypeId: refs.temp,
      valueType: "text",
      valueUnit: "C",
      locationId: refs["store-2"],
      buyerCompanyId: refs.globex,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "Meter",
      status: "ok",
      data: {
        name: "Temp",
        assetId: refs["rtu-1"],
        meterTypeId: refs.temp,
        readingMode: "direct_reading",
        valueType: "number",
        valueUnit: "F",
        locationId: refs["store-1"],
        buyerCompanyId: refs.acme,
      },
    });
    for (const readingMode of ["change_from_baseline", "compare_to_target"])
      expect((await meter({ readingMode })).readingMode).toBe(readingMode);
    expect((await meter({ readingMode: null })).readingMode).toBe("direct_reading");
  });

  it("rejects other companies' assets and meter types, bad reading modes and malformed bodies with 400, writing nothing", async () => {
    const before = await t.db.meter.count();
    const cases: [unknown, string?][] = [
      [{ name: "x", assetId: refs["g-asset"], meterTypeId: refs.runtime }, "assetId"],
      [{ name: "x", assetId: refs["rtu-1"], meterTypeId: refs["g-runtime"] }, "meterTypeId"],
      [{ name: "x", assetId: 999999, meterTypeId: refs.runtime }, "assetId"],
      [{ name: "x", assetId: refs["rtu-1"], meterTypeId: refs.runtime, readingMode: "seriesType" }],
      [{ name: "x", assetId: refs["rtu-1"], meterTypeId: refs.runtime, readingMode: 3 }],
      [{ name: " ", assetId: refs["rtu-1"], meterTypeId: refs.runtime }],
      [{ assetId: refs["rtu-1"], meterTypeId: refs.runtime }],
      [{ name: "x", assetId: "one", meterTypeId: refs.runtime }],
      [{}],
      [[]],
      ["{oops"],
    ];
    for (const [body, field] of cases) {
      const reply = await t.call("acme-key", "POST", METERS, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
      if (field) expect(reply.body.message).toContain(field);
    }
    // Globex's key with Acme's asset is refused the same way.
    expect(
      (
        await t.call("globex-key", "POST", METERS, {
          name: "x",
          assetId: refs["rtu-1"],
          meterTypeId: refs["g-runtime"],
        })
      ).status,
    ).toBe(400);
    expect(await t.db.meter.count()).toBe(before);
  });

  it("is a buyer route only", async () => {
    expect(
      (
        await t.call("inhouse-key", "POST", "/v1/supplier/asset/meters", {
          name: "x",
          assetId: refs["rtu-1"],
          meterTypeId: refs.runtime,
        })
      ).status,
    ).toBe(404);
    expect((await t.call("inhouse-key", "GET", "/v1/supplier/asset/meters")).status).toBe(404);
  });
});

describe("GET /asset/meters", () => {
  it("lists with filters, counts, reads one, and keeps tenants apart", async () => {
    const a = await meter({ name: "Baseline meter", readingMode: "change_from_baseline" });
    const list = await t.call(
      "acme-key",
      "GET",
      `${METERS}?readingMode=change_from_baseline,compare_to_target&limit=25`,
    );
    expect(list.body.type).toBe("Meter");
    expect(list.body.data.map((m: { id: number }) => m.id)).toContain(a.id);
    expect(list.body.data.every((m: { readingMode: string }) => m.readingMode !== "direct_reading")).toBe(true);
    expect((await t.call("acme-key", "GET", `${METERS}?assetId=${refs["g-asset"]}`)).body.count).toBe(0);
    expect((await t.call("acme-key", "GET", `${METERS}?locationId=${refs["store-1"]}`)).body.count).toBe(
      await t.db.meter.count({ where: { locationId: refs["store-1"] } }),
    );
    // An unknown reading mode in a filter is bad input, not a failed query.
    expect((await t.call("acme-key", "GET", `${METERS}?readingMode=bogus`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${METERS}/count_by?readingMode=bogus`)).status).toBe(400);

    const count = await t.call("acme-key", "GET", `${METERS}/count_by?assetId=${refs["rtu-1"]}`);
    expect(count.body).toEqual({
      type: "count",
      status: "ok",
      data: { count: await t.db.meter.count({ where: { assetId: refs["rtu-1"] } }) },
    });
    const grouped = await t.call("acme-key", "GET", `${METERS}/count_by?group_by=readingMode`);
    expect(grouped.body.data).toContainEqual({
      value: "change_from_baseline",
      count: await t.db.meter.count({ where: { readingMode: "change_from_baseline" } }),
    });

    expect((await t.call("acme-key", "GET", `${METERS}/${a.id}`)).body).toMatchObject({
      type: "Meter",
      data: { id: a.id, name: "Baseline meter" },
    });
    expect((await t.call("globex-key", "GET", `${METERS}/${a.id}`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${METERS}/9999999`)).status).toBe(404);
    expect((await t.call("globex-key", "GET", METERS)).body).toMatchObject({ count: 0, data: [] });
    expect((await t.call("globex-key", "GET", `${METERS}/count_by`)).body.data).toEqual({ count: 0 });
  });
});

describe("meter readings", () => {
  it("stores numeric text and answers with it; isBaseline defaults to false", async () => {
    const m = await meter();
    const r = await reading(m.id, "12.50", "2026-01-01T10:00:00+02:00", {
      expectedValue: "13",
      recordedBy: "tech@coolco.example",
    });
    expect(r).toMatchObject({
      meterId: m.id,
      value: "12.5",
      expectedValue: "13",
      recordedBy: "tech@coolco.example",
      isBaseline: false,
      recordedAt: "2026-01-01T08:00:00.000Z",
      lastBaselineValue: null,
    });
    expect((await reading(m.id, "-0.000001", "2026-01-01T11:00:00Z")).value).toBe("-0.000001");
    expect((await reading(m.id, "12345678901234", "2026-01-01T11:00:00Z")).value).toBe("12345678901234");
    const one = await t.call("acme-key", "GET", `${READINGS}/${r.id}`);
    expect(one.body).toMatchObject({ type: "MeterReading", status: "ok", data: { id: r.id, value: "12.5" } });
  });

  it("rejects non-numeric values, bad timestamps, foreign or unknown meters and malformed bodies with 400, writing nothing", async () => {
    const m = await meter();
    const before = await t.db.meterReading.count();
    const ok = { meterId: m.id, value: "1", recordedAt: "2026-01-01T00:00:00Z" };
    const bodies: unknown[] = [
      { ...ok, value: "abc" },
      { ...ok, value: "" },
      { ...ok, value: "1e5" },
      { ...ok, value: "1.2.3" },
      { ...ok, value: "." },
      { ...ok, value: "+5" },
      { ...ok, value: 12.5 },
      { ...ok, value: "1.0000001" },
      { ...ok, value: "123456789012345" },
      { ...ok, value: null },
      { ...ok, recordedAt: "2026-01-01" },
      { ...ok, recordedAt: "2026-01-01T00:00:00" },
      { ...ok, recordedAt: "yesterday" },
      { meterId: m.id, value: "1" },
      { ...ok, meterId: undefined },
      { ...ok, isBaseline: "yes" },
      { ...ok, meterId: 9999999 },
      [ok],
      "[1,",
      "true",
    ];
    for (const body of bodies) {
      const reply = await t.call("acme-key", "POST", READINGS, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    // Globex may neither write to Acme's meter nor Acme to Globex's.
    expect((await t.call("globex-key", "POST", READINGS, ok)).status).toBe(400);
    const gMeter = await t.call("globex-key", "POST", METERS, {
      name: "g",
      assetId: refs["g-asset"],
      meterTypeId: refs["g-runtime"],
    });
    expect(gMeter.status).toBe(200);
    expect((await t.call("acme-key", "POST", READINGS, { ...ok, meterId: gMeter.body.data.id })).status).toBe(400);
    expect(await t.db.meterReading.count()).toBe(before);
  });

  it("lists readings across all the company's meters unless filtered by meterId (comma lists work)", async () => {
    const [m1, m2] = [await meter({ name: "m1" }), await meter({ name: "m2" })];
    const r1 = await reading(m1.id, "1", "2026-02-01T00:00:00Z");
    const r2 = await reading(m2.id, "2", "2026-02-01T00:00:00Z");
    const ids = (body: { data: { id: number }[] }) => body.data.map((r) => r.id);
    const all = await t.call("acme-key", "GET", `${READINGS}?limit=25&sort_by=id&order=desc`);
    expect(all.body.type).toBe("MeterReading");
    expect(ids(all.body)).toEqual(expect.arrayContaining([r1.id, r2.id]));
    expect(all.body.count).toBe(await t.db.meterReading.count({ where: { buyerCompanyId: refs.acme } }));
    expect(ids((await t.call("acme-key", "GET", `${READINGS}?meterId=${m1.id}`)).body)).toEqual([r1.id]);
    expect(ids((await t.call("acme-key", "GET", `${READINGS}?meterId=${m1.id},${m2.id}`)).body)).toEqual([
      r1.id,
      r2.id,
    ]);
    const grouped = await t.call("acme-key", "GET", `${READINGS}/count_by?group_by=meterId&meterId=${m1.id},${m2.id}`);
    expect(grouped.body.data).toEqual([
      { value: m1.id, count: 1 },
      { value: m2.id, count: 1 },
    ]);
    expect((await t.call("acme-key", "GET", `${READINGS}/count_by?meterId=${m2.id}`)).body.data).toEqual({ count: 1 });
    // Another tenant sees none of them.
    expect((await t.call("globex-key", "GET", `${READINGS}/${r1.id}`)).status).toBe(400);
    expect((await t.call("globex-key", "GET", `${READINGS}?meterId=${m1.id}`)).body).toMatchObject({
      count: 0,
      data: [],
    });
    expect((await t.call("acme-key", "GET", `${READINGS}/8888888`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${READINGS}?meterId=x`)).status).toBe(400);
  });
});

describe("lastBaselineValue", () => {
  let m: { id: number };
  const byId: Record<string, { id: number }> = {};
  beforeAll(async () => {
    m = await meter({ name: "Baseline", readingMode: "change_from_baseline" });
    const other = await meter({ name: "Other baseline meter", readingMode: "change_from_baseline" });
    await reading(other.id, "999", "2026-03-01T12:00:00Z", { isBaseline: true }); // must not leak into m
    byId.b1 = await reading(m.id, "100", "2026-03-01T00:00:00Z", { isBaseline: true });
    byId.r1 = await reading(m.id, "105.5", "2026-03-02T00:00:00Z");
    byId.b2 = await reading(m.id, "110", "2026-03-03T00:00:00Z", { isBaseline: true });
    byId.sameTime = await reading(m.id, "111", "2026-03-03T00:00:00Z");
    byId.r2 = await reading(m.id, "120", "2026-03-04T00:00:00Z");
    byId.backfilled = await reading(m.id, "101", "2026-03-01T06:00:00Z"); // written last, recorded between b1 and r1
    byId.beforeAll = await reading(m.id, "90", "2026-02-28T00:00:00Z");
  });
  const expected: Record<string, string | null> = {
    beforeAll: null, // no baseline recorded before it
    b1: null, // a baseline does not count itself
    backfilled: "100",
    r1: "100",
    b2: "100", // the baseline it replaced
    sameTime: "110", // recorded at the same instant as b2: "as of recordedAt" includes it
    r2: "110",
  };

  it("is the most recent other baseline recorded at or before the reading, in the list and the single read", async () => {
    const list = await t.call("acme-key", "GET", `${READINGS}?meterId=${m.id}&limit=25`);
    const values = Object.fromEntries(
      list.body.data.map((r: { id: number; lastBaselineValue: string | null }) => [r.id, r.lastBaselineValue]),
    );
    for (const [name, value] of Object.entries(expected)) {
      expect(values[byId[name].id], name).toBe(value);
      expect((await t.call("acme-key", "GET", `${READINGS}/${byId[name].id}`)).body.data.lastBaselineValue, name).toBe(
        value,
      );
    }
  });

  it("comes back on the POST response too", async () => {
    expect((await reading(m.id, "130", "2026-03-05T00:00:00Z")).lastBaselineValue).toBe("110");
  });

  it("is null for meters in other reading modes, even with baseline readings", async () => {
    for (const readingMode of ["direct_reading", "compare_to_target"]) {
      const other = await meter({ readingMode });
      await reading(other.id, "5", "2026-03-01T00:00:00Z", { isBaseline: true });
      expect((await reading(other.id, "6", "2026-03-02T00:00:00Z")).lastBaselineValue, readingMode).toBeNull();
    }
  });

  it("takes one statement per page, not one per reading", async () => {
    // The app shares the test's Prisma client: record the raw statements it sends (vi.spyOn cannot wrap
    // Prisma's proxied methods).
    const db = t.db as unknown as { $queryRaw: (sql: TemplateStringsArray, ...values: unknown[]) => unknown };
    const original = db.$queryRaw;
    const statements: string[] = [];
    db.$queryRaw = (sql, ...values) => (statements.push(sql.join("?")), original.call(db, sql, ...values));
    try {
      const list = await t.call("acme-key", "GET", `${READINGS}?meterId=${m.id}&limit=25`);
      expect(list.body.data.length).toBeGreaterThanOrEqual(Object.keys(expected).length);
      expect(
        list.body.data.filter((r: { lastBaselineValue: string | null }) => r.lastBaselineValue !== null).length,
      ).toBeGreaterThan(1);
      expect(statements.filter((sql) => sql.includes("isBaseline"))).toHaveLength(1);
    } finally {
      db.$queryRaw = original;
    }
  });

  it("is served over GraphQL as well", async () => {
    const reply = await t.graphql(
      "acme-key",
      `query($f: JSON) { meterReadings(filter: $f, limit: 25) { count data { id value lastBaselineValue } } }`,
      { f: { meterId: m.id } },
    );
    expect(reply.body.errors).toBeUndefined();
    const r2 = reply.body.data.meterReadings.data.find((r: { id: number }) => r.id === byId.r2.id);
    expect(r2).toEqual({ id: byId.r2.id, value: "120", lastBaselineValue: "110" });
  });
});
