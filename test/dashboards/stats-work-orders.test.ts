// workOrderStats from outside: exact against a plain SQL count over the rows this file creates (several
// statuses, locations, regions, suppliers, priorities and dates), two dimensions at once, time buckets,
// the service-level figures, a supplier key's scope, a foreign tenant, and bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, Prisma, sqlRows } from "../../src/db.ts";
import { workOrderStats, workOrderStatsSql } from "../../src/schema/work-orders/rules/stats.ts";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const HOUR = 3_600_000;
/** The fixed past the dated rows are created in (weeks of October 2026; the 5th is a Monday). */
const october = (day: number, hour = 12) => new Date(Date.UTC(2026, 9, day, hour));
const acmeIds: number[] = [];

type Status =
  | "Unassigned"
  | "PendingApproval"
  | "ConfirmedByServiceProvider"
  | "TechAssigned"
  | "WaitingForReview"
  | "WorkReviewedAndCompleted"
  | "WorkUnsatisfactory"
  | "CancelledWithReason";

async function workOrder(fields: {
  status: Status;
  createdAt: Date;
  location?: string;
  supplier?: string | null;
  priority?: number | null;
  company?: "acme" | "globex";
  /** Status changes after creation, as [hours after createdAt, to]. */
  history?: [number, Status][];
}) {
  const { refs } = t.fixture;
  const globex = fields.company === "globex";
  const row = await t.db.workOrder.create({
    data: {
      buyerCompanyId: globex ? refs.globex : refs.acme,
      buyerFacilityId: globex ? refs["globex-hq"] : refs["acme-hq"],
      locationId: refs[fields.location ?? (globex ? "g-store" : "store-1")],
      problemTypeId: refs.hvac,
      title: "Stats fixture",
      status: fields.status,
      createdBy: "alice@acme.example",
      supplierFacilityId:
        fields.supplier === undefined ? refs["coolco-pdx"] : fields.supplier ? refs[fields.supplier] : null,
      woPriority: fields.priority ?? null,
      createdAt: fields.createdAt,
      statusChangedAt: fields.createdAt,
      statusChanges: {
        create: (fields.history ?? []).map(([hours, to]) => ({
          to,
          action: "fixture",
          actor: "Fixture",
          actorKind: "system",
          at: new Date(fields.createdAt.getTime() + hours * HOUR),
        })),
      },
    },
  });
  if (!globex) acmeIds.push(row.id);
  return row.id;
}

const stats = (key: string, query: string, variables?: Record<string, unknown>) =>
  t.graphql(key, query, variables).then((r) => {
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data.workOrderStats.rows as Record<string, any>[];
  });

beforeAll(async () => {
  t = await startTestApp();
  const statuses: Status[] = ["Unassigned", "TechAssigned", "WaitingForReview", "CancelledWithReason"];
  const locations = ["store-1", "store-2"];
  const suppliers = ["coolco-pdx", "inhouse-west", null];
  // 36 dated work orders over four October weeks, every combination of the keys above occurring.
  for (let i = 0; i < 36; i++)
    await workOrder({
      status: statuses[i % 4],
      location: locations[(i >> 2) % 2],
      supplier: suppliers[i % 3],
      priority: [4, 24, null][(i >> 1) % 3],
      createdAt: october(1 + ((i * 5) % 28), i % 24),
    });
  await workOrder({ status: "Unassigned", createdAt: october(3), company: "globex", supplier: null });
});
afterAll(() => t?.close());

describe("workOrderStats", () => {
  it("counts exactly as a plain SQL GROUP BY over the same rows, by two dimensions", async () => {
    const { refs } = t.fixture;
    const rows = await stats(
      "acme-key",
      `query($filter: WorkOrderFilter) { workOrderStats(filter: $filter, groupBy: [STATUS, LOCATION]) {
        rows { status location { id name } count } } }`,
      { filter: { ids: acmeIds, createdAt: { from: "2026-10-05T00:00:00Z", to: "2026-10-26T00:00:00Z" } } },
    );
    const expected = await t.db.$queryRaw<{ status: string; location: number; name: string; count: number }[]>`
      SELECT w.status::text AS status, w."locationId" AS location, l.name, count(*)::int AS count
        FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
       WHERE w."buyerCompanyId" = ${refs.acme} AND w.id = ANY(${acmeIds})
         AND w."createdAt" >= '2026-10-05T00:00:00Z' AND w."createdAt" < '2026-10-26T00:00:00Z'
       GROUP BY w.status, 2, 3 ORDER BY w.status, 2`;
    expect(expected.length).toBeGreaterThan(4);
    expect(rows).toEqual(
      expected.map((e) => ({ status: e.status, location: { id: e.location, name: e.name }, count: e.count })),
    );
  });

  it("buckets creation times by UTC week, with supplier names (null: no supplier)", async () => {
    const { refs } = t.fixture;
    const rows = await stats(
      "acme-key",
      `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [SUPPLIER_FACILITY, CREATED], bucket: WEEK) {
        rows { supplierFacility { id name } created count status location { id } } } }`,
      { ids: acmeIds },
    );
    const expected = await t.db.$queryRaw<
      { supplier: number | null; name: string | null; week: Date; count: number }[]
    >`
      SELECT w."supplierFacilityId" AS supplier, s.name, date_trunc('week', w."createdAt" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS week,
             count(*)::int AS count
        FROM "WorkOrder" w LEFT JOIN "SupplierFacility" s ON s.id = w."supplierFacilityId"
       WHERE w."buyerCompanyId" = ${refs.acme} AND w.id = ANY(${acmeIds})
       GROUP BY 1, 2, 3 ORDER BY 1 NULLS LAST, 3`;
    expect(rows).toEqual(
      expected.map((e) => ({
        supplierFacility: e.supplier === null ? null : { id: e.supplier, name: e.name },
        created: e.week.toISOString(),
        count: e.count,
        status: null,
        location: null,
      })),
    );
    expect(rows.filter((r) => r.created === "2026-10-05T00:00:00.000Z").length).toBeGreaterThan(0); // a Monday
    for (const [bucket, unit] of [
      ["DAY", "day"],
      ["MONTH", "month"],
    ]) {
      const buckets = await stats(
        "acme-key",
        `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [CREATED], bucket: ${bucket}) { rows { created count } } }`,
        { ids: acmeIds },
      );
      const plain = await t.db.$queryRaw<{ start: Date; count: number }[]>`
        SELECT date_trunc(${unit}, w."createdAt" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS start, count(*)::int AS count
          FROM "WorkOrder" w WHERE w.id = ANY(${acmeIds}) GROUP BY 1 ORDER BY 1`;
      expect(buckets).toEqual(plain.map((p) => ({ created: p.start.toISOString(), count: p.count })));
    }
  });

  it("groups by region and priority", async () => {
    const { refs } = t.fixture;
    const rows = await stats(
      "acme-key",
      `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [REGION, PRIORITY]) { rows { region { name } priority count } } }`,
      { ids: acmeIds },
    );
    const expected = await t.db.$queryRaw<{ region: string; priority: number | null; count: number }[]>`
      SELECT r.name AS region, w."woPriority" AS priority, count(*)::int AS count
        FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId" JOIN "Region" r ON r.id = l."regionId"
       WHERE w."buyerCompanyId" = ${refs.acme} AND w.id = ANY(${acmeIds}) GROUP BY 1, 2 ORDER BY 2 NULLS LAST`;
    expect(rows).toEqual(expected.map((e) => ({ region: { name: e.region }, priority: e.priority, count: e.count })));
  });

  it("computes overdue from the priority's due time and the median from the first completion", async () => {
    const now = Date.now();
    const ago = (hours: number) => new Date(now - hours * HOUR);
    const ids = [
      // Open and past due (10 h old, due in 4): overdue.
      await workOrder({ status: "TechAssigned", priority: 4, createdAt: ago(10), location: "store-2" }),
      await workOrder({ status: "Unassigned", priority: 8, createdAt: ago(9), location: "store-2" }),
      // Open, not yet due; open without a priority; completed, cancelled: not overdue.
      await workOrder({ status: "TechAssigned", priority: 24, createdAt: ago(10), location: "store-2" }),
      await workOrder({ status: "TechAssigned", priority: null, createdAt: ago(100), location: "store-2" }),
      await workOrder({
        status: "WaitingForReview",
        priority: 4,
        createdAt: ago(50),
        location: "store-2",
        history: [
          [1, "TechAssigned"],
          [2, "WaitingForReview"],
        ],
      }),
      await workOrder({
        status: "WorkReviewedAndCompleted",
        priority: 4,
        createdAt: ago(50),
        location: "store-2",
        history: [
          [4, "WaitingForReview"],
          [5, "WorkReviewedAndCompleted"],
        ],
      }),
      // Reopened: its first completion (6 h) counts, not the second (20 h), though the history's rows
      // were written in another order (the trigger that keeps firstCompletedAt keeps the earliest).
      await workOrder({
        status: "WaitingForReview",
        priority: 4,
        createdAt: ago(50),
        location: "store-2",
        history: [
          [20, "WaitingForReview"],
          [6, "WaitingForReview"],
          [7, "WorkUnsatisfactory"],
        ],
      }),
      await workOrder({
        status: "CancelledWithReason",
        priority: 4,
        createdAt: ago(50),
        location: "store-2",
        history: [
          [10, "WaitingForReview"],
          [11, "CancelledWithReason"],
        ],
      }),
    ];
    const rows = await stats(
      "acme-key",
      `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [LOCATION]) { asOf rows { count overdue medianHoursToCompletion } } }`,
      { ids },
    );
    // Completions at 2, 4, 6 and 10 hours: median 5.
    expect(rows).toEqual([{ count: 8, overdue: 2, medianHoursToCompletion: 5 }]);
    const byStatus = await stats(
      "acme-key",
      `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [STATUS]) { rows { status overdue medianHoursToCompletion } } }`,
      { ids },
    );
    expect(byStatus).toEqual([
      { status: "Unassigned", overdue: 1, medianHoursToCompletion: null },
      { status: "TechAssigned", overdue: 1, medianHoursToCompletion: null },
      { status: "WaitingForReview", overdue: 0, medianHoursToCompletion: 4 },
      { status: "WorkReviewedAndCompleted", overdue: 0, medianHoursToCompletion: 4 },
      { status: "CancelledWithReason", overdue: 0, medianHoursToCompletion: 10 },
    ]);
  });

  it("takes each group's median as percentile_cont over the same rows does, to the last bit", async () => {
    // Completion times with fractions of an hour that no float holds exactly, in groups of odd and even
    // sizes (two locations × two statuses), and groups with no completion.
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) {
      const hours = ((i * 7919) % 97) / 7 + i / 3;
      ids.push(
        await workOrder({
          status: i % 5 === 4 ? "TechAssigned" : i % 2 ? "WaitingForReview" : "WorkReviewedAndCompleted",
          createdAt: october(2 + (i % 20), i % 24),
          location: i % 3 ? "store-1" : "store-2",
          history: i % 5 === 4 ? [] : [[hours, "WaitingForReview"]],
        }),
      );
    }
    const rows = await stats(
      "acme-key",
      `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [LOCATION, STATUS]) { rows { location { id } status count medianHoursToCompletion } } }`,
      { ids },
    );
    const expected = await t.db.$queryRaw<{ location: number; status: string; count: number; median: number | null }[]>`
      SELECT w."locationId" AS location, w.status::text AS status, count(*)::int AS count,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM w."firstCompletedAt" - w."createdAt") / 3600) AS median
        FROM "WorkOrder" w WHERE w.id = ANY(${ids}) GROUP BY 1, w.status ORDER BY 1, w.status`;
    expect(expected.filter((e) => e.median !== null && e.count % 2 === 0).length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.median !== null && e.count % 2 === 1).length).toBeGreaterThan(0);
    expect(expected.some((e) => e.median === null)).toBe(true);
    expect(rows).toEqual(
      expected.map((e) => ({
        location: { id: e.location },
        status: e.status,
        count: e.count,
        medianHoursToCompletion: e.median,
      })),
    );
  });

  it("answers a supplier key within its scope, and a foreign tenant nothing of another's", async () => {
    const { refs } = t.fixture;
    const query = `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [SUPPLIER_FACILITY, STATUS]) { rows { supplierFacility { id } status count } } }`;
    const pending = await workOrder({ status: "PendingApproval", createdAt: october(2) });
    const visible = await workOrder({ status: "Unassigned", createdAt: october(2), supplier: "inhouse-west" });
    await t.db.workOrderVisibility.create({ data: { workOrderId: visible, supplierFacilityId: refs["coolco-pdx"] } });
    const rows = await stats("coolco-key", query, { ids: [...acmeIds, pending, visible] });
    const expected = await t.db.$queryRaw<{ supplier: number; status: string; count: number }[]>`
      SELECT w."supplierFacilityId" AS supplier, w.status::text AS status, count(*)::int AS count FROM "WorkOrder" w
       WHERE w.id = ANY(${acmeIds})
         AND ((w."supplierFacilityId" = ${refs["coolco-pdx"]} AND w.status <> 'PendingApproval')
              OR EXISTS (SELECT 1 FROM "WorkOrderVisibility" v WHERE v."workOrderId" = w.id AND v."supplierFacilityId" = ${refs["coolco-pdx"]}))
       GROUP BY 1, w.status ORDER BY 1, w.status`;
    expect(rows).toEqual(
      expected.map((e) => ({ supplierFacility: { id: e.supplier }, status: e.status, count: e.count })),
    );
    expect(rows.some((r) => r.supplierFacility.id === refs["inhouse-west"])).toBe(true); // the visible one
    expect(rows.some((r) => r.status === "PendingApproval")).toBe(false);
    expect(await stats("unrelated-supplier-key", query, { ids: acmeIds })).toEqual([]);
    expect(await stats("globex-key", query, { ids: acmeIds })).toEqual([]);
    // Globex's own work order is all it counts.
    const own = await stats("globex-key", `{ workOrderStats(groupBy: [STATUS]) { rows { status count } } }`);
    expect(own).toEqual([{ status: "Unassigned", count: 1 }]);
  });

  it("plans each statement for its values: none is kept as a prepared statement (a generic plan guesses a range's rows)", async () => {
    // One connection, so the session that ran the statements is the one asked.
    const db = createDb(t.databaseUrl, { max: 1 });
    try {
      const viewer = { kind: "buyer", buyerCompanyId: t.fixture.refs.acme } as Viewer;
      const args = { groupBy: ["STATUS", "LOCATION"] as const, filter: { ids: acmeIds } };
      const selected = new Set(["count", "overdue"]);
      const prepared = async () =>
        (
          await sqlRows<{ n: number }>(
            db,
            Prisma.sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%GROUP' || ' BY%'`,
          )
        )[0].n;
      for (let run = 0; run < 7; run++) await workOrderStats(db, viewer, args, selected, new Date());
      expect(await prepared()).toBe(0);
      // The same statement through the default path is kept (so the count above can see one).
      await sqlRows(db, workOrderStatsSql(viewer, args, selected, new Date()));
      expect(await prepared()).toBe(1);
    } finally {
      await db.$disconnect();
    }
  });

  it("refuses bad input with invalidInputDataException", async () => {
    for (const args of [
      "groupBy: []",
      "groupBy: [STATUS, STATUS]",
      "groupBy: [CREATED]",
      "groupBy: [STATUS], bucket: MONTH",
      'groupBy: [STATUS], filter: {createdAt: {from: "2026-10-05T00:00:00Z", to: "2026-10-01T00:00:00Z"}}',
    ]) {
      const reply = await t.graphql("acme-key", `{ workOrderStats(${args}) { rows { count } } }`);
      expect(reply.body.errors?.[0]?.extensions?.code, args).toBe("invalidInputDataException");
      expect(reply.body.data?.workOrderStats ?? null).toBeNull();
    }
    const unknown = await t.graphql("acme-key", `{ workOrderStats(groupBy: [ASSET]) { rows { count } } }`);
    expect(unknown.status).toBe(400);
    const partner = await t.graphql("inhouse-partner-key", `{ workOrderStats(groupBy: [STATUS]) { rows { count } } }`);
    expect(partner.body.errors[0].extensions.code).toBe("ForbiddenException");
  });
});
