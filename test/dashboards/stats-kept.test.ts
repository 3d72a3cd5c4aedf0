// Kept chart answers (src/schema/core/kept-answers.ts; docs/dashboards.md "Kept chart answers"): a buyer's
// chart asked again is answered without its statement while nothing it reads changed, and every kind of
// change (a work order's status, a new work order, a location's name, a transaction open while the
// answer was read, time making a work order overdue) is in the very next answer, exact against a plain
// SQL count; another company's writes keep it; supplier keys always read afresh; and the worker prunes
// the change rows only once no kept answer can need them.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStatsChangesCleanup } from "../../src/schema/core/kept-answers.ts";
import { STATUSES } from "../../src/schema/work-orders/rules/state-machine.ts";
import { silentLogger, startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const HOUR = 3_600_000;
/** The service's clock: moved forward by the overdue case. */
let clock = new Date(Date.UTC(2026, 10, 20, 12));
const ids: number[] = [];

const CHART = `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [STATUS, LOCATION]) {
  asOf rows { status location { id name } count overdue } } }`;

/**
 * How an answer was made, by the statements sent for it: "kept" (none grouped), "patched" (the groups of
 * some locations read again in a read-only snapshot: the statements of that read in `patch`) or "read".
 */
function madeBy(sent: string[]) {
  const grouped = sent.filter((text) => text.includes("GROUP BY"));
  if (!grouped.length) return { how: "kept", patch: [] };
  const snapshot = sent.some((text) => text.startsWith("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  return snapshot && grouped.length === 1 ? { how: "patched", patch: grouped } : { how: "read", patch: [] };
}

/** The chart's rows, and whether its statement ran for them (false: the kept answer) and how. */
async function chart(key = "acme-key", query = CHART) {
  t.statements!.recording = [];
  const reply = await t.graphql(key, query, { ids });
  const sent = t.statements!.recording;
  t.statements!.recording = undefined;
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  const { how, patch } = madeBy(sent);
  return {
    rows: reply.body.data.workOrderStats.rows as Record<string, any>[],
    asOf: reply.body.data.workOrderStats.asOf as string,
    read: how !== "kept",
    how,
    patch,
  };
}

/** The same figures by a plain SQL GROUP BY over the rows, at the service's clock. */
async function expected() {
  const rows = await t.db.$queryRaw<{ status: string; id: number; name: string; count: number; overdue: number }[]>`
    SELECT w.status::text AS status, l.id, l.name, count(*)::int AS count,
           (count(*) FILTER (WHERE w.status NOT IN ('WaitingForReview', 'WorkReviewedAndCompleted', 'PaymentMade',
              'CancelledWithReason', 'Rejected')
              AND w."createdAt" + w."woPriority" * interval '1 hour' < ${clock}))::int AS overdue
      FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
     WHERE w.id = ANY(${ids}) GROUP BY w.status, l.id, l.name ORDER BY w.status, l.id`;
  return rows.map((r) => ({
    status: r.status,
    location: { id: r.id, name: r.name },
    count: r.count,
    overdue: r.overdue,
  }));
}

/** A work order of acme (counted by the chart: its id joins `ids`) or, in a location of globex's, of globex. */
async function workOrder(status: string, location: string, createdAt: Date, priority: number | null = null) {
  const { refs } = t.fixture;
  const globex = location === "g-store";
  const row = await t.db.workOrder.create({
    data: {
      buyerCompanyId: globex ? refs.globex : refs.acme,
      buyerFacilityId: globex ? refs["globex-hq"] : refs["acme-hq"],
      locationId: refs[location],
      problemTypeId: refs.hvac,
      title: "Kept chart fixture",
      status: status as never,
      createdBy: "alice@acme.example",
      supplierFacilityId: globex ? null : refs["coolco-pdx"],
      woPriority: priority,
      createdAt,
      statusChangedAt: createdAt,
    },
  });
  if (!globex) ids.push(row.id);
  return row.id;
}

beforeAll(async () => {
  t = await startTestApp({ countStatements: true, now: () => clock });
  for (let i = 0; i < 6; i++)
    await workOrder(
      ["Unassigned", "TechAssigned"][i % 2],
      ["store-1", "store-2"][i % 2],
      new Date(clock.getTime() - 48 * HOUR),
    );
});
afterAll(() => t?.close());

describe("kept chart answers", () => {
  it("answers a chart asked again without its statement, with the same rows and the request's asOf", async () => {
    const first = await chart();
    expect(first.read).toBe(true);
    expect(first.rows).toEqual(await expected());
    clock = new Date(clock.getTime() + 1_000);
    const again = await chart();
    expect(again.read).toBe(false);
    expect(again.rows).toEqual(first.rows);
    expect(again.asOf).toBe(clock.toISOString());
  });

  it("is patched after a work order's status changed or a location renamed, kept after a supplier facility renamed", async () => {
    const { refs } = t.fixture;
    await chart();
    await t.db.workOrder.update({ where: { id: ids[0] }, data: { status: "TechScheduled" } });
    const changed = await chart();
    expect(changed.how).toBe("patched");
    expect(changed.rows).toEqual(await expected());
    expect(changed.rows.some((r) => r.status === "TechScheduled")).toBe(true);

    // (The chart's filter names the new work order: another statement, read.)
    await workOrder("Unassigned", "store-2", new Date(clock.getTime() - 24 * HOUR));
    const added = await chart();
    expect(added.how).toBe("read");
    expect(added.rows).toEqual(await expected());

    // A chart by status alone shows no location's name: kept through a rename; the chart by location
    // patches that location.
    const BY_STATUS = `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [STATUS]) { rows { status count } } }`;
    const byStatus = await chart("acme-key", BY_STATUS);
    await t.db.location.update({ where: { id: refs["store-2"] }, data: { name: "Store Two (renamed)" } });
    const stillByStatus = await chart("acme-key", BY_STATUS);
    expect(stillByStatus.how).toBe("kept");
    expect(stillByStatus.rows).toEqual(byStatus.rows);
    const renamed = await chart();
    expect(renamed.how).toBe("patched");
    expect(renamed.rows.some((r) => r.location.name === "Store Two (renamed)")).toBe(true);
    expect(renamed.rows).toEqual(await expected());

    // The same name written again changes no chart; a supplier facility's new name changes only the charts
    // grouped by supplier facility (below).
    await t.db.location.update({ where: { id: refs["store-2"] }, data: { name: "Store Two (renamed)" } });
    expect((await chart()).read).toBe(false);
    await t.db.supplierFacility.update({
      where: { id: refs["coolco-pdx"] },
      data: { name: "CoolCo Portland (renamed)" },
    });
    expect((await chart()).how).toBe("kept");
  });

  it("patches the groups of the locations a work order moved between, and a new location's, in the statement's order", async () => {
    const { refs } = t.fixture;
    const third = await t.db.location.create({ data: { buyerCompanyId: refs.acme, name: "Store Three" } });
    refs["store-3"] = third.id;
    await chart();
    const { locationId } = await t.db.workOrder.findUniqueOrThrow({ where: { id: ids[0] } });
    const to = locationId === refs["store-1"] ? refs["store-2"] : refs["store-1"];
    await t.db.workOrder.update({ where: { id: ids[0] }, data: { locationId: to } });
    const moved = await chart();
    expect(moved.how).toBe("patched");
    expect(moved.patch[0]).toContain(`"locationId" = ANY(`);
    expect(moved.rows).toEqual(await expected());
    // An Unassigned one moved to Store Three: its group falls between (Unassigned, store-2) and the next
    // status's groups.
    const unassigned = await t.db.workOrder.findFirstOrThrow({ where: { id: { in: ids }, status: "Unassigned" } });
    await t.db.workOrder.update({ where: { id: unassigned.id }, data: { locationId: third.id } });
    const added = await chart();
    expect(added.how).toBe("patched");
    expect(added.rows).toEqual(await expected());
    expect(added.rows.some((r) => r.location.id === third.id)).toBe(true);
    // Moved back: the group goes.
    await t.db.workOrder.update({ where: { id: unassigned.id }, data: { locationId: unassigned.locationId } });
    const removed = await chart();
    expect(removed.how).toBe("patched");
    expect(removed.rows).toEqual(await expected());
    expect(removed.rows.some((r) => r.location.id === third.id)).toBe(false);
  });

  it("patches a chart grouped by supplier facility by the supplier facilities written, the null one too", async () => {
    const BY_SUPPLIER = `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [SUPPLIER_FACILITY, STATUS]) {
      rows { supplierFacility { id name } status count } } }`;
    const bySupplier = async () => {
      const rows = await t.db.$queryRaw<{ id: number | null; name: string | null; status: string; count: number }[]>`
        SELECT f.id, f.name, w.status::text AS status, count(*)::int AS count
          FROM "WorkOrder" w LEFT JOIN "SupplierFacility" f ON f.id = w."supplierFacilityId"
         WHERE w.id = ANY(${ids}) GROUP BY f.id, f.name, w.status ORDER BY f.id NULLS LAST, w.status`;
      return rows.map((r) => ({
        supplierFacility: r.id === null ? null : { id: r.id, name: r.name },
        status: r.status,
        count: r.count,
      }));
    };
    await chart("acme-key", BY_SUPPLIER);
    await t.db.workOrder.update({ where: { id: ids[2] }, data: { status: "TechRescheduled" } });
    const changed = await chart("acme-key", BY_SUPPLIER);
    expect(changed.how).toBe("patched");
    expect(changed.patch[0]).toContain(`"supplierFacilityId" = ANY(`);
    expect(changed.rows).toEqual(await bySupplier());
    // Its supplier facility taken away: the null key's group appears, and goes when it is given back.
    const { supplierFacilityId } = await t.db.workOrder.findUniqueOrThrow({ where: { id: ids[2] } });
    await t.db.workOrder.update({ where: { id: ids[2] }, data: { supplierFacilityId: null } });
    const unassigned = await chart("acme-key", BY_SUPPLIER);
    expect(unassigned.how).toBe("patched");
    expect(unassigned.rows).toEqual(await bySupplier());
    expect(unassigned.rows.some((r) => r.supplierFacility === null)).toBe(true);
    await t.db.workOrder.update({ where: { id: ids[2] }, data: { supplierFacilityId } });
    const assigned = await chart("acme-key", BY_SUPPLIER);
    expect(assigned.how).toBe("patched");
    expect(assigned.rows).toEqual(await bySupplier());
    expect(assigned.rows.some((r) => r.supplierFacility === null)).toBe(false);
  });

  it("keeps the charts that show no name a change renamed, and reads or patches those that do", async () => {
    const { refs } = t.fixture;
    const ask = (groupBy: string, rows: string, filter = "ids: $ids") =>
      chart(
        "acme-key",
        `query($ids: [Int!]) { workOrderStats(filter: {${filter}}, groupBy: [${groupBy}]) { rows { ${rows} count } } }`,
      );
    /** A plain SQL GROUP BY of the counted work orders by `key` (an expression over w, l and its join). */
    const grouped = async (key: string, join: string, where = "TRUE") =>
      (
        await t.db.$queryRawUnsafe<{ id: number | null; name: string | null; count: number }[]>(
          `SELECT k.id, k.name, count(*)::int AS count FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
             LEFT JOIN ${join} k ON k.id = ${key} WHERE w.id = ANY($1) AND ${where}
            GROUP BY k.id, k.name ORDER BY k.id NULLS LAST`,
          ids,
        )
      ).map((r) => ({ key: r.id === null ? null : { id: r.id, name: r.name }, count: r.count }));
    const byProblemType = () => ask("PROBLEM_TYPE", "key: problemType { id name }");
    const byRegion = () => ask("REGION", "key: region { id name }");
    const bySupplier = () => ask("SUPPLIER_FACILITY", "key: supplierFacility { id name }");
    const inWest = () => ask("STATUS", "status", `ids: $ids, regionIds: [${refs.west}]`);
    const west = async () =>
      (
        await t.db.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM "WorkOrder" w
          JOIN "Location" l ON l.id = w."locationId" WHERE w.id = ANY(${ids}) AND l."regionId" = ${refs.west}`
      )[0].count;
    const charts = { status: chart, problemType: byProblemType, region: byRegion, supplier: bySupplier, inWest };
    type Answers = Record<keyof typeof charts, Awaited<ReturnType<typeof chart>>>;
    /** Every chart asked again, and how each was made, in the order of `charts`. */
    const answers = async () => {
      const made = {} as Answers;
      for (const [name, ask] of Object.entries(charts)) made[name as keyof Answers] = await ask();
      return { ...made, how: Object.values(made).map((m) => m.how) };
    };
    await answers();

    // A problem type renamed: only the chart grouped by problem type reads again, with the new name.
    await t.db.problemType.update({ where: { id: refs.hvac }, data: { name: "HVAC (renamed)" } });
    let answer = await answers();
    expect(answer.how).toEqual(["kept", "read", "kept", "kept", "kept"]);
    expect(answer.problemType.rows).toEqual(await grouped(`w."problemTypeId"`, `"ProblemType"`));
    expect(answer.problemType.rows.some((r) => r.key.name === "HVAC (renamed)")).toBe(true);

    // A region renamed: the chart grouped by region, and (its filter reads the region) the one filtered by it.
    await t.db.region.update({ where: { id: refs.west }, data: { name: "West (renamed)" } });
    answer = await answers();
    expect(answer.how).toEqual(["kept", "kept", "read", "kept", "read"]);
    expect(answer.region.rows).toEqual(await grouped(`l."regionId"`, `"Region"`));
    expect(answer.region.rows.some((r) => r.key?.name === "West (renamed)")).toBe(true);

    // A supplier facility renamed: the chart grouped by supplier facility patches its groups.
    await t.db.supplierFacility.update({ where: { id: refs["coolco-pdx"] }, data: { name: "CoolCo (renamed)" } });
    answer = await answers();
    expect(answer.how).toEqual(["kept", "kept", "kept", "patched", "kept"]);
    expect(answer.supplier.rows).toEqual(await grouped(`w."supplierFacilityId"`, `"SupplierFacility"`));
    expect(answer.supplier.rows.some((r) => r.key?.name === "CoolCo (renamed)")).toBe(true);

    // A location moved out of its region: the charts by region and by location, and the one filtered by
    // the region, whose count drops.
    const westBefore = await west();
    await t.db.location.update({ where: { id: refs["store-2"] }, data: { regionId: null } });
    try {
      answer = await answers();
      expect(answer.how).toEqual(["patched", "kept", "read", "kept", "read"]);
      expect(answer.status.rows).toEqual(await expected());
      expect(answer.region.rows).toEqual(await grouped(`l."regionId"`, `"Region"`));
      const counted = answer.inWest.rows.reduce((sum, r) => sum + r.count, 0);
      expect(counted).toBe(await west());
      expect(counted).toBeLessThan(westBefore);
    } finally {
      await t.db.location.update({ where: { id: refs["store-2"] }, data: { regionId: refs.west } });
    }
  });

  it("patches an answer whose JSON holds a name with a quote, a comma, unbalanced brackets and a backslash", async () => {
    const { refs } = t.fixture;
    await chart();
    await t.db.location.update({ where: { id: refs["store-1"] }, data: { name: 'Store 1" ] east, {wing \\' } });
    expect((await chart()).how).toBe("patched");
    // A work order of store-2 changes: store-1's groups are taken from the JSON the answer was written as.
    const other = await t.db.workOrder.findFirstOrThrow({ where: { id: { in: ids }, locationId: refs["store-2"] } });
    await t.db.workOrder.update({ where: { id: other.id }, data: { status: "TechWaitingOnSite" } });
    const patched = await chart();
    expect(patched.how).toBe("patched");
    expect(patched.rows).toEqual(await expected());
    expect(patched.rows.some((r) => r.location.name === 'Store 1" ] east, {wing \\')).toBe(true);
  });

  it("reads the whole chart when a change was not confined to 64 locations", async () => {
    await chart();
    // What the trigger records for a transaction that wrote work orders of 65 locations.
    await t.db
      .$executeRaw`SELECT stats_change(${t.fixture.refs.acme}, now(), now(), array(SELECT generate_series(1, 65)))`;
    const [{ located }] = await t.db.$queryRaw<{ located: boolean }[]>`
      SELECT "locationIds" IS NOT NULL AS located FROM "StatsChange" ORDER BY xid DESC LIMIT 1`;
    expect(located).toBe(false);
    expect((await chart()).how).toBe("read");
    // And patches again when one is.
    await t.db.workOrder.update({ where: { id: ids[1] }, data: { status: "TechWaitingOnSite" } });
    const patched = await chart();
    expect(patched.how).toBe("patched");
    expect(patched.rows).toEqual(await expected());
  });

  it("sorts statuses in the order PostgreSQL's enum does (the patch merges rows in that order)", async () => {
    const labels = await t.db.$queryRaw<{ label: string }[]>`
      SELECT enumlabel AS label FROM pg_enum WHERE enumtypid = '"WorkOrderStatus"'::regtype ORDER BY enumsortorder`;
    expect(labels.map((l) => l.label)).toEqual(STATUSES);
  });

  it("writes a kept answer the same through yoga's own HTTP path (a browser's request, with an Origin)", async () => {
    const fromBrowser = async () => {
      const reply = await t.call(
        "acme-key",
        "POST",
        "/graphql",
        { query: CHART, variables: { ids } },
        {
          origin: "http://dashboard.example",
        },
      );
      expect(reply.status).toBe(200);
      expect(reply.headers.get("access-control-allow-origin")).not.toBeNull(); // yoga's CORS: its own path answered
      return reply.body.data.workOrderStats.rows;
    };
    await chart();
    expect((await chart()).how).toBe("kept");
    expect(await fromBrowser()).toEqual(await expected());
    expect(await fromBrowser()).toEqual(await expected());
  });

  it("writes a kept answer's rows from their kept JSON only for the selection that wrote it", async () => {
    const ask = async (query: string, variables: Record<string, unknown> = {}) => {
      const reply = await t.graphql("acme-key", query, { ids, ...variables });
      expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
      return reply.body.data;
    };
    const full = await expected();
    // The same statement (overdue selected) under other selections, aliases and variables: each answer
    // exact, asked twice (the second from kept JSON), whatever was asked between.
    const shapes: [string, Record<string, unknown>, (data: any) => unknown, unknown][] = [
      [CHART, {}, (d) => d.workOrderStats.rows, full],
      [
        `query($ids: [Int!]) { workOrderStats(filter: {ids: $ids}, groupBy: [STATUS, LOCATION]) { rows { overdue count } } }`,
        {},
        (d) => d.workOrderStats.rows,
        full.map((r) => ({ overdue: r.overdue, count: r.count })),
      ],
      [
        `query($ids: [Int!], $named: Boolean!) { a: workOrderStats(filter: {ids: $ids}, groupBy: [STATUS, LOCATION]) {
          r: rows { status location @include(if: $named) { name } overdue } } }`,
        { named: true },
        (d) => d.a.r,
        full.map((r) => ({ status: r.status, location: { name: r.location.name }, overdue: r.overdue })),
      ],
      [
        `query($ids: [Int!], $named: Boolean!) { a: workOrderStats(filter: {ids: $ids}, groupBy: [STATUS, LOCATION]) {
          r: rows { status location @include(if: $named) { name } overdue } } }`,
        { named: false },
        (d) => d.a.r,
        full.map((r) => ({ status: r.status, overdue: r.overdue })),
      ],
    ];
    for (const round of [1, 2])
      for (const [query, variables, rowsOf, want] of shapes)
        expect(rowsOf(await ask(query, variables)), `round ${round}`).toEqual(want);
    // A patched answer: the rows read again complete, the others give their kept JSON.
    await t.db.workOrder.update({ where: { id: ids[3] }, data: { status: "TechEnRoute" } });
    const after = await expected();
    expect((await ask(CHART)).workOrderStats.rows).toEqual(after);
    expect((await ask(shapes[1][0])).workOrderStats.rows).toEqual(
      after.map((r) => ({ overdue: r.overdue, count: r.count })),
    );
  });

  it("keeps a chart of a period through writes to work orders created outside it", async () => {
    const period = {
      from: new Date(clock.getTime() - 72 * HOUR).toISOString(),
      to: new Date(clock.getTime() - 36 * HOUR).toISOString(),
    };
    const counted = [...ids]; // the chart's filter, the same in every request
    const periodChart = async () => {
      t.statements!.recording = [];
      const reply = await t.graphql(
        "acme-key",
        `query($ids: [Int!], $from: DateTime, $to: DateTime) { workOrderStats(filter: {ids: $ids, createdAt: {from: $from, to: $to}},
          groupBy: [STATUS]) { rows { status count } } }`,
        { ids: counted, ...period },
      );
      const read = t.statements!.recording.some((text) => text.includes("GROUP BY"));
      t.statements!.recording = undefined;
      expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
      return { rows: reply.body.data.workOrderStats.rows, read };
    };
    const counts = async () =>
      (
        await t.db.$queryRaw<{ s: string; count: number }[]>`SELECT status::text AS s, count(*)::int AS count
          FROM "WorkOrder" WHERE id = ANY(${counted}) AND "createdAt" >= ${new Date(period.from)}
           AND "createdAt" < ${new Date(period.to)} GROUP BY status ORDER BY status`
      ).map((r) => ({ status: r.s, count: r.count }));
    await periodChart();
    // A new work order (created now) and a change to one created a day ago: both after the period.
    const recent = await workOrder("Unassigned", "store-1", clock);
    await t.db.workOrder.update({ where: { id: recent }, data: { status: "TechAssigned" } });
    await t.db.workOrder.update({ where: { id: ids[6] }, data: { status: "TechAssigned" } });
    const kept = await periodChart();
    expect(kept.read).toBe(false);
    expect(kept.rows).toEqual(await counts());
    // A change to one created in the period.
    await t.db.workOrder.update({ where: { id: ids[3] }, data: { status: "WorkIncompleteWithReason" } });
    const changed = await periodChart();
    expect(changed.read).toBe(true);
    expect(changed.rows).toEqual(await counts());
    expect(changed.rows.some((r: { status: string }) => r.status === "WorkIncompleteWithReason")).toBe(true);
  });

  it("keeps the answer through another company's writes", async () => {
    await chart();
    await workOrder("Unassigned", "g-store", clock);
    expect((await chart()).read).toBe(false);
  });

  it("sees a transaction that was open while the answer was read, once it commits", async () => {
    await chart();
    const writer = new pg.Client({ connectionString: t.databaseUrl });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(`UPDATE "WorkOrder" SET status = 'TechEnRoute' WHERE id = $1`, [ids[1]]);
      // Read while the update is uncommitted: the answer is kept with a snapshot that does not show it.
      await t.db.workOrder.update({ where: { id: ids[2] }, data: { title: "touched" } });
      const during = await chart();
      expect(during.read).toBe(true);
      expect(during.rows.some((r) => r.status === "TechEnRoute")).toBe(false);
      expect((await chart()).read).toBe(false);
      await writer.query("COMMIT");
    } finally {
      await writer.end();
    }
    const after = await chart();
    expect(after.read).toBe(true);
    expect(after.rows.some((r) => r.status === "TechEnRoute")).toBe(true);
    expect(after.rows).toEqual(await expected());
  });

  it("keeps overdue only while no work order counted may still fall due, and counts one that did", async () => {
    // No priority among the work orders counted: overdue cannot change with time alone.
    await chart();
    clock = new Date(clock.getTime() + 2 * HOUR);
    expect((await chart()).read).toBe(false);
    // One due in 30 minutes: read again at every request until it is past due, exact each time.
    await workOrder("Unassigned", "store-1", new Date(clock.getTime() - 30 * 60_000), 1);
    const before = await chart();
    expect(before.rows).toEqual(await expected());
    clock = new Date(clock.getTime() + 20 * 60_000);
    const notYet = await chart();
    expect(notYet.read).toBe(true);
    expect(notYet.rows).toEqual(before.rows);
    clock = new Date(clock.getTime() + 20 * 60_000);
    const due = await chart();
    expect(due.read).toBe(true);
    expect(due.rows).toEqual(await expected());
    const overdue = (rows: Record<string, any>[]) => rows.reduce((sum, r) => sum + r.overdue, 0);
    expect(overdue(due.rows)).toBe(overdue(before.rows) + 1);
    // Past its due time, nothing counted can fall due any more.
    clock = new Date(clock.getTime() + HOUR);
    expect((await chart()).read).toBe(false);
  });

  it("counts kept, patched and read answers, and the rows kept, in /metrics", async () => {
    const scrape = async () => {
      const text = await (await fetch(`${t.url}/metrics`)).text();
      const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1]);
      return {
        kept: value('chart_answers_total\\{outcome="kept"\\}'),
        patched: value('chart_answers_total\\{outcome="patched"\\}'),
        read: value('chart_answers_total\\{outcome="read"\\}'),
        rows: value("chart_answers_kept_rows"),
      };
    };
    // A change of every period naming no keys (what a truncate records for every company): read whole.
    await t.db.$executeRaw`SELECT stats_change(${t.fixture.refs.acme}, NULL, NULL)`;
    const before = await scrape();
    const read = await chart();
    expect((await chart()).read).toBe(false);
    const after = await scrape();
    expect(read.read).toBe(true);
    expect(after.read - before.read).toBe(1);
    expect(after.kept - before.kept).toBe(1);
    expect(after.rows).toBeGreaterThanOrEqual(read.rows.length);
    await t.db.workOrder.update({ where: { id: ids[2] }, data: { status: "TechScheduled" } });
    expect((await chart()).how).toBe("patched");
    const patched = await scrape();
    expect(patched.patched - after.patched).toBe(1);
    expect(patched.read).toBe(after.read);
  });

  it("reads a supplier key's chart afresh every time", async () => {
    expect((await chart("coolco-key")).read).toBe(true);
    expect((await chart("coolco-key")).read).toBe(true);
  });
});

describe("the change rows' cleanup", () => {
  it("deletes a transaction's rows only once it had ended 15 minutes before", async () => {
    const { refs } = t.fixture;
    const rows = async () =>
      (await t.db.$queryRaw<{ xid: string }[]>`SELECT xid::text FROM "StatsChange"`).map((r) => r.xid);
    const until = async (done: (xids: string[]) => boolean) => {
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20)))
        if (done(await rows())) return;
      throw new Error("the cleanup did not get there in 5 s");
    };
    await t.db.location.update({ where: { id: refs["store-1"] }, data: { name: "Store One" } });
    const old = await rows();
    expect(old.length).toBeGreaterThan(0);
    const start = clock.getTime();
    let now = start;
    const cleanup = startStatsChangesCleanup({
      db: t.db,
      logger: silentLogger(),
      now: () => new Date(now),
      intervalMs: 10,
    });
    try {
      // Snapshots' xmin is the whole server's (other test files' transactions hold it back): wait until it
      // is above the old rows, then let the loop sample it there, at the start.
      const ended = async () =>
        (
          await t.db.$queryRaw<{ ended: boolean }[]>`SELECT NOT EXISTS (SELECT 1 FROM "StatsChange"
            WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())) AS ended`
        )[0].ended;
      for (const deadline = Date.now() + 30_000; !(await ended()); await new Promise((r) => setTimeout(r, 20)))
        if (Date.now() > deadline) throw new Error("the old rows' transactions are still below the server's xmin");
      await new Promise((r) => setTimeout(r, 100));
      now = start + 10 * 60_000;
      await t.db.location.update({ where: { id: refs["store-1"] }, data: { name: "Store One again" } });
      const young = (await rows()).filter((x) => !old.includes(x));
      expect(young).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 200)); // ten minutes on: nothing had ended 15 minutes before
      expect(await rows()).toEqual(expect.arrayContaining([...old, ...young]));
      now = start + 16 * 60_000;
      await until((xids) => !xids.some((x) => old.includes(x)));
      expect(await rows()).toEqual(young); // written after the horizon it was pruned by
    } finally {
      await cleanup.close();
    }
  }, 60_000); // the wait for the server's xmin above may take 30 s when other databases' transactions run long
});
