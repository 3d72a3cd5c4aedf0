// `npx tsx bench/webhooks.ts`: webhook delivery and subscription fan-out, end to end, next to a bare
// HTTP POST loop to the same receiver.
//
//   1. Database wo_bench_webhooks or BENCH_DATABASE (dropped, created, `prisma migrate deploy`, dropped again at the end),
//      the base fixture with its two webhook endpoints (acme's buyer endpoint, coolco-pdx's supplier
//      endpoint) pointed at a local node:http receiver (2xx), and a bench key without a rate limit.
//   2. Baseline: a child process POSTs a delivery-sized JSON body to the receiver with undici's
//      `request` (the client the service delivers with), at the worker's concurrency
//      (WEBHOOK_CONCURRENCY), BENCH_BASELINE_REQUESTS times: requests/s, p50, p99.
//   3. The service (`src/main.ts`) in child processes with their own Redis prefix: one API process and
//      BENCH_WORKERS worker-role processes (relay + delivery worker); a graphql-ws subscriber (the bench
//      key, acme) in this process.
//   4. Latency: BENCH_LATENCY_EVENTS status-update events committed in batches of 5 at BENCH_LATENCY_RATE
//      events/s (default 100: every 50 ms; below capacity); commit → receipt p50/p99 for webhooks and for
//      the subscription.
//   5. Throughput: BENCH_EVENTS (5,000) events committed in batches of BENCH_BATCH as fast as possible;
//      each gives two deliveries (buyer + supplier endpoint) and one subscription message. Deliveries/s
//      from the first commit to the last receipt, and commit → receipt p50/p99 under that load.
//   Every delivery must arrive exactly once (by webhook-id) and every row end `delivered`.
//
// Settings: BENCH_EVENTS (5000), BENCH_BATCH (500), BENCH_LATENCY_EVENTS (500), BENCH_LATENCY_RATE (100), BENCH_BASELINE_REQUESTS
// (10000), BENCH_WORKERS (1), WEBHOOK_CONCURRENCY (200, the service default) and RELAY_INTERVAL_MS (passed to the service),
// BENCH_PROFILE=<dir> (V8 CPU profiles of the service processes). Summary printed; JSON in
// <tmpdir>/wo-bench/webhooks.json. Exit code 1 below the 2,000 deliveries/s target, 2 on failure.
// Bounded: a watchdog ends everything (and cleans up) after 300 s (a run takes about a minute on a quiet machine).
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { createClient } from "graphql-ws";
import { Agent, request } from "undici";
import WebSocket from "ws";
import { createDb, sqlPool, type Db } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { onServer, recreateDatabase, urlOf } from "./database.ts";
import { abort, cleanUp, freePort, gitRevision, onCleanUp, ROOT, startService, stopService } from "./common.ts";
import { insertStatusUpdates } from "./outbox-events.ts";

const TSX = path.join(ROOT, "node_modules/.bin/tsx");
/** BENCH_DATABASE: another name, so two checkouts can run this bench on one server at once. */
const DATABASE = process.env.BENCH_DATABASE ?? "wo_bench_webhooks";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 500);
/** Events per second of the latency stage (committed 5 at a time). */
const LATENCY_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 100);
const BASELINE_REQUESTS = Number(process.env.BENCH_BASELINE_REQUESTS ?? 10_000);
const CONCURRENCY = Number(process.env.WEBHOOK_CONCURRENCY ?? 200);
/** Worker-role processes next to the API process (the relay and the delivery claims scale out across them). */
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const TARGET_PER_SECOND = 2_000;
const WATCHDOG_SECONDS = 300;
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "webhooks.json");
/** A status update's body as delivered (for the baseline's body size). */
const SAMPLE_BODY = JSON.stringify({
  event_type: "workorder.status_update",
  data: {
    workOrderId: 123456,
    customer: "Acme Foods",
    location: "Store 1 Portland",
    oldStatus: "PendingConfirmationByServiceProvider",
    newStatus: "ConfirmedByServiceProvider",
    changedBy: "Bob Tech",
    changedAt: new Date().toISOString(),
  },
});

const started = Date.now();
const log = (message: string) =>
  console.log(`[wo-bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
};
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

// ---------------------------------------------------------------- baseline client (child process)

/** `tsx bench/webhooks.ts --baseline <url> <requests> <concurrency>`: prints {requestsPerSecond, p50, p99}. */
async function baselineClient(url: string, requests: number, concurrency: number) {
  const latencies: number[] = [];
  const agent = new Agent();
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const t0 = performance.now();
        const response = await request(url, {
          method: "POST",
          dispatcher: agent,
          body: SAMPLE_BODY,
          headers: { "content-type": "application/json", "webhook-id": `baseline_${next}` },
        });
        await response.body.dump();
        if (response.statusCode >= 300) throw new Error(`baseline POST answered ${response.statusCode}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - begin) / 1000;
  process.stdout.write(
    JSON.stringify({
      requests,
      concurrency,
      seconds: round(seconds, 2),
      requestsPerSecond: Math.round(requests / seconds),
      latencyMs: stats(latencies),
    }),
  );
}

// ---------------------------------------------------------------- infrastructure

/** The receiver: 204 for everything; the time each webhook-id arrived (and how often). */
async function startReceiver() {
  const arrivals = new Map<string, { at: number; path: string; workOrderId: number; count: number }>();
  let baselineRequests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const id = String(req.headers["webhook-id"] ?? "");
      if (id.startsWith("baseline_")) baselineRequests++;
      else {
        const seen = arrivals.get(id);
        if (seen) seen.count++;
        else
          arrivals.set(id, {
            at,
            path: req.url ?? "",
            workOrderId: JSON.parse(Buffer.concat(chunks).toString("utf8")).data.workOrderId,
            count: 1,
          });
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    base,
    arrivals,
    baselineRequests: () => baselineRequests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(" ")} exited ${code}: ${err}`)),
    );
  });
}

/**
 * CPU seconds used so far by the service processes and by this database's PostgreSQL backends
 * (/proc/<pid>/stat utime + stime). On a shared machine the deliveries a second follow the load of
 * other work; the CPU a delivery costs does much less.
 */
async function cpuSample(db: Db, servicePids: number[]) {
  const ticks = (pid: number) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
    } catch {
      return undefined; // gone, or not Linux
    }
  };
  const { rows } = await sqlPool(db).query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return {
    service: servicePids.reduce((sum, pid) => sum + (ticks(pid) ?? 0), 0),
    postgres: new Map(rows.map((r) => [r.pid, ticks(r.pid) ?? 0])),
  };
}

function cpuSpent(
  before: Awaited<ReturnType<typeof cpuSample>>,
  after: Awaited<ReturnType<typeof cpuSample>>,
  deliveries: number,
) {
  let postgres = 0;
  for (const [pid, seconds] of after.postgres) postgres += seconds - (before.postgres.get(pid) ?? 0);
  const perDelivery = (seconds: number) => round((seconds * 1000) / deliveries, 3);
  return {
    service: perDelivery(after.service - before.service),
    postgres: perDelivery(postgres),
    total: perDelivery(after.service - before.service + postgres),
  };
}

// ---------------------------------------------------------------- events

/** The committed batches: event id → commit time, and work order id (one per event) → commit time. */
const committedAt = new Map<number, number>();
let nextWorkOrderId = 1;

/** Commits `count` status updates in one statement (outbox-events.ts); returns their work order ids. */
async function commitBatch(db: Db, refs: Record<string, number>, count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, () => nextWorkOrderId++);
  await insertStatusUpdates(
    db,
    ids.map((workOrderId) => ({
      workOrderId,
      buyerCompanyId: refs.acme,
      customer: "Acme Foods",
      location: "Store 1 Portland",
      supplierFacilityId: refs["coolco-pdx"],
      changedBy: "Bob Tech",
    })),
  );
  const at = performance.now();
  for (const id of ids) committedAt.set(id, at);
  return ids;
}

async function waitUntil(probe: () => boolean, ms: number, what: string) {
  const until = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

// ---------------------------------------------------------------- main

async function main() {
  setTimeout(() => abort(`still running after ${WATCHDOG_SECONDS} s`), WATCHDOG_SECONDS * 1000).unref();
  process.once("SIGINT", () => abort("interrupted"));

  log(`creating and migrating ${DATABASE}`);
  await recreateDatabase(DATABASE);
  onCleanUp(() => onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  const db = createDb(urlOf(DATABASE), { max: 4 });
  onCleanUp(() => db.$disconnect());

  const receiver = await startReceiver();
  onCleanUp(() => receiver.close());
  const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, "test/fixtures/base.json"), "utf8"));
  fixture.apiKeys.push({
    ref: "bench-key",
    kind: "buyer",
    contact: "alice",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
  });
  for (const hook of fixture.webhookEndpoints) hook.url = `${receiver.base}/${hook.ref}`;
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: true });
  const refs = applied.refs;
  const key = applied.keys["bench-key"];
  const endpoints = fixture.webhookEndpoints.length as number;

  log(`baseline: ${BASELINE_REQUESTS} bare POSTs at concurrency ${CONCURRENCY}`);
  const baseline = JSON.parse(
    await run(
      [
        fileURLToPath(import.meta.url),
        "--baseline",
        `${receiver.base}/baseline`,
        String(BASELINE_REQUESTS),
        String(CONCURRENCY),
      ],
      process.env,
    ),
  );
  if (receiver.baselineRequests() !== BASELINE_REQUESTS)
    throw new Error(`receiver counted ${receiver.baselineRequests()} baseline requests`);

  const redisPrefix = `wobench-webhooks:${crypto.randomBytes(4).toString("hex")}`;
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  onCleanUp(async () => {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${redisPrefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
    redis.disconnect();
  });
  const port = await freePort();
  const serviceEnv = {
    ...process.env,
    DATABASE_URL: urlOf(DATABASE),
    REDIS_PREFIX: redisPrefix,
    PORT: String(port),
    ROLES: "api,worker",
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  };
  log(
    `service: api on port ${port}; ${WORKERS} worker process(es), WEBHOOK_CONCURRENCY=${CONCURRENCY}, RELAY_INTERVAL_MS=${process.env.RELAY_INTERVAL_MS ?? "100 (default)"}`,
  );
  const service = await startService({ ...serviceEnv, ROLES: "api" }, port);
  onCleanUp(() => stopService(service));
  const servicePids = [service.pid!];
  for (let i = 0; i < WORKERS; i++) {
    // Worker-role processes have no HTTP server; started like the API and checked through it.
    const worker = await startService({ ...serviceEnv, ROLES: "worker", PORT: "0" }, port);
    onCleanUp(() => stopService(worker));
    servicePids.push(worker.pid!);
  }

  // The subscriber: acme's buyer key receives one message per event.
  const subscription = new Map<number, number>();
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey! },
    retryAttempts: 0,
  });
  onCleanUp(() => client.dispose() as Promise<void>);
  client.subscribe<{ workOrderEvents: { workOrderId: number } }>(
    { query: "subscription { workOrderEvents { workOrderId eventType data } }" },
    {
      next: (r) => {
        if (r.data) subscription.set(r.data.workOrderEvents.workOrderId, performance.now());
      },
      error: (e) => console.error("bench: subscription error", e),
      complete: () => undefined,
    },
  );
  // Warm-up until both paths carry an event (the subscription is live once one arrives). The worker
  // processes have no readiness probe, and on a busy machine they take more than 10 s to start.
  const warmUp = await (async () => {
    for (let i = 0; i < 600; i++) {
      const [id] = await commitBatch(db, refs, 1);
      await sleep(100);
      if (subscription.has(id) && [...receiver.arrivals.values()].some((a) => a.workOrderId === id)) return id;
    }
    throw new Error("warm-up: no event came through in 60 s");
  })();
  await commitBatch(db, refs, 100); // and let the JIT see some volume
  await waitUntil(() => receiver.arrivals.size >= (nextWorkOrderId - 1) * endpoints, 30_000, "the warm-up deliveries");
  const afterWarmUp = nextWorkOrderId;
  log(`warm-up done (first event ${warmUp})`);

  const latencyOf = (ids: number[]) => {
    const hooks: number[] = [];
    const byWorkOrder = new Map<number, number[]>();
    for (const a of receiver.arrivals.values()) {
      if (!byWorkOrder.has(a.workOrderId)) byWorkOrder.set(a.workOrderId, []);
      byWorkOrder.get(a.workOrderId)!.push(a.at);
    }
    for (const id of ids) for (const at of byWorkOrder.get(id) ?? []) hooks.push(at - committedAt.get(id)!);
    return {
      webhooks: stats(hooks),
      subscription: stats(ids.map((id) => subscription.get(id)! - committedAt.get(id)!)),
    };
  };

  // Latency at a steady pace: batches of 5 (every 50 ms at the default 100 events/s, 200 deliveries/s).
  const pace = (5 / LATENCY_RATE) * 1000;
  log(`latency: ${LATENCY_EVENTS} events in batches of 5 every ${pace.toFixed(0)} ms (${LATENCY_RATE} events/s)`);
  const paced: number[] = [];
  while (paced.length < LATENCY_EVENTS) {
    const tick = performance.now();
    paced.push(...(await commitBatch(db, refs, Math.min(5, LATENCY_EVENTS - paced.length))));
    await sleep(Math.max(0, pace - (performance.now() - tick)));
  }
  await waitUntil(
    () => paced.every((id) => subscription.has(id)) && receiver.arrivals.size >= (nextWorkOrderId - 1) * endpoints,
    60_000,
    "the paced deliveries",
  );
  const steady = latencyOf(paced);

  // Throughput: everything at once, in batches.
  log(`throughput: ${EVENTS} events (${EVENTS * endpoints} deliveries) in batches of ${BATCH}`);
  const burst: number[] = [];
  const cpuBefore = await cpuSample(db, servicePids);
  const firstCommitStart = performance.now();
  while (burst.length < EVENTS) burst.push(...(await commitBatch(db, refs, Math.min(BATCH, EVENTS - burst.length))));
  const writeSeconds = (performance.now() - firstCommitStart) / 1000;
  await waitUntil(
    () => receiver.arrivals.size >= (nextWorkOrderId - 1) * endpoints && burst.every((id) => subscription.has(id)),
    120_000,
    "the burst deliveries",
  );
  const firstCommit = committedAt.get(burst[0])!;
  const burstArrivals = [...receiver.arrivals.values()].filter((a) => a.workOrderId >= burst[0]);
  const lastReceipt = Math.max(...burstArrivals.map((a) => a.at));
  const lastSubscription = Math.max(...burst.map((id) => subscription.get(id)!));
  const seconds = (lastReceipt - firstCommit) / 1000;
  const load = latencyOf(burst);
  const cpu = cpuSpent(cpuBefore, await cpuSample(db, servicePids), burstArrivals.length);

  // Exactly once, and every row delivered.
  await sleep(500);
  const duplicates = [...receiver.arrivals.values()].filter((a) => a.count > 1).length;
  const rows = await db.webhookDelivery.groupBy({ by: ["status"], _count: true });
  const delivered = rows.find((r) => r.status === "delivered")?._count ?? 0;
  const expected = (nextWorkOrderId - 1) * endpoints;
  if (duplicates > 0 || delivered !== expected || receiver.arrivals.size !== expected) {
    throw new Error(
      `exactly-once check failed: ${duplicates} duplicated webhook-ids, ${delivered} of ${expected} rows delivered, ${receiver.arrivals.size} distinct receipts`,
    );
  }

  const deliveriesPerSecond = Math.round(burstArrivals.length / seconds);
  const summary = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
    settings: {
      events: EVENTS,
      batch: BATCH,
      latencyEvents: LATENCY_EVENTS,
      endpoints,
      workerProcesses: WORKERS,
      webhookConcurrency: CONCURRENCY,
      relayIntervalMs: Number(process.env.RELAY_INTERVAL_MS ?? 100),
    },
    baseline,
    throughput: {
      deliveries: burstArrivals.length,
      writeSeconds: round(writeSeconds, 2),
      seconds: round(seconds, 2),
      deliveriesPerSecond,
      ratioToBaseline: round(deliveriesPerSecond / baseline.requestsPerSecond, 2),
      subscriptionMessagesPerSecond: Math.round(burst.length / ((lastSubscription - firstCommit) / 1000)),
      target: TARGET_PER_SECOND,
      met: deliveriesPerSecond >= TARGET_PER_SECOND,
      latencyMs: load,
      cpuMsPerDelivery: cpu,
    },
    steadyLatencyMs: { rate: `${LATENCY_RATE} events/s (${LATENCY_RATE * endpoints} deliveries/s)`, ...steady },
    exactlyOnce: { deliveries: expected, duplicates, warmUpEvents: afterWarmUp - 1 },
  };
  fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
  fs.writeFileSync(RESULT_FILE, JSON.stringify(summary, null, 2));

  const line = (label: string, l: { p50: number; p99: number }) =>
    `${label.padEnd(34)} p50 ${String(l.p50).padStart(7)} ms   p99 ${String(l.p99).padStart(7)} ms`;
  console.log(`
Webhooks bench (${summary.commit}, node ${summary.node}, ${summary.cpus} CPUs, load ${summary.loadAverage.join(" ")})
  baseline: bare POST loop, concurrency ${CONCURRENCY}      ${String(baseline.requestsPerSecond).padStart(6)} req/s
  webhooks: outbox → relay → claim → signed POST   ${String(deliveriesPerSecond).padStart(6)} deliveries/s  (${summary.throughput.ratioToBaseline}× baseline; target ${TARGET_PER_SECOND}: ${summary.throughput.met ? "met" : "MISSED"})
  subscription messages during the burst            ${String(summary.throughput.subscriptionMessagesPerSecond).padStart(6)} msg/s
  ${line("baseline POST round trip", baseline.latencyMs)}
  ${line(`webhook, commit → receipt (${LATENCY_RATE}/s)`, steady.webhooks)}
  ${line(`subscription, commit → receipt (${LATENCY_RATE}/s)`, steady.subscription)}
  ${line("webhook, commit → receipt (burst)", load.webhooks)}
  ${line("subscription, commit → receipt (burst)", load.subscription)}
  CPU per delivery during the burst: service processes ${cpu.service} ms, PostgreSQL backends ${cpu.postgres} ms (Redis not counted)
  exactly once: ${expected} deliveries, ${duplicates} duplicates; all rows delivered
  JSON: ${RESULT_FILE}`);
  if (!summary.throughput.met) process.exitCode = 1;
}

if (process.argv[2] === "--baseline") {
  baselineClient(process.argv[3], Number(process.argv[4]), Number(process.argv[5])).catch((error) => {
    console.error(error);
    process.exit(2);
  });
} else {
  main()
    .catch((error) => {
      console.error(error);
      process.exitCode = 2;
    })
    .finally(cleanUp);
}
