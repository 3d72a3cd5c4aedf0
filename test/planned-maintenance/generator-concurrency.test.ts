// Two generator workers (two processes' worth: separate connection pools) run rounds over the same
// due schedules at the same time, twice over (a retried job): every (schedule, due time) gets exactly
// one work order, one success run log and one workorder.create event. npm test runs 200 schedules;
// `npm run test:pm-scale` runs the 10,000 of the issue (PM_CONCURRENCY_SCHEDULES).
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { generateDue } from "../../src/schema/planned-maintenance/rules/generator.ts";
import { pmFixture } from "./fixture.ts";

const SCHEDULES = Number(process.env.PM_CONCURRENCY_SCHEDULES ?? 200);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: pmFixture({ builtIn: true }) });
});
afterAll(() => t?.close());

describe("two generator workers", () => {
  it(`create each of ${SCHEDULES} due work orders exactly once`, { timeout: 600_000 }, async () => {
    const refs = t.fixture.refs;
    // Only the bulk schedules are due.
    await t.db.plannedMaintenanceSchedule.updateMany({ data: { nextRunAt: null } });
    const due = new Date("2027-05-03T16:00:00Z");
    await t.db.plannedMaintenanceSchedule.createMany({
      data: Array.from({ length: SCHEDULES }, (_, i) => ({
        buyerCompanyId: refs.acme,
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        supplierFacilityId: refs["coolco-pdx"],
        assetIds: [refs["rtu-1"]],
        title: `Bulk PM ${i}`,
        cadence: "P1M",
        anchorAt: due,
        nextRunAt: due,
      })),
    });
    const logger = pino({ level: "silent" });
    const workers = [createDb(t.databaseUrl, { max: 3 }), createDb(t.databaseUrl, { max: 3 })];
    const now = () => new Date("2027-05-03T16:01:00Z");
    const started = Date.now();
    const rounds = await Promise.all([...workers, ...workers].map((db) => generateDue({ db, now, logger })));
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(workers.map((db) => db.$disconnect()));
    expect(rounds.reduce((n, r) => n + r.workOrders, 0)).toBe(SCHEDULES);
    expect(rounds.filter((r) => r.workOrders > 0).length).toBeGreaterThanOrEqual(2); // both workers took part

    const [stats] = await t.db.$queryRaw<
      { workOrders: number; schedules: number; duplicates: number; events: number; logs: number }[]
    >`
      SELECT (SELECT count(*)::int FROM "WorkOrder" WHERE "isPM" AND title LIKE 'Bulk PM %') AS "workOrders",
             (SELECT count(DISTINCT "plannedMaintenanceScheduleId")::int FROM "WorkOrder" WHERE title LIKE 'Bulk PM %') AS schedules,
             (SELECT count(*)::int FROM (SELECT 1 FROM "WorkOrder" WHERE title LIKE 'Bulk PM %' GROUP BY "plannedMaintenanceScheduleId" HAVING count(*) > 1) d) AS duplicates,
             (SELECT count(*)::int FROM "OutboxEvent" e JOIN "WorkOrder" w ON w.id = e."workOrderId" WHERE w.title LIKE 'Bulk PM %') AS events,
             (SELECT count(*)::int FROM "SchedulerRunLog" WHERE status = 'success' AND "lastRunDueAt" = ${due}) AS logs`;
    expect(stats).toEqual({
      workOrders: SCHEDULES,
      schedules: SCHEDULES,
      duplicates: 0,
      events: SCHEDULES,
      logs: SCHEDULES,
    });
    expect(
      await t.db.plannedMaintenanceSchedule.count({
        where: { title: { startsWith: "Bulk PM" }, nextRunAt: new Date("2027-06-03T16:00:00Z"), sequence: 1 },
      }),
    ).toBe(SCHEDULES);

    // A retried job afterwards finds nothing to do.
    expect(await generateDue({ db: t.db, now, logger })).toMatchObject({ workOrders: 0, schedules: 0 });
    console.log(
      `generator concurrency: ${SCHEDULES} work orders by 2 workers in ${seconds.toFixed(1)} s (${Math.round(SCHEDULES / seconds)}/s)`,
    );
  });
});
