// `npm run test:cluster` (vitest.cluster.config.ts; docs/deployment.md): the whole topology on this
// machine — a PostgreSQL primary and synchronous hot standby, a Redis primary, replica and three
// Sentinels, a webhook receiver, two API and two worker processes — under a mixed load while an API is
// killed, a worker is killed, Redis fails over and the PostgreSQL standby is promoted. Then: every
// accepted write (creates, cancels with a note, appended notes) present exactly once, every planned
// maintenance due time that fell in the load generated exactly once by the two workers' built-in
// generators, every webhook delivered (by id),
// both subscriptions complete, no list read older than the lag bound, no process exited by itself, no
// 500; a summary table.
import crypto from "node:crypto";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db.ts";
import { applyFixture, type ApplyResult } from "../../src/operator/apply.ts";
import { BASE_FIXTURE } from "../support/app.ts";
import { startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.ts";
import { MASTER_NAME, startSentinelGroup, type SentinelGroup } from "../support/redis-sentinel.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { freePort, type Receiver, Service, startReceiver } from "./harness.ts";

/** Seconds of load; the faults come at fixed points of it. */
const LOAD_SECONDS = Number(process.env.CLUSTER_LOAD_SECONDS ?? 180);
const CLIENTS = 4;
const MAX_LAG_MS = 3_000;
/** Built-in PM schedules whose due times are spread over the load (one due time each). */
const PM_SCHEDULES = 30;

let pgCluster: PostgresCluster;
let redis: SentinelGroup;
let receiver: Receiver;
let fixture: ApplyResult;
let apis: Service[];
let workers: Service[];
const subscriptions: { api: number; client: Client; ids: Set<number> }[] = [];

beforeAll(async () => {
  pgCluster = await startPostgresCluster();
  redis = await startSentinelGroup();
  receiver = await startReceiver();
  const definition = structuredClone(BASE_FIXTURE);
  definition.apiKeys.push({
    ref: "cluster-key",
    kind: "buyer",
    contact: "alice",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
  });
  for (const hook of definition.webhookEndpoints) hook.url = `${receiver.base}/${hook.ref}`;
  // The workers' generators make acme's planned maintenance work orders.
  definition.buyerCompanies.find((c: { ref: string }) => c.ref === "acme").config.pmScheduling = "built_in";
  const db = createDb(pgCluster.url(pgCluster.primaryPort), { max: 2 });
  fixture = await applyFixture(db, definition, { allowInsecureWebhooks: true });
  await db.$disconnect();
  const env = {
    ...process.env,
    DATABASE_URL: pgCluster.databaseUrl,
    DATABASE_READ_URL: pgCluster.url(pgCluster.standbyPort),
    DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    REDIS_URL: "redis://127.0.0.1:1", // never used: the Sentinels name the primary
    REDIS_SENTINELS: redis.sentinels.map((s) => `${s.host}:${s.port}`).join(","),
    REDIS_MASTER_NAME: MASTER_NAME,
    REDIS_PREFIX: `wocluster:${crypto.randomBytes(3).toString("hex")}`,
    NODE_ENV: "production",
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
    RELAY_INTERVAL_MS: "50",
    PM_GENERATOR_INTERVAL_MS: "1000",
    WORK_LEASE_MS: "15000",
    WEBHOOK_RETRY_SCALE: "0.01",
  };
  apis = [new Service("api", await freePort(), env), new Service("api", await freePort(), env)];
  workers = [new Service("worker", 0, env), new Service("worker", 0, env)];
  // One at a time: four processes loading the sources at once on a small machine miss ready()'s minute.
  for (const child of [...apis, ...workers]) await child.restart();
  for (const [i, api] of apis.entries()) subscriptions.push(await subscribe(i, api.port));
  // A subscription is live once it has had an event: warm-up creates (not counted below) until both have.
  await waitFor(
    async () => {
      await fetch(`http://127.0.0.1:${apis[0].port}/v1/buyer/work_order/work_orders`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({ ...workOrder(), title: "Cluster warm-up" }),
      });
      return waitFor(() => subscriptions.every((s) => s.ids.size > 0), 2_000, "both subscriptions live").catch(
        () => false,
      );
    },
    60_000,
    "both subscriptions to receive events",
  );
}, 240_000);
afterAll(async () => {
  for (const s of subscriptions) await s.client.dispose();
  await Promise.all([...(apis ?? []), ...(workers ?? [])].map((child) => child.kill("SIGTERM")));
  await receiver?.close();
  await redis?.close();
  await pgCluster?.close();
});

const workOrder = () => ({
  locationId: fixture.refs["store-1"],
  problemTypeId: fixture.refs.hvac,
  buyerFacilityId: fixture.refs["acme-hq"],
  buyerCompanyId: fixture.refs.acme,
  createdBy: "alice@acme.example",
});

const headers = () => {
  const key = fixture.keys["cluster-key"];
  return { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey!, "content-type": "application/json" };
};

/**
 * A subscription to work order creations on one API instance that resumes after the last event it
 * had (`after`) whenever its connection is lost: the instance killed, restarted, or Redis failing over.
 */
async function subscribe(api: number, port: number) {
  const ids = new Set<number>();
  let last: string | undefined;
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: headers(),
    // No retry of graphql-ws's own: it would send the first payload again, not `after` the last event.
    retryAttempts: 0,
  });
  const listen = () =>
    client.subscribe(
      {
        query: `subscription ($after: String) { workOrderEvents(eventTypes: ["workorder.create"], after: $after) { id workOrderId } }`,
        variables: { after: last ?? null },
      },
      {
        next: (m) => {
          const event = (m.data as { workOrderEvents: { id: string; workOrderId: number } }).workOrderEvents;
          last = event.id;
          ids.add(event.workOrderId);
        },
        error: () => void setTimeout(listen, 500),
        complete: () => void setTimeout(listen, 500),
      },
    );
  listen();
  return { api, client, ids };
}

interface Tally {
  phase: string;
  ok: number;
  unavailable: number;
  failed: number;
  other: number;
}

describe("the cluster", () => {
  it("survives an API kill, a worker kill, a Redis failover and a PostgreSQL promotion under load", async () => {
    const accepted = new Map<string, number>(); // Idempotency-Key → work order id
    const tallies = new Map<string, Tally>();
    let phase = "steady";
    const unexpected: string[] = [];
    const count = (status: number | "reset") => {
      const t = tallies.get(phase) ?? { phase, ok: 0, unavailable: 0, failed: 0, other: 0 };
      tallies.set(phase, t);
      if (status === 200) t.ok++;
      else if (status === 503 || status === "reset") t.unavailable++;
      else if (status >= 500) t.failed++;
      else t.other++;
      if (typeof status === "number" && status >= 500 && status !== 503) unexpected.push(`${phase}: ${status}`);
    };
    const request = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
      // Either API: a killed one refuses, and the client goes to the other (the load balancer's job).
      for (const api of [...apis].sort(() => Math.random() - 0.5)) {
        try {
          const reply = await fetch(`http://127.0.0.1:${api.port}${path}`, {
            method,
            headers: { ...headers(), ...extra },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          count(reply.status);
          return { status: reply.status, body: (await reply.json().catch(() => undefined)) as any };
        } catch {
          count("reset");
        }
      }
      return { status: 0, body: undefined };
    };
    const createOnce = async (n: number) => {
      const key = crypto.randomUUID();
      const body = { ...workOrder(), title: `Cluster load ${n}` };
      for (;;) {
        const reply = await request("POST", "/v1/buyer/work_order/work_orders", body, { "Idempotency-Key": key });
        if (reply.status === 200) {
          accepted.set(key, reply.body.data.id);
          acknowledged.push({ id: reply.body.data.id, at: Date.now() });
          return reply.body.data.id as number;
        }
        await sleep(250);
      }
    };
    /** A status action with a note (cancel with a reason), retried with its Idempotency-Key like a create. */
    const cancelled = new Set<number>();
    const cancelOnce = async (id: number) => {
      const key = crypto.randomUUID();
      const body = { id, note: { text: `cluster cancel ${id}`, noteAddedBy: "alice@acme.example" } };
      for (;;) {
        const reply = await request("PATCH", "/v1/buyer/work_order/work_orders/cancel", body, {
          "Idempotency-Key": key,
        });
        if (reply.status === 200) return void cancelled.add(id);
        if (reply.status !== 503 && reply.status !== 0) return; // refused: counted in the phase's 4xx
        await sleep(250);
      }
    };
    /** A note appended on its own, retried with its Idempotency-Key like a create. */
    const noted = new Set<number>();
    const noteOnce = async (id: number) => {
      const key = crypto.randomUUID();
      const body = { id, note: { text: `cluster note ${id}`, noteAddedBy: "alice@acme.example" } };
      for (;;) {
        const reply = await request("PATCH", "/v1/buyer/work_order/work_orders/append_notes", body, {
          "Idempotency-Key": key,
        });
        if (reply.status === 200) return void noted.add(id);
        if (reply.status !== 503 && reply.status !== 0) return; // refused: counted in the phase's 4xx
        await sleep(250);
      }
    };
    /**
     * How old a list is (replica reads): the age, when it was asked for, of the oldest acknowledged create
     * newer than everything it shows. The newest 20 by creation are asked for; 0 when it lacks nothing.
     */
    const acknowledged: { id: number; at: number }[] = [];
    let oldestList = 0;
    const freshness = async () => {
      const asked = Date.now();
      const before = acknowledged.filter((a) => a.at <= asked);
      const reply = await request("GET", "/v1/buyer/work_order/work_orders?limit=20");
      if (reply.status !== 200) return;
      const newest = Math.max(0, ...reply.body.data.map((w: { id: number }) => w.id));
      const lacking = before.filter((a) => a.id > newest);
      if (lacking.length) oldestList = Math.max(oldestList, asked - Math.min(...lacking.map((a) => a.at)));
    };
    const end = Date.now() + LOAD_SECONDS * 1000;
    // Planned maintenance due one schedule after another until 85% of the load (cadence PT1H: one due
    // time each within the run), so generation runs through every fault.
    const { refs } = fixture;
    await pgCluster.query(
      pgCluster.primaryPort,
      `INSERT INTO "PlannedMaintenanceSchedule" ("buyerCompanyId", "locationId", "problemTypeId", "supplierFacilityId",
         "assetIds", title, cadence, "anchorAt", "nextRunAt", "updatedAt")
       SELECT ${refs.acme}, ${refs["store-1"]}, ${refs.hvac}, ${refs["coolco-pdx"]}, ARRAY[${refs["rtu-1"]}],
              'Cluster PM ' || i, 'PT1H', due, due, now()
         FROM generate_series(1, ${PM_SCHEDULES}) i,
              LATERAL (SELECT to_timestamp(${Date.now() / 1000} + i * ${(LOAD_SECONDS * 0.85) / PM_SCHEDULES})) d (due)`,
    );
    let n = 0;
    const load = Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < end) {
        const i = n++;
        const id = await createOnce(i);
        if (i % 4 === 1) await cancelOnce(id);
        if (i % 4 === 2) await noteOnce(id);
        if (i % 3 === 0) await freshness();
        if (i % 5 === 0) await request("GET", "/v1/buyer/work_order/work_orders?search=load");
        if (i % 7 === 0) await request("GET", "/v1/buyer/work_order/work_orders/count_by?group_by=status");
      }
    });

    const recovery: Record<string, number> = {};
    /** Time from `started` to the next create accepted. */
    const recovered = async (name: string, started: number) => {
      const before = accepted.size;
      await waitFor(() => accepted.size > before, 60_000, `writes after ${name}`);
      recovery[name] = Date.now() - started;
    };
    const at = (fraction: number) => sleep(Math.max(0, end - LOAD_SECONDS * 1000 * (1 - fraction) - Date.now()));

    await at(0.15);
    phase = "API kill -9";
    let started = Date.now();
    await apis[0].kill("SIGKILL");
    await recovered(phase, started);
    await sleep(5_000);
    await apis[0].restart();

    await at(0.35);
    phase = "worker kill -9";
    await workers[0].kill("SIGKILL");
    await sleep(5_000);
    await workers[0].restart();

    await at(0.55);
    phase = "Redis failover";
    started = Date.now();
    await redis.killPrimary();
    await recovered(phase, started);

    await at(0.75);
    phase = "PostgreSQL promotion";
    started = Date.now();
    pgCluster.stop(pgCluster.primaryPort);
    await sleep(1_000);
    await pgCluster.promoteStandby();
    await recovered(phase, started);
    phase = "after";
    await Promise.all(load);

    // Every accepted create exactly once.
    const ids = [...accepted.values()];
    const rows = await pgCluster.query<{ id: number; title: string }>(
      pgCluster.standbyPort,
      `SELECT id, title FROM "WorkOrder" WHERE title LIKE 'Cluster load %'`,
    );
    const titles = new Set(rows.map((r) => r.title));
    // Every accepted cancel: the status, and its note exactly once.
    const cancels = await pgCluster.query<{ id: number; status: string; notes: number }>(
      pgCluster.standbyPort,
      `SELECT w.id, w.status::text AS status, count(n.id)::int AS notes FROM "WorkOrder" w
       JOIN "WorkOrderNote" n ON n."workOrderId" = w.id AND n.text = 'cluster cancel ' || w.id GROUP BY w.id`,
    );
    // Every appended note exactly once.
    const notes = await pgCluster.query<{ id: number; notes: number }>(
      pgCluster.standbyPort,
      `SELECT w.id, count(n.id)::int AS notes FROM "WorkOrder" w
       JOIN "WorkOrderNote" n ON n."workOrderId" = w.id AND n.text = 'cluster note ' || w.id GROUP BY w.id`,
    );
    // Every PM due time exactly once: one work order and one successful run log per schedule.
    const pm = () =>
      pgCluster.query<{ id: number; workOrders: number; runs: number }>(
        pgCluster.standbyPort,
        `SELECT s.id,
                (SELECT count(*)::int FROM "WorkOrder" w WHERE w."plannedMaintenanceScheduleId" = s.id) AS "workOrders",
                (SELECT count(*)::int FROM "SchedulerRunLog" r WHERE r."scheduleId" = s.id AND r.status = 'success') AS runs
           FROM "PlannedMaintenanceSchedule" s WHERE s.title LIKE 'Cluster PM %' ORDER BY s.id`,
      );
    await waitFor(async () => (await pm()).every((s) => s.runs > 0), 60_000, "every PM due time generated").catch(
      () => undefined,
    );
    const schedules = await pm();
    // Every webhook delivered, by id (at least once).
    const deliveries = async () =>
      pgCluster.query<{ webhookId: string; status: string }>(
        pgCluster.standbyPort,
        `SELECT "webhookId", status::text FROM "WebhookDelivery"`,
      );
    await waitFor(
      async () => {
        const all = await deliveries();
        return all.length > 0 && all.every((d) => receiver.arrivals.has(d.webhookId));
      },
      120_000,
      "every webhook delivered",
    ).catch(() => undefined);
    const all = await deliveries();
    const missing = all.filter((d) => !receiver.arrivals.has(d.webhookId));
    const duplicates = [...receiver.arrivals.values()].reduce((sum, a) => sum + a.count - 1, 0);
    for (const s of subscriptions)
      await waitFor(() => ids.every((id) => s.ids.has(id)), 30_000, "the subscriptions to catch up").catch(
        () => undefined,
      );
    const exits = [...apis, ...workers].flatMap((child) => child.unexpectedExits);

    console.log(
      [
        "",
        `cluster: ${LOAD_SECONDS} s of load, ${accepted.size} creates accepted (${rows.length} rows, ${titles.size} distinct)`,
        "| phase | 200 | 503 or refused | 5xx other | 4xx |",
        "|---|---|---|---|---|",
        ...[...tallies.values()].map((t) => `| ${t.phase} | ${t.ok} | ${t.unavailable} | ${t.failed} | ${t.other} |`),
        "",
        "| check | result |",
        "|---|---|",
        `| cancels with a note accepted | ${cancelled.size}; ${cancels.filter((c) => c.status === "CancelledWithReason" && c.notes === 1).length} cancelled with one note |`,
        `| notes appended | ${noted.size}; ${notes.filter((c) => c.notes === 1).length} present once |`,
        `| PM due times (two workers) | ${schedules.length} schedules; ${schedules.filter((s) => s.workOrders === 1 && s.runs === 1).length} with exactly one work order and one run |`,
        ...Object.entries(recovery).map(([name, ms]) => `| writes after ${name} | ${ms} ms |`),
        `| webhooks | ${all.length} deliveries, ${all.length - missing.length} received, ${duplicates} duplicates |`,
        ...subscriptions.map(
          (s) => `| subscription on API ${s.api + 1} | ${ids.filter((id) => s.ids.has(id)).length} of ${ids.length} |`,
        ),
        `| the oldest list read (bound ${MAX_LAG_MS} ms, checked every 500 ms) | ${oldestList} ms |`,
        `| processes exited by themselves | ${exits.length} |`,
      ].join("\n"),
    );

    expect(rows.length).toBe(accepted.size);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids));
    expect(missing).toEqual([]);
    expect(cancelled.size).toBeGreaterThan(0);
    expect(cancels.map((c) => [c.id, c.status, c.notes]).sort()).toEqual(
      [...cancelled].map((id) => [id, "CancelledWithReason", 1]).sort(),
    );
    expect(noted.size).toBeGreaterThan(0);
    expect(notes.map((c) => [c.id, c.notes]).sort()).toEqual([...noted].map((id) => [id, 1]).sort());
    expect(schedules.length).toBe(PM_SCHEDULES);
    expect(schedules.filter((s) => s.workOrders !== 1 || s.runs !== 1)).toEqual([]);
    for (const s of subscriptions) expect(ids.filter((id) => !s.ids.has(id))).toEqual([]);
    // A replica past the bound is dropped at the next check: the bound, one check interval and the check's own time.
    expect(oldestList).toBeLessThanOrEqual(MAX_LAG_MS + 1_500);
    expect(exits).toEqual([]);
    expect(unexpected).toEqual([]);
  }, 900_000);
});
