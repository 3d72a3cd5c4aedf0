// Planned maintenance over HTTP: the schedule list with its filters and count_by, single reads and
// tenant scope, skip_schedule (not rate limited), scheduler run logs, and the external scheduler loop
// of the contract end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { pmFixture } from "./fixture.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp({ fixture: pmFixture() });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const PM = "/v1/buyer/pm/planned_maintenance_schedules";
const LOGS = "/v1/buyer/pm/scheduler_run_logs";
const ids = (reply: { body: { data: { id: number }[] } }) => reply.body.data.map((s) => s.id).sort((a, b) => a - b);
const sorted = (...values: number[]) => values.sort((a, b) => a - b);
const schedule = (id: number) => t.db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id } });
const reset = (id: number, nextRunAt: string) =>
  t.db.plannedMaintenanceSchedule.update({
    where: { id },
    data: {
      anchorAt: new Date(nextRunAt),
      nextRunAt: new Date(nextRunAt),
      sequence: 0,
      lastRunAt: null,
      lastRunDueAt: null,
      lastRunStatus: null,
    },
  });

describe("GET /pm/planned_maintenance_schedules", () => {
  it("lists the company's schedules with cadence, time zone, due times and the work order template", async () => {
    const reply = await t.call("acme-key", "GET", PM);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "PlannedMaintenanceSchedule", status: "ok", count: 3 });
    expect(ids(reply)).toEqual(sorted(refs["pm-1"], refs["pm-2"], refs["pm-off"]));
    const pm1 = reply.body.data.find((s: { id: number }) => s.id === refs["pm-1"]);
    expect(pm1).toMatchObject({
      buyerCompanyId: refs.acme,
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      supplierFacilityId: refs["coolco-pdx"],
      title: "Quarterly HVAC service",
      cadence: "P3M",
      timeZone: "America/Los_Angeles",
      startsAt: "2026-12-01T09:00:00.000Z",
      nextRunAt: "2026-12-01T09:00:00.000Z",
      isActive: true,
      assetIds: [refs["rtu-1"]],
      assetId: refs["rtu-1"],
      lastRunAt: null,
      lastRunStatus: null,
      schedulingMode: "external",
      endsAt: null,
      upcomingRunAts: ["2026-12-01T09:00:00.000Z", "2027-03-01T09:00:00.000Z", "2027-06-01T08:00:00.000Z"],
      workOrderTemplate: {
        title: "Quarterly HVAC service",
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        buyerCompanyId: refs.acme,
        supplierFacilityId: refs["coolco-pdx"],
        assetId: refs["rtu-1"],
        subAssetIds: [],
        isPM: true,
        plannedMaintenanceScheduleId: refs["pm-1"],
      },
    });
    const pm2 = reply.body.data.find((s: { id: number }) => s.id === refs["pm-2"]);
    // First Monday of the month at 09:00 in Vancouver: PST in winter, PDT from March.
    expect(pm2.upcomingRunAts).toEqual([
      "2027-01-04T17:00:00.000Z",
      "2027-02-01T17:00:00.000Z",
      "2027-03-01T17:00:00.000Z",
    ]);
  });

  it("filters by location, asset, problem type, supplier, isActive and nextRunAt windows; count_by agrees; unknown filters are 400", async () => {
    const cases: [string, number[]][] = [
      [`locationId=${refs["store-1"]}`, [refs["pm-1"], refs["pm-off"]]],
      [`assetId=${refs["rtu-1"]}`, [refs["pm-1"]]],
      [`assetId=${refs["rtu-1"]},999999`, [refs["pm-1"]]],
      [`problemTypeId=${refs.plumbing}`, [refs["pm-2"]]],
      [`supplierFacilityId=${refs["coolco-pdx"]}`, [refs["pm-1"]]],
      ["isActive=false", [refs["pm-off"]]],
      ["nextRunAtStart=2026-11-01T00:00:00Z&nextRunAtEnd=2026-12-31T00:00:00Z", [refs["pm-1"]]],
      ["nextRunAt=2026-12-01T09:00:00Z,", [refs["pm-1"], refs["pm-2"]]],
      ["nextRunAt=,2026-12-01T09:00:00Z", [refs["pm-1"], refs["pm-off"]]],
      ["nextRunAtEnd=2026-07-01T00:00:00Z&isActive=true", []],
      [`buyerCompanyId=${refs.globex}`, []],
    ];
    for (const [query, expected] of cases) {
      const list = await t.call("acme-key", "GET", `${PM}?${query}`);
      expect(list.status, query).toBe(200);
      expect(ids(list), query).toEqual(sorted(...expected));
      const count = await t.call("acme-key", "GET", `${PM}/count_by?${query}`);
      expect(count.body, query).toEqual({ type: "count", data: { count: expected.length }, status: "ok" });
    }
    const grouped = await t.call("acme-key", "GET", `${PM}/count_by?group_by=locationId`);
    expect(grouped.body.data).toEqual([
      { value: refs["store-1"], count: 2 },
      { value: refs["store-2"], count: 1 },
    ]);
    for (const bad of [
      "title=x",
      "nextRunAt=yesterday",
      "nextRunAt=a,b,c",
      "isActive=maybe",
      "assetId=one",
      "sort_by=cadence",
    ]) {
      const reply = await t.call("acme-key", "GET", `${PM}?${bad}`);
      expect(reply.status, bad).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    expect((await t.call("acme-key", "GET", `${PM}/count_by?group_by=assetId`)).status).toBe(400);
    const bySoonest = await t.call("acme-key", "GET", `${PM}?sort_by=nextRunAt&order=asc`);
    expect(bySoonest.body.data.map((s: { id: number }) => s.id)).toEqual([refs["pm-off"], refs["pm-1"], refs["pm-2"]]);
  });

  it("reads one: 404 unknown, 400 another company's; Globex sees only its own; no supplier routes", async () => {
    const one = await t.call("acme-key", "GET", `${PM}/${refs["pm-2"]}`);
    expect(one.body).toMatchObject({
      type: "PlannedMaintenanceSchedule",
      data: { id: refs["pm-2"], woPriority: 48, description: "Pump and inspect" },
    });
    expect((await t.call("acme-key", "GET", `${PM}/999999`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${PM}/${refs["pm-g"]}`)).status).toBe(400);
    const globex = await t.call("globex-key", "GET", PM);
    expect(ids(globex)).toEqual([refs["pm-g"]]);
    expect((await t.call("inhouse-key", "GET", `/v1/supplier${PM.slice("/v1/buyer".length)}`)).status).toBe(404);
  });
});

describe("PATCH /pm/planned_maintenance_schedules/skip_schedule", () => {
  const SKIP = `${PM}/skip_schedule`;

  it("advances past the next run, records a skipped run log and returns the schedule", async () => {
    await reset(refs["pm-1"], "2026-12-01T09:00:00Z");
    const reply = await t.call("acme-key", "PATCH", SKIP, { id: refs["pm-1"] });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: "PlannedMaintenanceSchedule",
      data: {
        id: refs["pm-1"],
        nextRunAt: "2027-03-01T09:00:00.000Z",
        lastRunDueAt: "2026-12-01T09:00:00.000Z",
        lastRunStatus: "skipped",
      },
    });
    const again = await t.call("acme-key", "PATCH", SKIP, { id: refs["pm-1"] });
    expect(again.body.data.nextRunAt).toBe("2027-06-01T08:00:00.000Z"); // 01:00 PDT, the anchor's local time
    const logs = await t.call("acme-key", "GET", `${LOGS}?scheduleId=${refs["pm-1"]}&status=skipped`);
    expect(logs.body.data.slice(0, 2)).toMatchObject([
      {
        status: "skipped",
        source: "skip_schedule",
        lastRunDueAt: "2027-03-01T09:00:00.000Z",
        woId: null,
        log: "skipped by alice@acme.example",
      },
      { status: "skipped", source: "skip_schedule", lastRunDueAt: "2026-12-01T09:00:00.000Z" },
    ]);
    expect((await t.call("acme-key", "GET", `${PM}/${refs["pm-2"]}`)).body.data.nextRunAt).toBe(
      "2027-01-04T17:00:00.000Z",
    );
  });

  it("answers an unknown id, another company's id and a key without work order write permission with the same 400, changing nothing", async () => {
    const before = await schedule(refs["pm-g"]);
    for (const [key, id] of [
      ["acme-key", 999999],
      ["acme-key", refs["pm-g"]],
      ["acme-viewer-key", refs["pm-1"]],
    ] as const) {
      const reply = await t.call(key, "PATCH", SKIP, { id });
      expect(reply.status, `${key} ${id}`).toBe(400);
      expect(reply.body).toMatchObject({
        type: "invalidInputDataException",
        message: `no planned maintenance schedule ${id} that this key may change`,
      });
    }
    expect(await schedule(refs["pm-g"])).toEqual(before);
    for (const body of [{}, { id: "x" }, { id: null }])
      expect((await t.call("acme-key", "PATCH", SKIP, body)).status).toBe(400);
  });

  it("serialises concurrent skips of one schedule: five at once pass over five due times", async () => {
    await reset(refs["pm-2"], "2027-01-04T17:00:00Z");
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => t.call("acme-key", "PATCH", SKIP, { id: refs["pm-2"] })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(replies.map((r) => r.body.data.nextRunAt).sort()).toEqual([
      "2027-02-01T17:00:00.000Z",
      "2027-03-01T17:00:00.000Z",
      "2027-04-05T16:00:00.000Z",
      "2027-05-03T16:00:00.000Z",
      "2027-06-07T16:00:00.000Z",
    ]);
    const skipped = await t.db.schedulerRunLog.findMany({
      where: {
        scheduleId: refs["pm-2"],
        source: "skip_schedule",
        lastRunDueAt: { gte: new Date("2027-01-04T17:00:00Z") },
      },
    });
    expect(new Set(skipped.map((l) => l.lastRunDueAt.toISOString())).size).toBe(5);
  });

  it("is not rate limited (a key limited to 10 per 20 s skips 12 times), and a series that has ended cannot be skipped", async () => {
    await reset(refs["pm-2"], "2027-01-04T17:00:00Z");
    const replies = [];
    for (let i = 0; i < 12; i++)
      replies.push(await t.call("acme-key-default-limit", "PATCH", SKIP, { id: refs["pm-2"] }));
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(replies[0].headers.get("ratelimit-limit")).toBeNull();
    expect(replies[11].body.data.nextRunAt).toBe("2028-01-03T17:00:00.000Z");
    // The key's window was not touched by the skips.
    expect((await t.call("acme-key-default-limit", "GET", PM)).headers.get("ratelimit-remaining")).toBe("9");

    await t.db.plannedMaintenanceSchedule.update({
      where: { id: refs["pm-2"] },
      data: { endsAt: new Date("2028-02-01T00:00:00Z") },
    });
    expect((await t.call("acme-key", "PATCH", SKIP, { id: refs["pm-2"] })).body.data.nextRunAt).toBeNull();
    const ended = await t.call("acme-key", "PATCH", SKIP, { id: refs["pm-2"] });
    expect(ended.status).toBe(400);
    expect(ended.body.message).toContain("series has ended");
    await t.db.plannedMaintenanceSchedule.update({ where: { id: refs["pm-2"] }, data: { endsAt: null } });
  });
});

describe("POST /pm/scheduler_run_logs", () => {
  const WO = "/v1/buyer/work_order/work_orders";
  const createPmWorkOrder = async (scheduleId: number, key = "acme-key") => {
    const template = (await t.call(key, "GET", `${PM}/${scheduleId}`)).body.data.workOrderTemplate;
    const reply = await t.call(key, "POST", WO, {
      ...template,
      buyerFacilityId: refs["acme-hq"],
      createdBy: "alice@acme.example",
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  };

  it("runs the contract's external scheduler loop end to end", async () => {
    await reset(refs["pm-1"], "2026-12-01T09:00:00Z");
    // 1. Read the schedules due by the scheduler's clock.
    const due = await t.call("acme-key", "GET", `${PM}?isActive=true&nextRunAtEnd=2026-12-01T09:05:00Z`);
    expect(ids(due)).toEqual([refs["pm-1"]]);
    const s = due.body.data[0];
    // 2. Create the PM work order from the template.
    const wo = await createPmWorkOrder(s.id);
    expect(wo).toMatchObject({
      isPM: true,
      plannedMaintenanceScheduleId: s.id,
      assetId: refs["rtu-1"],
      status: "PendingConfirmationByServiceProvider",
    });
    const created = await t.db.outboxEvent.findMany({ where: { workOrderId: wo.id } });
    expect(created.map((e) => e.eventType)).toEqual(["workorder.create"]);
    // 3. Record the run with the work order.
    const run = await t.call("acme-key", "POST", LOGS, {
      scheduleId: s.id,
      status: "success",
      lastRunAt: "2026-12-01T09:05:00Z",
      lastRunDueAt: s.nextRunAt,
      woId: wo.id,
      log: "created by cron",
    });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({
      type: "SchedulerRunLog",
      data: {
        scheduleId: s.id,
        status: "success",
        source: "external",
        woId: wo.id,
        log: "created by cron",
        lastRunDueAt: "2026-12-01T09:00:00.000Z",
        lastRunAt: "2026-12-01T09:05:00.000Z",
      },
    });
    // The run reads back by id, for its company only.
    const read = await t.call("acme-key", "GET", `${LOGS}/${run.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ type: "SchedulerRunLog", data: run.body.data });
    expect((await t.call("globex-key", "GET", `${LOGS}/${run.body.data.id}`)).status).toBe(400);
    // The schedule moved on, so the next read finds nothing due.
    expect((await t.call("acme-key", "GET", `${PM}/${s.id}`)).body.data).toMatchObject({
      nextRunAt: "2027-03-01T09:00:00.000Z",
      lastRunAt: "2026-12-01T09:05:00.000Z",
      lastRunDueAt: "2026-12-01T09:00:00.000Z",
      lastRunStatus: "success",
    });
    expect((await t.call("acme-key", "GET", `${PM}?isActive=true&nextRunAtEnd=2026-12-01T09:05:00Z`)).body.count).toBe(
      0,
    );
    // 4. The schedule's work orders, through the work order list filter.
    const listed = await t.call("acme-key", "GET", `${WO}?plannedMaintenanceScheduleId=${s.id}`);
    expect(listed.body.data.map((w: { id: number }) => w.id)).toContain(wo.id);
    expect(
      listed.body.data.every(
        (w: { plannedMaintenanceScheduleId: number; isPM: boolean }) =>
          w.plannedMaintenanceScheduleId === s.id && w.isPM,
      ),
    ).toBe(true);
  });

  it("repeats an identical successful run idempotently, refuses a second work order for the same due time (409), and never moves a schedule back", async () => {
    await reset(refs["pm-1"], "2027-03-01T09:00:00Z");
    const wo = await createPmWorkOrder(refs["pm-1"]);
    const body = {
      scheduleId: refs["pm-1"],
      status: "success",
      lastRunAt: "2027-03-01T09:01:00Z",
      lastRunDueAt: "2027-03-01T09:00:00Z",
      woId: wo.id,
    };
    const first = await t.call("acme-key", "POST", LOGS, body);
    const retry = await t.call("acme-key", "POST", LOGS, body);
    expect(retry.status).toBe(200);
    expect(retry.body.data.id).toBe(first.body.data.id);
    const other = await createPmWorkOrder(refs["pm-1"]);
    const clash = await t.call("acme-key", "POST", LOGS, { ...body, woId: other.id });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ type: "ConflictException" });
    expect(clash.body.message).toContain(`work order ${wo.id}`);
    expect(
      await t.db.schedulerRunLog.count({
        where: { scheduleId: refs["pm-1"], lastRunDueAt: new Date(body.lastRunDueAt), status: "success" },
      }),
    ).toBe(1);
    // An old due time is recorded but does not rewind nextRunAt.
    const old = await t.call("acme-key", "POST", LOGS, {
      ...body,
      woId: null,
      status: "skipped",
      lastRunDueAt: "2026-01-01T00:00:00Z",
    });
    expect(old.status).toBe(200);
    expect(await schedule(refs["pm-1"])).toMatchObject({
      nextRunAt: new Date("2027-06-01T08:00:00.000Z"),
      lastRunDueAt: new Date("2027-03-01T09:00:00Z"),
      lastRunStatus: "success",
    });
  });

  it("records failures without moving the schedule; success or skipped past several due times moves past all of them", async () => {
    await reset(refs["pm-2"], "2027-01-04T17:00:00Z");
    const failed = await t.call("acme-key", "POST", LOGS, {
      scheduleId: refs["pm-2"],
      status: "failed",
      lastRunAt: "2027-01-04T17:00:10Z",
      lastRunDueAt: "2027-01-04T17:00:00Z",
      log: "supplier API down",
    });
    expect(failed.status).toBe(200);
    expect(await schedule(refs["pm-2"])).toMatchObject({
      nextRunAt: new Date("2027-01-04T17:00:00Z"),
      lastRunStatus: "failed",
    });
    await t.call("acme-key", "POST", LOGS, {
      scheduleId: refs["pm-2"],
      status: "skipped",
      lastRunAt: "2027-03-01T18:00:00Z",
      lastRunDueAt: "2027-03-01T17:00:00Z",
    });
    expect((await schedule(refs["pm-2"])).nextRunAt?.toISOString()).toBe("2027-04-05T16:00:00.000Z");
  });

  it("refuses another company's schedule or work order, a work order of another schedule, bad statuses and bodies with 400, writing nothing", async () => {
    const mine = await createPmWorkOrder(refs["pm-2"]);
    const globexWo = await t.call("globex-key", "POST", WO, {
      title: "g",
      locationId: refs["g-store"],
      problemTypeId: refs["g-problem"],
      buyerFacilityId: refs["globex-hq"],
      buyerCompanyId: refs.globex,
      createdBy: "gina@globex.example",
      plannedMaintenanceScheduleId: refs["pm-g"],
    });
    expect(globexWo.status).toBe(200);
    const plain = (
      await t.call("acme-key", "POST", WO, {
        title: "not PM",
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        buyerFacilityId: refs["acme-hq"],
        buyerCompanyId: refs.acme,
        createdBy: "alice@acme.example",
      })
    ).body.data;
    const base = {
      scheduleId: refs["pm-1"],
      status: "success",
      lastRunAt: "2027-06-01T08:00:00Z",
      lastRunDueAt: "2027-06-01T08:00:00Z",
    };
    const before = await t.db.schedulerRunLog.count();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, scheduleId: refs["pm-g"] }, "scheduleId"],
      [{ ...base, scheduleId: 999999 }, "scheduleId"],
      [{ ...base, woId: globexWo.body.data.id }, "woId"],
      [{ ...base, woId: 999999 }, "woId"],
      [{ ...base, woId: mine.id }, "was not created for schedule"],
      [{ ...base, woId: plain.id }, "was not created for schedule"],
      [{ ...base, status: "done" }, "status must be one of success, failed, skipped"],
      [{ ...base, lastRunAt: "yesterday" }, "ISO 8601"],
      [{ ...base, log: "x".repeat(10_001) }, "log"],
      [{ scheduleId: refs["pm-1"], status: "success", lastRunAt: base.lastRunAt }, "lastRunDueAt"],
    ];
    for (const [body, words] of cases) {
      const reply = await t.call("acme-key", "POST", LOGS, body);
      expect(reply.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(reply.body.message).toContain(words);
    }
    // Globex's key cannot log a run of Acme's schedule either, nor a key without write permission.
    expect((await t.call("globex-key", "POST", LOGS, base)).status).toBe(400);
    const denied = await t.call("acme-viewer-key", "POST", LOGS, base);
    expect(denied.status).toBe(400);
    expect(denied.body.message).toContain("may not write work orders");
    expect(await t.db.schedulerRunLog.count()).toBe(before);
    expect((await t.call("acme-key", "GET", `${LOGS}?status=done`)).status).toBe(400);
    expect((await t.call("globex-key", "GET", `${LOGS}?scheduleId=${refs["pm-1"]}`)).body.count).toBe(0);
  });
});

describe("GraphQL", () => {
  it("serves the same schedules with their location and latest run logs", async () => {
    const reply = await t.graphql(
      "acme-key",
      `{ plannedMaintenanceSchedule(id: ${refs["pm-1"]}) { id cadence timeZone location { name } runLogs { status source } } }`,
    );
    expect(reply.body.errors).toBeUndefined();
    const s = reply.body.data.plannedMaintenanceSchedule;
    expect(s).toMatchObject({
      id: refs["pm-1"],
      cadence: "P3M",
      timeZone: "America/Los_Angeles",
      location: { name: "Store 1 Portland" },
    });
    expect(s.runLogs.length).toBeGreaterThan(0);
    const supplier = await t.graphql("coolco-key", "{ plannedMaintenanceSchedules { count } }");
    expect(supplier.body.errors?.[0]?.extensions?.code).toBe("ForbiddenException");
  });
});
