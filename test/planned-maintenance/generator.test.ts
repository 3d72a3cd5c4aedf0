// The built-in generator with an injectable clock: due schedules of built-in companies become work
// orders through the create rules (workorder.create, run log, advance) exactly once per due time,
// catch-up after downtime is capped, broken schedules are logged and passed over, and the BullMQ
// trigger (two workers, a Redis that lost its keys) changes nothing but timing.
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { CATCH_UP_LIMIT, generateDue, GENERATOR_ACTOR } from "../../src/schema/planned-maintenance/rules/generator.ts";
import { startPmJobs } from "../../src/schema/planned-maintenance/public.ts";
import { pmFixture } from "./fixture.ts";

let t: TestApp;
let refs: Record<string, number>;
const logger = pino({ level: "silent" });
beforeAll(async () => {
  t = await startTestApp({ fixture: pmFixture({ builtIn: true }) });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const at = (iso: string) => () => new Date(iso);
const round = (now: string) => generateDue({ db: t.db, now: at(now), logger });
const pmWorkOrders = (scheduleId: number) =>
  t.db.workOrder.findMany({
    where: { plannedMaintenanceScheduleId: scheduleId },
    orderBy: { id: "asc" },
    include: { statusChanges: true },
  });
const logsOf = (scheduleId: number) => t.db.schedulerRunLog.findMany({ where: { scheduleId }, orderBy: { id: "asc" } });
const setSchedule = (id: number, data: Record<string, unknown>) =>
  t.db.plannedMaintenanceSchedule.update({ where: { id }, data });

describe("generation rounds", () => {
  it("creates nothing before the due time, then one work order through the create rules, its run log and the advance; a repeated round adds nothing", async () => {
    expect(await round("2026-12-01T08:59:59Z")).toEqual({ schedules: 0, workOrders: 0, failed: 0, skipped: 0 });
    expect(await pmWorkOrders(refs["pm-1"])).toEqual([]);

    expect(await round("2026-12-01T09:00:30Z")).toEqual({ schedules: 1, workOrders: 1, failed: 0, skipped: 0 });
    const [wo] = await pmWorkOrders(refs["pm-1"]);
    expect(wo).toMatchObject({
      isPM: true,
      plannedMaintenanceScheduleId: refs["pm-1"],
      title: "Quarterly HVAC service",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      assetId: refs["rtu-1"],
      subAssetIds: [],
      supplierFacilityId: refs["coolco-pdx"],
      status: "PendingConfirmationByServiceProvider",
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      createdBy: GENERATOR_ACTOR.email,
      createdAt: expect.any(Date),
      statusChangedAt: new Date("2026-12-01T09:00:30Z"),
      assignedAt: new Date("2026-12-01T09:00:30Z"),
    });
    expect(wo.description).toContain("due 2026-12-01T09:00:00.000Z");
    expect(wo.statusChanges).toMatchObject([
      {
        from: null,
        to: "PendingConfirmationByServiceProvider",
        action: "create",
        actor: "Planned maintenance",
        actorKind: "system",
      },
    ]);
    const events = await t.db.outboxEvent.findMany({ where: { workOrderId: wo.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: "workorder.create",
      payload: {
        newStatus: "PendingConfirmationByServiceProvider",
        changedBy: "Planned maintenance",
        supplierFacilityId: refs["coolco-pdx"],
      },
    });
    expect(await logsOf(refs["pm-1"])).toMatchObject([
      {
        status: "success",
        source: "built_in",
        woId: wo.id,
        lastRunDueAt: new Date("2026-12-01T09:00:00Z"),
        lastRunAt: new Date("2026-12-01T09:00:30Z"),
      },
    ]);
    expect(await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["pm-1"] } })).toMatchObject({
      sequence: 1,
      nextRunAt: new Date("2027-03-01T09:00:00Z"),
      lastRunDueAt: new Date("2026-12-01T09:00:00Z"),
      lastRunStatus: "success",
    });
    // The work order is visible like any other, with its search entry.
    const listed = await t.call(
      "acme-key",
      "GET",
      `/v1/buyer/work_order/work_orders?plannedMaintenanceScheduleId=${refs["pm-1"]}&search=quarterly`,
    );
    expect(listed.body.data.map((w: { id: number }) => w.id)).toEqual([wo.id]);

    // A retried job, or a second worker with the same clock: nothing new.
    expect(await round("2026-12-01T09:00:30Z")).toMatchObject({ workOrders: 0 });
    expect(await pmWorkOrders(refs["pm-1"])).toHaveLength(1);
  });

  it("leaves schedules of external companies and inactive schedules alone", async () => {
    // Acme's own schedules are out of the way; Globex's (external) and Acme's inactive one are long due.
    const parked = await t.db.plannedMaintenanceSchedule.findMany({
      where: { id: { in: [refs["pm-1"], refs["pm-2"]] } },
    });
    await t.db.plannedMaintenanceSchedule.updateMany({
      where: { id: { in: parked.map((p) => p.id) } },
      data: { nextRunAt: null },
    });
    expect(await round("2030-01-01T00:00:00Z")).toMatchObject({ schedules: 0, workOrders: 0 });
    for (const p of parked) await setSchedule(p.id, { nextRunAt: p.nextRunAt });
    expect(await pmWorkOrders(refs["pm-g"])).toEqual([]);
    expect(await pmWorkOrders(refs["pm-off"])).toEqual([]);
    expect((await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["pm-g"] } })).sequence).toBe(0);
  });

  it(`catches up after downtime with one work order per missed due time, at most ${CATCH_UP_LIMIT}; older ones are one skipped run log`, async () => {
    // Monthly on the first Monday at 09:00 Vancouver time, down from January to the end of September 2027.
    await setSchedule(refs["pm-2"], {
      anchorAt: new Date("2027-01-04T17:00:00Z"),
      nextRunAt: new Date("2027-01-04T17:00:00Z"),
      sequence: 0,
      lastRunDueAt: null,
    });
    await setSchedule(refs["pm-1"], { nextRunAt: null });
    const before = await t.db.schedulerRunLog.count({ where: { scheduleId: refs["pm-2"] } });
    const existing = (await pmWorkOrders(refs["pm-2"])).length;
    const result = await round("2027-09-30T00:00:00Z");
    expect(result).toMatchObject({ workOrders: CATCH_UP_LIMIT, skipped: 4 });
    const logs = (await logsOf(refs["pm-2"])).slice(before);
    expect(logs[0]).toMatchObject({ status: "skipped", lastRunDueAt: new Date("2027-04-05T16:00:00Z") });
    expect(logs[0].log).toContain("4 missed due times from 2027-01-04T17:00:00.000Z to 2027-04-05T16:00:00.000Z");
    expect(logs.slice(1).map((l) => [l.status, l.lastRunDueAt.toISOString()])).toEqual([
      ["success", "2027-05-03T16:00:00.000Z"],
      ["success", "2027-06-07T16:00:00.000Z"],
      ["success", "2027-07-05T16:00:00.000Z"],
      ["success", "2027-08-02T16:00:00.000Z"],
      ["success", "2027-09-06T16:00:00.000Z"],
    ]);
    const wos = (await pmWorkOrders(refs["pm-2"])).slice(existing);
    expect(wos.map((w) => w.id)).toEqual(logs.slice(1).map((l) => l.woId));
    expect(
      wos.every(
        (w) => w.status === "Unassigned" && w.woPriority === 48 && w.description?.startsWith("Pump and inspect"),
      ),
    ).toBe(true);
    expect(
      (await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["pm-2"] } })).nextRunAt,
    ).toEqual(new Date("2027-10-04T16:00:00Z"));
  });

  it("records a schedule whose template the create rules refuse as failed and moves on; other schedules in the batch still run", async () => {
    const restart = (iso: string) => ({ anchorAt: new Date(iso), nextRunAt: new Date(iso), sequence: 0 });
    await setSchedule(refs["pm-1"], { assetIds: [refs["g-asset"]], ...restart("2027-10-01T09:00:00Z") });
    await setSchedule(refs["pm-2"], restart("2027-10-04T16:00:00Z"));
    const result = await round("2027-10-05T00:00:00Z");
    expect(result).toMatchObject({ schedules: 2, workOrders: 1, failed: 1 });
    const failed = (await logsOf(refs["pm-1"])).at(-1)!;
    expect(failed).toMatchObject({ status: "failed", woId: null, lastRunDueAt: new Date("2027-10-01T09:00:00Z") });
    expect(failed.log).toContain(`assetId ${refs["g-asset"]} is not an asset of this company`);
    expect(await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["pm-1"] } })).toMatchObject({
      lastRunStatus: "failed",
      nextRunAt: new Date("2028-01-01T10:00:00Z"), // 02:00 in Los Angeles, PDT then PST
    });
    await setSchedule(refs["pm-1"], { assetIds: [refs["rtu-1"]] });
  });

  it("does not create a second work order for a due time an external scheduler already ran", async () => {
    const nextRunAt = new Date("2027-11-01T16:00:00Z");
    await setSchedule(refs["pm-2"], { nextRunAt });
    const external = await t.db.schedulerRunLog.create({
      data: {
        buyerCompanyId: refs.acme,
        scheduleId: refs["pm-2"],
        status: "success",
        source: "external",
        lastRunAt: nextRunAt,
        lastRunDueAt: nextRunAt,
      },
    });
    const count = (await pmWorkOrders(refs["pm-2"])).length;
    await round("2027-11-01T17:00:00Z");
    expect(await pmWorkOrders(refs["pm-2"])).toHaveLength(count);
    expect(
      (await logsOf(refs["pm-2"])).filter((l) => l.lastRunDueAt.getTime() === nextRunAt.getTime()).map((l) => l.id),
    ).toEqual([external.id]);
    // The database itself refuses a second success for the due time.
    await expect(
      t.db.schedulerRunLog.create({
        data: {
          buyerCompanyId: refs.acme,
          scheduleId: refs["pm-2"],
          status: "success",
          source: "built_in",
          lastRunAt: nextRunAt,
          lastRunDueAt: nextRunAt,
        },
      }),
    ).rejects.toThrow();
  });
});

describe("due times in the location's time zone", () => {
  it("a monthly schedule anchored on Jan 31 at 09:00 Los Angeles time is due Feb 29 (leap year) 09:00 PST, then Mar 31 09:00 PDT", async () => {
    await t.db.plannedMaintenanceSchedule.updateMany({ data: { nextRunAt: null } });
    const anchor = new Date("2028-01-31T17:00:00Z");
    const s = await t.db.plannedMaintenanceSchedule.create({
      data: {
        buyerCompanyId: refs.acme,
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Month end check",
        cadence: "P1M",
        anchorAt: anchor,
        nextRunAt: anchor,
      },
    });
    const dueTimes = async () => (await logsOf(s.id)).map((l) => [l.status, l.lastRunDueAt.toISOString()]);
    await round("2028-01-31T16:59:00Z");
    expect(await dueTimes()).toEqual([]);
    await round("2028-01-31T17:00:00Z");
    await round("2028-02-29T16:59:59Z");
    expect(await dueTimes()).toEqual([["success", "2028-01-31T17:00:00.000Z"]]);
    await round("2028-02-29T17:00:00Z");
    await round("2028-03-31T16:00:00Z"); // DST began on March 12: 09:00 PDT
    expect(await dueTimes()).toEqual([
      ["success", "2028-01-31T17:00:00.000Z"],
      ["success", "2028-02-29T17:00:00.000Z"],
      ["success", "2028-03-31T16:00:00.000Z"],
    ]);
    expect((await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: s.id } })).nextRunAt).toEqual(
      new Date("2028-04-30T16:00:00Z"),
    );
    expect(await pmWorkOrders(s.id)).toHaveLength(3);
    await t.db.plannedMaintenanceSchedule.update({ where: { id: s.id }, data: { isActive: false } });
  });
});

describe("the BullMQ trigger", () => {
  it("two workers on one queue generate each due work order once; emptying Redis loses nothing", async () => {
    const due = new Date("2028-01-03T17:00:00Z");
    await setSchedule(refs["pm-2"], { nextRunAt: due });
    await setSchedule(refs["pm-1"], { nextRunAt: null });
    const now = () => new Date("2028-01-03T17:30:00Z");
    const connections = [
      new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null }),
      new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null }),
    ];
    const prefix = `${t.config.redisPrefix}:pm`;
    const start = (i: number) =>
      startPmJobs({ db: t.db, connection: connections[i], prefix, logger, now, intervalMs: 100 });
    let workers = [start(0), start(1)];
    const generated = async () =>
      (
        await t.db.schedulerRunLog.findMany({
          where: { scheduleId: refs["pm-2"], lastRunDueAt: due, status: "success" },
        })
      ).length;
    for (let i = 0; i < 200 && (await generated()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await generated()).toBe(1);
    await new Promise((r) => setTimeout(r, 500)); // more rounds from both workers
    await Promise.all(workers.map((w) => w.close()));
    expect(await generated()).toBe(1);

    // Redis loses everything (queue, job scheduler); the schedule state is in PostgreSQL.
    const keys = await connections[0].keys(`${prefix}:*`);
    if (keys.length) await connections[0].del(...keys);
    const next = new Date("2028-02-07T17:00:00Z");
    expect(
      (await t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["pm-2"] } })).nextRunAt,
    ).toEqual(next);
    const later = () => new Date("2028-02-07T18:00:00Z");
    workers = [startPmJobs({ db: t.db, connection: connections[0], prefix, logger, now: later, intervalMs: 100 })];
    const nextDone = async () =>
      t.db.schedulerRunLog.count({ where: { scheduleId: refs["pm-2"], lastRunDueAt: next, status: "success" } });
    for (let i = 0; i < 200 && (await nextDone()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await nextDone()).toBe(1);
    await workers[0].close();
    const leftovers = await connections[0].keys(`${prefix}:*`);
    if (leftovers.length) await connections[0].del(...leftovers);
    for (const c of connections) c.disconnect();
  });
});
