// Rows read as JSON (src/schema/core/json-rows.ts) must be what Prisma's findMany gives for the same
// query, value for value (Date, Decimal, BigInt, Json, lists, NULL lists, nested relations and their
// order), and the reader must decline what it cannot answer exactly, so that Prisma loads it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma, sqlRows } from "../../src/db.ts";
import { rowReader, type RowReader } from "../../src/schema/core/json-rows.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

/** What the work order list asks for in REST (every field of the REST answer). */
const WORK_ORDER_QUERY = {
  include: {
    subscribers: { orderBy: { email: "asc" } },
    statusChanges: { orderBy: [{ at: "asc" }, { id: "asc" }] },
    serviceCalls: { orderBy: { id: "asc" } },
  },
};

async function readById(model: string, reader: RowReader, ids: number[] | bigint[]) {
  const table = Prisma.raw(`"${model}"`);
  const [{ rows }] = await sqlRows<{ rows: unknown[] }>(
    t.db,
    Prisma.sql`SELECT coalesce(json_agg(${reader.json("w")} ORDER BY w.id), '[]') AS rows FROM ${table} w WHERE w.id = ANY(${ids})`,
  );
  return reader.read<Record<string, unknown>>(rows);
}

/** toEqual, plus every Decimal's exact text (two Decimals of one value but another scale must not pass as equal text). */
function expectSame(actual: unknown, expected: unknown) {
  expect(actual).toEqual(expected);
  const decimals = (value: unknown): string[] =>
    Prisma.Decimal.isDecimal(value)
      ? [value.toFixed()]
      : value && typeof value === "object"
        ? Object.values(value).flatMap(decimals)
        : [];
  expect(decimals(actual)).toEqual(decimals(expected));
}

describe("rows read as JSON", () => {
  it("equal Prisma's work orders with their status history, service calls and subscribers", async () => {
    const full = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Every column set",
        description: 'with "quotes", a back\\slash and ünïcödé',
        status: "TechAssigned",
        createdBy: "alice@acme.example",
        supplierFacilityId: refs["coolco-pdx"],
        supplierPrimaryContactEmail: "tech@coolco.example",
        assetId: refs["rtu-1"],
        subAssetIds: [3, 1, 2],
        needsApproval: true,
        isPM: true,
        poNumber: "PO-1",
        nte: new Prisma.Decimal("1234567890.05"),
        glCode: "GL",
        costCenter: "CC",
        internalNotes: "private",
        approvedBy: "bob@acme.example",
        approvedAt: new Date("2026-01-02T03:04:05.678Z"),
        woPriority: 24,
        currencyId: "CAD",
        locationCurrencyId: "USD",
        currencyExchangeRate: new Prisma.Decimal("1.23456789"),
        currencyExchangeRateAt: new Date("2026-01-01T00:00:00.001Z"),
        statusChangedAt: new Date("2026-02-03T04:05:06.789Z"),
        assignedAt: new Date("2026-02-03T04:05:06Z"),
        statusChanges: {
          create: [
            // Out of id order in time, so the relation's orderBy (at, then id) is what decides.
            {
              from: "Unassigned",
              to: "TechAssigned",
              action: "assign",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-03T04:05:06.789Z"),
            },
            {
              from: null,
              to: "Unassigned",
              action: "create",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-01T00:00:00Z"),
            },
            {
              from: null,
              to: "Unassigned",
              action: "create",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-01T00:00:00Z"),
            },
          ],
        },
        serviceCalls: {
          create: [
            {
              technicianEmail: "t@coolco.example",
              scheduledAt: new Date("2026-03-01T08:00:00Z"),
              checkInAt: new Date("2026-03-01T08:10:00.5Z"),
              checkInNote: "in",
            },
            { outcome: "completed", reason: null },
          ],
        },
        subscribers: { create: [{ email: "zed@acme.example" }, { email: "amy@acme.example" }] },
      },
    });
    const bare = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-2"],
        problemTypeId: refs.plumbing,
        title: "Nothing optional",
        status: "Unassigned",
        createdBy: "alice@acme.example",
        statusChangedAt: new Date(),
      },
    });
    // A NULL list (rows written by SQL, or before the column had a default) reads as [] in Prisma.
    await t.db.$executeRaw`UPDATE "WorkOrder" SET "subAssetIds" = NULL WHERE id = ${bare.id}`;

    const ids = [full.id, bare.id];
    for (const query of [WORK_ORDER_QUERY, {}, { include: { statusChanges: true } }]) {
      const reader = rowReader("WorkOrder", query);
      expect(reader, JSON.stringify(query)).toBeDefined();
      const expected = await t.db.workOrder.findMany({
        ...(query as object),
        where: { id: { in: ids } },
        orderBy: { id: "asc" },
      });
      expectSame(await readById("WorkOrder", reader!, ids), expected);
    }
    const [read] = await readById("WorkOrder", rowReader("WorkOrder", WORK_ORDER_QUERY)!, [full.id]);
    expect((read.statusChanges as { action: string }[]).map((c) => c.action)).toEqual(["create", "create", "assign"]);
    expect((read.subscribers as { email: string }[]).map((s) => s.email)).toEqual([
      "amy@acme.example",
      "zed@acme.example",
    ]);
    expect(read.nte).toBeInstanceOf(Prisma.Decimal);
  });

  it("equal Prisma's for BigInt, Json, calendar dates and text lists", async () => {
    const event = await t.db.outboxEvent.create({
      data: {
        eventType: "workorder.created",
        workOrderId: 1,
        buyerCompanyId: refs.acme,
        payload: { n: 1.5, big: "12345678901234567890", list: [null, true], nested: { s: "x" } },
      },
    });
    const events = rowReader("OutboxEvent", {})!;
    expectSame(
      await readById("OutboxEvent", events, [event.id]),
      await t.db.outboxEvent.findMany({ where: { id: event.id } }),
    );

    await t.db.asset.update({ where: { id: refs["rtu-1"] }, data: { installDate: new Date("2024-02-29T00:00:00Z") } });
    const assets = rowReader("Asset", {})!;
    const expected = await t.db.asset.findMany({
      where: { id: { in: [refs["rtu-1"], refs["g-asset"]] } },
      orderBy: { id: "asc" },
    });
    expectSame(await readById("Asset", assets, [refs["rtu-1"], refs["g-asset"]]), expected);

    const locations = rowReader("Location", {})!;
    const stores = [refs["store-1"], refs["store-2"]];
    expectSame(
      await readById("Location", locations, stores),
      await t.db.location.findMany({ where: { id: { in: stores } }, orderBy: { id: "asc" } }),
    );
  });

  it("declines what only Prisma can load", () => {
    const declined = [
      { select: { id: true } },
      { include: { location: true } }, // a to-one relation
      { include: { statusChanges: { where: { action: "create" } } } },
      { include: { statusChanges: { take: 1 } } },
      { include: { statusChanges: { include: { workOrder: true } } } },
      { include: { statusChanges: { orderBy: { workOrder: { id: "asc" } } } } }, // ordered by a relation's field
      { include: { statusChanges: { orderBy: { at: "sideways" } } } },
      { include: { noSuchRelation: true } },
      { include: { statusChanges: true }, where: { id: 1 } },
    ];
    for (const query of declined) expect(rowReader("WorkOrder", query), JSON.stringify(query)).toBeUndefined();
  });
});

describe("the work order list", () => {
  it("answers the same rows through the JSON reader (REST) and through Prisma (a GraphQL selection with a nested object)", async () => {
    const fields =
      "id title status nte subAssetIds approvedAt currencyExchangeRate subscribers statusChanges { from to action at } serviceCalls { id checkInAt outcome }";
    const list = (extra: string) =>
      t.graphql(
        "acme-key",
        `{ workOrders(limit: 25, sort_by: "createdAt", order: "desc") { count data { ${fields} ${extra} } } }`,
      );
    const [viaJson, viaPrisma] = await Promise.all([list(""), list("asset { id }")]);
    expect(viaJson.body.errors).toBeUndefined();
    expect(viaJson.body.data.workOrders.count).toBeGreaterThan(1);
    const withoutAsset = viaPrisma.body.data.workOrders.data.map(
      ({ asset: _, ...rest }: Record<string, unknown>) => rest,
    );
    expect(viaJson.body.data.workOrders.data).toEqual(withoutAsset);
    expect(viaJson.body.data.workOrders.count).toBe(viaPrisma.body.data.workOrders.count);
  });
});
