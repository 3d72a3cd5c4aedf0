// WorkOrderFilter's two translations (work-orders/rules/filter.ts) select the same work orders: the SQL
// conditions the stats read and the Prisma where connections read, both ANDed with the key's scope,
// checked against the rows this file creates (what each filter must select is written out here).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../src/db.ts";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import {
  type WorkOrderFilterValue,
  workOrderFilterSql,
  workOrderFilterWhere,
} from "../../src/schema/work-orders/rules/filter.ts";
import { refreshSearchVector } from "../../src/schema/work-orders/search/vector.ts";
import { workOrderScope, workOrderScopeSql } from "../../src/schema/work-orders/rules/scope.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let acme: Viewer;
const made: Record<string, number> = {};
let eastRegion: number;
const day = (n: number) => new Date(Date.UTC(2026, 9, n, 12));

beforeAll(async () => {
  t = await startTestApp();
  const { refs } = t.fixture;
  acme = { kind: "buyer", buyerCompanyId: refs.acme, supplierFacilityId: null } as Viewer;
  const east = await t.db.region.create({ data: { buyerCompanyId: refs.acme, name: "East" } });
  await t.db.location.update({ where: { id: refs["store-2"] }, data: { regionId: east.id } });
  eastRegion = east.id;
  const base = {
    buyerCompanyId: refs.acme,
    buyerFacilityId: refs["acme-hq"],
    problemTypeId: refs.hvac,
    createdBy: "alice@acme.example",
  };
  const rows = {
    a: {
      title: "Walk-in cooler leaking",
      status: "Unassigned",
      locationId: refs["store-1"],
      woPriority: 4,
      createdAt: day(1),
    },
    b: {
      title: "Door hinge",
      status: "TechAssigned",
      locationId: refs["store-2"],
      woPriority: 24,
      createdAt: day(2),
      supplierFacilityId: refs["coolco-pdx"],
      assetId: refs["rtu-1"],
    },
    c: {
      title: "Freezer alarm",
      status: "WaitingForReview",
      locationId: refs["store-1"],
      woPriority: 24,
      createdAt: day(3),
      isPM: true,
      problemTypeId: refs.plumbing,
    },
    d: {
      title: "Cooler fan noise",
      status: "CancelledWithReason",
      locationId: refs["store-2"],
      createdAt: day(4),
      supplierFacilityId: refs["inhouse-west"],
    },
  } as const;
  for (const [name, row] of Object.entries(rows))
    made[name] = (await t.db.workOrder.create({ data: { ...base, ...row, statusChangedAt: row.createdAt } })).id;
  // Globex's work order matches every filter below but is never in acme's scope.
  made.foreign = (
    await t.db.workOrder.create({
      data: {
        ...base,
        buyerCompanyId: refs.globex,
        buyerFacilityId: refs["globex-hq"],
        locationId: refs["g-store"],
        title: "Cooler leaking",
        status: "Unassigned",
        createdAt: day(1),
        statusChangedAt: day(1),
      },
    })
  ).id;
  for (const name of ["a", "b", "c", "d", "foreign"]) await refreshSearchVector(t.db, made[name]);
});
afterAll(() => t?.close());

async function bothForms(filter: WorkOrderFilterValue) {
  const where = Prisma.join([workOrderScopeSql(acme), ...workOrderFilterSql(filter)], " AND ");
  const bySql = await t.db.$queryRaw<{ id: number }[]>`SELECT w.id FROM "WorkOrder" w WHERE ${where} ORDER BY w.id`;
  const byPrisma = await t.db.workOrder.findMany({
    where: { AND: [workOrderScope(acme), await workOrderFilterWhere(t.db, acme, filter)] },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  const names = (rows: { id: number }[]) => rows.map((r) => Object.keys(made).find((k) => made[k] === r.id));
  expect(names(byPrisma)).toEqual(names(bySql));
  return names(bySql);
}

describe("WorkOrderFilter", () => {
  it("selects the same work orders in its SQL and Prisma forms, within the key's scope", async () => {
    const { refs } = t.fixture;
    expect(await bothForms({})).toEqual(["a", "b", "c", "d"]);
    expect(await bothForms({ status: ["Unassigned", "WaitingForReview"] })).toEqual(["a", "c"]);
    expect(await bothForms({ status: [] })).toEqual([]);
    expect(await bothForms({ locationIds: [refs["store-2"]], priorities: [24] })).toEqual(["b"]);
    expect(await bothForms({ regionIds: [eastRegion] })).toEqual(["b", "d"]);
    expect(await bothForms({ supplierFacilityIds: [refs["coolco-pdx"], refs["inhouse-west"]] })).toEqual(["b", "d"]);
    expect(await bothForms({ problemTypeIds: [refs.plumbing], isPM: true })).toEqual(["c"]);
    expect(await bothForms({ assetIds: [refs["rtu-1"]], ids: [made.a, made.b] })).toEqual(["b"]);
    // from inclusive, to exclusive: day 2 at noon is in, day 4 at noon is out.
    expect(await bothForms({ createdAt: { from: day(2), to: day(4) } })).toEqual(["b", "c"]);
    expect(await bothForms({ statusChangedAt: { to: day(2) } })).toEqual(["a"]);
  });

  it("searches as the work order list does", async () => {
    const listed = await t.call("acme-key", "GET", "/v1/buyer/work_order/work_orders?search=cooler&limit=25");
    const expected = listed.body.data
      .map((w: { id: number }) => Object.keys(made).find((k) => made[k] === w.id))
      .sort();
    expect(expected).toEqual(["a", "d"]);
    expect(await bothForms({ search: "cooler" })).toEqual(expected);
    expect(await bothForms({ search: "cooler", status: ["Unassigned"] })).toEqual(["a"]);
  });

  it("refuses a range that ends before it starts", () => {
    expect(() => workOrderFilterSql({ createdAt: { from: day(3), to: day(3) } })).toThrow(
      /createdAt.from must be before/,
    );
  });
});
