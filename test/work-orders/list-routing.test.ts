// Lists and counts without a search text go to the bitmap postings only for a company of
// SEARCH_BITMAP_MIN_COMPANY indexed work orders or more (rules/list.ts bitmapsFor): below it, plain SQL
// answers in one statement where the bitmap path sends three. Two instances with the same fixture and
// work orders: one as configured (the fixture's company is far below the default), one with the
// threshold at 0 (every company on the bitmaps). The answers must be the same and the statement counts
// must show which path ran; a search takes the bitmaps on both.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db.ts";
import { BITMAP_GROUPS, indexedWorkOrders } from "../../src/schema/work-orders/search/bitmaps.ts";
import { refreshSearchVector } from "../../src/schema/work-orders/search/vector.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let configured: TestApp;
let bitmapsAlways: TestApp;

async function workOrders(t: TestApp) {
  const { refs } = t.fixture;
  for (let i = 0; i < 12; i++) {
    const at = new Date(Date.UTC(2026, 9, 1) + i * 3_600_000);
    const { id } = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs[i % 2 ? "store-1" : "store-2"],
        problemTypeId: refs.hvac,
        title: `Routing ${i} compressor`,
        status: i % 3 ? "Unassigned" : "TechAssigned",
        createdBy: "alice@acme.example",
        createdAt: at,
        statusChangedAt: at,
      },
    });
    await refreshSearchVector(t.db, id);
  }
}

/** What both paths must agree on: the rows' ids in order, and the total. */
const listOf = (body: unknown) => {
  const { data, count } = body as { data: { id: number }[]; count: number };
  return { ids: data.map((w) => w.id), count };
};

beforeAll(async () => {
  [configured, bitmapsAlways] = await Promise.all([
    startTestApp({ countStatements: true }),
    startTestApp({ countStatements: true, configure: (c) => void (c.searchBitmapMinCompany = 0) }),
  ]);
  await Promise.all([workOrders(configured), workOrders(bitmapsAlways)]);
});
afterAll(async () => {
  await Promise.all([configured?.close(), bitmapsAlways?.close()]);
});

/** The answer of a REST list on `t` and the statements it sent (asked once before: one-off work is not counted). */
async function listed(t: TestApp, path: string) {
  await t.call("acme-key", "GET", path);
  const before = t.statements!.statements;
  const reply = await t.call("acme-key", "GET", path);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { body: reply.body, statements: t.statements!.statements - before };
}

/** A list's answer on `t` with the texts of the statements it sent (the company's size read before). */
async function texts(t: TestApp, path: string) {
  await t.call("acme-key", "GET", path); // the company's size is read once a minute: not this request's
  t.statements!.recording = [];
  const reply = await t.call("acme-key", "GET", path);
  const recorded = t.statements!.recording;
  t.statements!.recording = undefined;
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return {
    list: listOf(reply.body),
    counted: recorded.filter((s) => /count\(\*\)/.test(s)),
    docs: recorded.some((s) => s.includes('"WorkOrderSearchDoc"')),
  };
}

describe("work order lists without a search text, by company size", () => {
  const filtered = `/v1/buyer/work_order/work_orders?status=Unassigned&limit=5&sort_by=createdAt&order=desc`;

  it("a small company's filter-only list is one plain SQL statement, with the bitmaps' answer", async () => {
    const plain = await listed(configured, filtered);
    const bitmaps = await listed(bitmapsAlways, filtered);
    expect(listOf(plain.body)).toEqual(listOf(bitmaps.body));
    expect(listOf(plain.body).count).toBeGreaterThanOrEqual(8);
    expect(plain.statements).toBe(1);
    expect(bitmaps.statements).toBeGreaterThan(1);
  });

  it("count_by a status and every facet answer alike on both paths (the bitmaps' groups written by PostgreSQL)", async () => {
    let nullGroups = 0;
    for (const group of BITMAP_GROUPS) {
      const path = `/v1/buyer/work_order/work_orders/count_by?group_by=${group}`;
      const plain = await listed(configured, path);
      const bitmaps = await listed(bitmapsAlways, path);
      expect(plain.body, group).toEqual(bitmaps.body);
      expect(plain.statements, group).toBeLessThan(bitmaps.statements);
      const groups = (plain.body as { data: { value: unknown }[] }).data;
      nullGroups += Number(groups.some((g) => g.value === null));
      // Both paths write their groups' JSON with the same aggregate: the reference is a plain GROUP BY.
      const reference = await configured.db.$queryRawUnsafe<{ value: unknown; count: number }[]>(
        `SELECT "${group}"${group === "status" ? "::text" : ""} AS value, count(*)::int AS count FROM "WorkOrder"
          WHERE "buyerCompanyId" = $1 GROUP BY "${group}" ORDER BY "${group}" NULLS LAST`,
        configured.fixture.refs.acme,
      );
      expect(groups, group).toEqual(reference);
      // The same groups in a GraphQL answer, where the JSON scalar is the value the text holds.
      const graph = await bitmapsAlways.graphql("acme-key", "query($g: String) { workOrdersCountBy(group_by: $g) }", {
        g: group,
      });
      expect((graph.body as { data: { workOrdersCountBy: unknown } }).data.workOrdersCountBy, group).toEqual(groups);
    }
    // Work orders without an asset, a supplier, …: the null group, made after the statement, is compared too.
    expect(nullGroups).toBeGreaterThan(0);
  });

  it("a search takes the bitmaps whatever the company's size", async () => {
    const path = `/v1/buyer/work_order/work_orders?search=compressor&limit=5`;
    const small = await listed(configured, path);
    const always = await listed(bitmapsAlways, path);
    expect(listOf(small.body)).toEqual(listOf(always.body));
    expect(listOf(small.body).count).toBe(12);
    expect(small.statements).toBe(always.statements);
  });

  it("a list without a filter takes a large company's total from the dictionary and its page from the docs, a small one's from its rows", async () => {
    for (const sort of ["", "&sort_by=locationName&order=desc", "&sort_by=lastServiceCallServiceScheduledAt"]) {
      const path = `/v1/buyer/work_order/work_orders?limit=5&offset=3${sort}`;
      const plain = await texts(configured, path);
      const always = await texts(bitmapsAlways, path);
      expect(plain.list).toEqual(always.list);
      expect(plain.list.count).toBeGreaterThanOrEqual(12);
      expect(plain.counted).toEqual([expect.stringMatching(/SELECT count\(\*\)::int AS count FROM "WorkOrder"/)]);
      expect(always.counted).toEqual([expect.stringContaining('"WorkOrderSearchTerm"')]);
      expect([plain.docs, always.docs]).toEqual([false, true]);
    }
    // A new work order is pending until indexed: the dictionary's total counts it from its live row.
    await workOrders(bitmapsAlways);
    await workOrders(configured);
    const path = `/v1/buyer/work_order/work_orders?limit=5&offset=0&sort_by=locationName`;
    expect((await texts(bitmapsAlways, path)).list).toEqual((await texts(configured, path)).list);
  });

  it("a created window alone takes a large company's page and total from the docs, a small one's from its rows", async () => {
    // Hours 2 to 8 of the first day (inclusive): 7 of each batch of 12 (two batches by now in either instance).
    const window = [
      "createdAtStart=2026-10-01T02:00:00.000Z&createdAtEnd=2026-10-01T08:00:00.000Z",
      "createdAt=2026-10-01T02:00:00.000Z,2026-10-01T08:00:00.000Z",
    ];
    for (const [i, filter] of window.entries())
      for (const sort of [
        "",
        "&sort_by=createdAt&order=asc",
        "&sort_by=locationName&order=desc",
        "&sort_by=woPriority",
      ]) {
        const path = `/v1/buyer/work_order/work_orders?${filter}&limit=4&offset=${i * 2}${sort}`;
        const plain = await texts(configured, path);
        const always = await texts(bitmapsAlways, path);
        expect(plain.list, path).toEqual(always.list);
        expect(plain.list.count, path).toBe(14);
        expect(plain.list.ids, path).toHaveLength(4);
        expect([plain.docs, always.docs], path).toEqual([false, true]);
        expect(always.counted, path).toEqual([expect.stringContaining('FROM "WorkOrderSearchDoc" d')]);
      }
  });
});

describe("the company's size that routes a list, read at most once a minute", () => {
  it("is kept per database client: company ids are a database's own", async () => {
    // Two databases whose company 1 differ (the tests' databases share their fixture's ids in one process).
    const client = (size: number) => ({ $queryRaw: async () => [{ size }] }) as unknown as Db;
    const [small, large] = [client(12), client(25_000)];
    const now = () => new Date();
    expect(await indexedWorkOrders({ db: small, now }, 1)).toBe(12);
    expect(await indexedWorkOrders({ db: large, now }, 1)).toBe(25_000);
    expect(await indexedWorkOrders({ db: small, now }, 1)).toBe(12);
  });
});
