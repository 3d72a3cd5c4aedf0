// `npm run bench -- live`: live subscriptions at scale. BENCH_SUBSCRIBERS (1,000) graphql-ws
// subscribers, spread evenly over BENCH_TENANTS (10) buyer companies, each on its own websocket, while
// events are committed at BENCH_LIVE_RATE (100) events/s for BENCH_SECONDS (60; 300 for the 5-minute
// memory check), round robin over the tenants.
//
//   1. Database wo_bench_live or BENCH_DATABASE (dropped, created, migrated, dropped again at the end);
//      the base fixture without webhook endpoints, plus one company, facility, contact and key (no rate
//      limit) per tenant.
//   2. The service (src/main.ts) in child processes with their own Redis prefix: one API process and
//      one worker process (the relay), NODE_ENV=production; the subscribers in this process select
//      `id eventType workOrderId workOrder { id status } data`, so every event also costs the batched
//      work order load (the ids are made up: each load finds nothing, but runs).
//   3. Memory: the API process's RSS and V8 heap (its /metrics) before the subscribers connect, once
//      they are connected (→ per subscriber), and every 5 s during the run with the deliveries still
//      owed (→ flat or not: the lowest heap sample of the last third against that of the first).
//   4. Commit → delivery: each event is committed as the service writes it (an outbox row) and timed
//      until every subscriber of its tenant has it: p50/p99/max over all deliveries, and the relay's
//      part (commit → relayed, per event). Every subscriber must receive exactly its tenant's events,
//      each once, in increasing id order.
//   5. CPU of the API, worker and bench processes per delivery (comparable on a loaded machine).
//
// Targets: p99 ≤ 250 ms, no event to another tenant, none missing or duplicated, heap growth over the
// run ≤ 10%. Exit 1 when one is missed, 2 on failure. Summary printed; JSON in <tmpdir>/wo-bench/live.json.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { createDb, sqlPool, type Db } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { onServer, recreateDatabase, urlOf } from "./database.ts";
import { insertStatusUpdates } from "./outbox-events.ts";
import { abort, cleanUp, freePort, gitRevision, onCleanUp, ROOT, startService, stopService } from "./common.ts";

const DATABASE = process.env.BENCH_DATABASE ?? "wo_bench_live";
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000);
const TENANTS = Number(process.env.BENCH_TENANTS ?? 10);
const RATE = Number(process.env.BENCH_LIVE_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const TARGET_P99_MS = 250;
const MAX_HEAP_GROWTH = 0.1;
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "live.json");

const started = Date.now();
const log = (message: string) =>
  console.log(`[wo-bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return { count: sorted.length, p50: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1) ?? NaN) };
}

/** The base fixture without webhook endpoints, plus `tenants` buyer companies with a key each. */
function fixture(tenants: number) {
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, "test/fixtures/base.json"), "utf8"));
  base.webhookEndpoints = [];
  for (let i = 0; i < tenants; i++) {
    base.buyerCompanies.push({ ref: `tenant-${i}`, name: `Tenant ${i}` });
    base.buyerFacilities.push({ ref: `tenant-${i}-hq`, company: `tenant-${i}`, name: `Tenant ${i} HQ` });
    base.contacts.push({
      ref: `tenant-${i}-admin`,
      email: `admin@tenant-${i}.example`,
      nameGiven: "Admin",
      nameFamily: `Tenant ${i}`,
      buyerFacility: `tenant-${i}-hq`,
      roles: ["facility_manager"],
    });
    base.apiKeys.push({
      ref: `tenant-${i}-key`,
      kind: "buyer",
      contact: `tenant-${i}-admin`,
      rateLimit: { requests: 100_000_000, windowSeconds: 1 },
    });
  }
  return base;
}

/** CPU time (user + system, ms) a process has used so far: /proc/<pid>/stat's utime and stime, in clock ticks. */
function cpuMsOf(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // fields 14 and 15; 100 ticks/s on Linux
}

/** Resident set and V8 heap of the API process (its /proc entry and its /metrics). */
async function memoryOf(pid: number, port: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? NaN);
  return { rss, heap };
}

interface Subscriber {
  tenant: number;
  client: Client;
  /** workOrderId (unique per event) → arrival; ids in arrival order. */
  arrivals: Map<number, number>;
  ids: number[];
  foreign: number;
  duplicates: number;
  errors: unknown[];
}

function subscribe(port: number, key: { apiKey: string; svcKey: string | null }, tenant: number, after: string) {
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey! },
    retryAttempts: 0,
  });
  const sub: Subscriber = { tenant, client, arrivals: new Map(), ids: [], foreign: 0, duplicates: 0, errors: [] };
  client.subscribe<{ workOrderEvents: { id: string; workOrderId: number } }>(
    {
      query: `subscription($after: String) { workOrderEvents(after: $after) {
        id eventType workOrderId workOrder { id status } data } }`,
      variables: { after },
    },
    {
      next: (r) => {
        const at = performance.now();
        const event = r.data?.workOrderEvents;
        if (!event) return void sub.errors.push(r.errors);
        if (event.workOrderId % TENANTS !== tenant) sub.foreign++;
        if (sub.arrivals.has(event.workOrderId)) sub.duplicates++;
        else arrivals++;
        sub.arrivals.set(event.workOrderId, at);
        sub.ids.push(Number(event.id));
      },
      error: (e) => sub.errors.push(e),
      complete: () => undefined,
    },
  );
  return sub;
}

/** When each event (by work order id) was committed. */
const committedAt = new Map<number, number>();
let nextWorkOrderId = TENANTS; // work order id % TENANTS is the tenant
/** Arrivals so far, over every subscriber (duplicates not counted). */
let arrivals = 0;

/** `count` status updates, round robin over the tenants, in one statement (as writeEvent writes them). */
async function commit(db: Db, companies: number[], count: number) {
  const ids = Array.from({ length: count }, () => nextWorkOrderId++);
  await insertStatusUpdates(
    db,
    ids.map((workOrderId) => ({
      workOrderId,
      buyerCompanyId: companies[workOrderId % TENANTS],
      customer: `Tenant ${workOrderId % TENANTS}`,
      location: "Store",
      supplierFacilityId: null,
      changedBy: "Bench",
    })),
  );
  const at = performance.now();
  for (const id of ids) committedAt.set(id, at);
  return ids;
}

async function main() {
  const watchdog = SECONDS + 180;
  setTimeout(() => abort(`still running after ${watchdog} s`), watchdog * 1000).unref();
  process.once("SIGINT", () => abort("interrupted"));

  log(`creating and migrating ${DATABASE}`);
  await recreateDatabase(DATABASE);
  onCleanUp(() => onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  const db = createDb(urlOf(DATABASE), { max: 4 });
  onCleanUp(() => db.$disconnect());
  const applied = await applyFixture(db, fixture(TENANTS), { allowInsecureWebhooks: true });
  const companies = Array.from({ length: TENANTS }, (_, i) => applied.refs[`tenant-${i}`]);
  const keys = Array.from({ length: TENANTS }, (_, i) => applied.keys[`tenant-${i}-key`]);

  const redisPrefix = `wobench-live:${crypto.randomBytes(4).toString("hex")}`;
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  onCleanUp(async () => {
    const found = await redis.keys(`${redisPrefix}:*`);
    if (found.length) await redis.del(...found);
    redis.disconnect();
  });
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: urlOf(DATABASE),
    REDIS_PREFIX: redisPrefix,
    PORT: String(port),
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    LIVE_MAX_CONNECTIONS_PER_KEY: String(SUBSCRIBERS),
    LIVE_MAX_SUBSCRIPTIONS_PER_KEY: String(SUBSCRIBERS),
  };
  const api = await startService({ ...env, ROLES: "api" }, port);
  onCleanUp(() => stopService(api));
  const worker = await startService({ ...env, ROLES: "worker", PORT: "0" }, port);
  onCleanUp(() => stopService(worker));
  await sleep(2_000);
  const idle = await memoryOf(api.pid!, port);

  log(`connecting ${SUBSCRIBERS} subscribers over ${TENANTS} tenants`);
  const head = async () => {
    const reply = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-KEY": keys[0].apiKey, "SVC-KEY": keys[0].svcKey! },
      body: JSON.stringify({ query: "{ workOrderEventsHead }" }),
    });
    return ((await reply.json()) as { data: { workOrderEventsHead: string } }).data.workOrderEventsHead;
  };
  const from = await head();
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    subscribers.push(subscribe(port, keys[i % TENANTS], i % TENANTS, from));
    if (i % 50 === 49) await sleep(50); // do not open a thousand sockets in one tick
  }
  onCleanUp(() => Promise.all(subscribers.map((s) => s.client.dispose())));
  // Live once an event reaches every subscriber.
  const warmUp = await commit(db, companies, TENANTS);
  const everyone = () =>
    subscribers.every((s) => warmUp.every((id) => id % TENANTS !== s.tenant || s.arrivals.has(id)));
  for (const until = Date.now() + 60_000; !everyone(); await sleep(50)) {
    if (Date.now() > until) throw new Error("warm-up: not every subscriber got its tenant's event in 60 s");
  }
  await sleep(1_000);
  const connected = await memoryOf(api.pid!, port);
  log(`connected; committing ${RATE} events/s for ${SECONDS} s`);

  // Deliveries owed: committed events times their tenant's subscribers. What is not delivered yet waits
  // in the service's buffers, so a heap that grows with this backlog is not a leak.
  const perTenant = Array.from({ length: TENANTS }, (_, i) => subscribers.filter((s) => s.tenant === i).length);
  const owed = (ids: number[]) => ids.reduce((n, id) => n + perTenant[id % TENANTS], 0);
  const samples: { at: number; rss: number; heap: number; backlog: number }[] = [];
  const events: number[] = [];
  const tick = 50; // ms: RATE / 20 events per tick
  const perTick = (RATE * tick) / 1000;
  const runStart = performance.now();
  const cpuAtStart = { api: cpuMsOf(api.pid!), worker: cpuMsOf(worker.pid!), bench: process.cpuUsage() };
  const arrivalsAtStart = arrivals;
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  let nextSample = runStart + 5_000;
  while (performance.now() - runStart < SECONDS * 1000) {
    const t0 = performance.now();
    events.push(...(await commit(db, companies, Math.round(perTick))));
    if (t0 >= nextSample) {
      const backlog = arrivalsAtStart + owed(events) - arrivals;
      samples.push({ at: round((t0 - runStart) / 1000), backlog, ...(await memoryOf(api.pid!, port)) });
      nextSample += 5_000;
    }
    await sleep(Math.max(0, tick - (performance.now() - t0)));
  }
  // Every delivery made: counted, as checking each subscriber for each event would take the bench
  // process seconds of CPU the service needs.
  const expected = arrivalsAtStart + owed(events);
  for (const until = Date.now() + 60_000; arrivals < expected; await sleep(100)) {
    if (Date.now() > until) break; // missing deliveries are counted below
  }
  // CPU from the first event to the last delivery (or the end of waiting for it): on a machine shared
  // with other work a process gets less CPU than it would use, so its CPU per delivery is the figure
  // that compares runs; busy (CPU ÷ wall time) shows how much of a core it got.
  const cpu = {
    wallMs: performance.now() - runStart,
    apiMs: cpuMsOf(api.pid!) - cpuAtStart.api,
    workerMs: cpuMsOf(worker.pid!) - cpuAtStart.worker,
    benchMs: Object.values(process.cpuUsage(cpuAtStart.bench)).reduce((a, b) => a + b, 0) / 1000,
  };
  await sleep(500);

  const latencies: number[] = [];
  let missing = 0;
  for (const s of subscribers) {
    for (const id of events) {
      if (id % TENANTS !== s.tenant) continue;
      const at = s.arrivals.get(id);
      if (at === undefined) missing++;
      else latencies.push(at - committedAt.get(id)!);
    }
  }
  const foreign = subscribers.reduce((n, s) => n + s.foreign, 0);
  const duplicates = subscribers.reduce((n, s) => n + s.duplicates, 0);
  const outOfOrder = subscribers.filter((s) => s.ids.some((id, i) => i > 0 && id <= s.ids[i - 1])).length;
  const errors = subscribers.reduce((n, s) => n + s.errors.length, 0);
  const third = Math.max(1, Math.floor(samples.length / 3));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const early = samples.slice(0, third).map((s) => s.heap);
  const late = samples.slice(-third).map((s) => s.heap);
  const heapGrowth = samples.length >= 2 ? mean(late) / mean(early) - 1 : NaN;
  // The heap used rises between major collections and drops at each: the lowest sample of a third is
  // about what survives a collection, the level a leak would raise (a third must span a collection:
  // minutes, not seconds, at this rate).
  const floorGrowth = samples.length >= 2 ? Math.min(...late) / Math.min(...early) - 1 : NaN;
  const latency = percentiles(latencies);
  // The relay's part of it: commit (the row's createdAt, its transaction's start) → relayed (relayedAt,
  // the relay transaction's start, before it publishes), on the database's clock.
  const relayed = await sqlPool(db).query<{ ms: number }>(
    `SELECT extract(epoch FROM "relayedAt" - "createdAt") * 1000 AS ms FROM "OutboxEvent"
      WHERE "workOrderId" = ANY($1::int[]) AND "relayedAt" IS NOT NULL`,
    [events],
  );
  const relayLatency = percentiles(relayed.rows.map((r) => Number(r.ms)));
  const summary = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    node: process.version,
    cpus: os.cpus().length,
    /** The machine's load averages (1, 5, 15 min) as the run started and as it ended. */
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((l) => round(l, 2)) },
    settings: { subscribers: SUBSCRIBERS, tenants: TENANTS, eventsPerSecond: RATE, seconds: SECONDS },
    events: events.length,
    deliveries: latencies.length,
    deliveriesPerSecond: Math.round(latencies.length / SECONDS),
    commitToDeliveryMs: latency,
    /** Per event, not per delivery: the worker's relay. */
    commitToRelayedMs: relayLatency,
    cpu: {
      /** CPU ms per 1,000 deliveries, from the first event to the last delivery. */
      apiMsPer1000Deliveries: round((cpu.apiMs / latencies.length) * 1000),
      benchMsPer1000Deliveries: round((cpu.benchMs / latencies.length) * 1000),
      workerMsPerEvent: round(cpu.workerMs / events.length, 2),
      /** CPU ÷ wall time over the same span: 1 is one core busy all along. */
      apiBusy: round(cpu.apiMs / cpu.wallMs, 2),
      benchBusy: round(cpu.benchMs / cpu.wallMs, 2),
      workerBusy: round(cpu.workerMs / cpu.wallMs, 2),
    },
    memory: {
      idleRssMB: round(idle.rss / 2 ** 20),
      connectedRssMB: round(connected.rss / 2 ** 20),
      rssPerSubscriberKB: round((connected.rss - idle.rss) / SUBSCRIBERS / 1024),
      heapPerSubscriberKB: round((connected.heap - idle.heap) / SUBSCRIBERS / 1024),
      heapGrowthOverRun: round(heapGrowth, 3),
      heapFloorGrowthOverRun: round(floorGrowth, 3),
      samples: samples.map((s) => ({
        at: s.at,
        rssMB: round(s.rss / 2 ** 20),
        heapMB: round(s.heap / 2 ** 20),
        backlog: s.backlog,
      })),
    },
    correctness: { foreign, missing, duplicates, subscribersOutOfOrder: outOfOrder, errors },
    targets: {
      p99: latency.p99 <= TARGET_P99_MS,
      noCrossTenant: foreign === 0,
      complete: missing === 0 && duplicates === 0 && outOfOrder === 0 && errors === 0,
      memoryFlat: !(floorGrowth > MAX_HEAP_GROWTH),
    },
  };
  fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
  fs.writeFileSync(RESULT_FILE, JSON.stringify(summary, null, 2));
  const met = (ok: boolean) => (ok ? "met" : "MISSED");
  console.log(`
Live subscriptions bench (${summary.commit}, node ${summary.node}, ${summary.cpus} CPUs, load ${loadAtStart.join(" ")} at start, ${summary.loadAverage.atEnd.join(" ")} at end)
  ${SUBSCRIBERS} subscribers over ${TENANTS} tenants, ${RATE} events/s for ${SECONDS} s: ${events.length} events, ${latencies.length} deliveries (${summary.deliveriesPerSecond}/s)
  commit → delivery   p50 ${latency.p50} ms   p99 ${latency.p99} ms   max ${latency.max} ms   (target p99 ≤ ${TARGET_P99_MS} ms: ${met(summary.targets.p99)})
  of which commit → relayed (worker, per event)   p50 ${relayLatency.p50} ms   p99 ${relayLatency.p99} ms   max ${relayLatency.max} ms
  CPU per 1,000 deliveries: API process ${summary.cpu.apiMsPer1000Deliveries} ms, bench process (producer, subscribers) ${summary.cpu.benchMsPer1000Deliveries} ms; busy (1 = one core): API ${summary.cpu.apiBusy}, bench ${summary.cpu.benchBusy}
  worker (relay): ${summary.cpu.workerMsPerEvent} ms CPU per event, busy ${summary.cpu.workerBusy}
  memory per subscriber (API process, connected − idle): RSS ${summary.memory.rssPerSubscriberKB} KB, heap ${summary.memory.heapPerSubscriberKB} KB
  heap over the run, last third / first third − 1: lowest sample ${summary.memory.heapFloorGrowthOverRun} (target ≤ ${MAX_HEAP_GROWTH}: ${met(summary.targets.memoryFlat)}), mean ${summary.memory.heapGrowthOverRun}
  heap MB (deliveries owed) every 5 s: ${summary.memory.samples.map((s) => `${s.heapMB} (${s.backlog})`).join(", ")}
  other tenants' events: ${foreign} (${met(summary.targets.noCrossTenant)}); missing ${missing}, duplicated ${duplicates}, out of order ${outOfOrder}, errors ${errors}
  JSON: ${RESULT_FILE}`);
  if (Object.values(summary.targets).some((ok) => !ok)) process.exitCode = 1;
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 2;
  })
  .finally(cleanUp);
