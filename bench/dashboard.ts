// `npm run bench -- dashboard`: the dashboard graph at 1,000,000 work orders (docs/performance.md, "Dashboards").
//
//   Database: the work-orders bench's wo_bench_wo (bench/work-orders.ts builds it: 1,000,000 work orders of
//   the measured company, 100,000 of each of ten others). When it is absent this bench has that bench
//   build and keep it (BENCH_KEEP=1, its cases and writes left out), then reuses it; new migrations are
//   applied. The 25 newest work orders of the company get five root notes and two labels each (once),
//   so the board has something to show.
//
//   1. Board: a 25-row board query in GraphQL (location, asset, supplier facility, labels, the last three
//      notes) next to a hand-written single SQL statement on a bare node:http + pg server returning the
//      same JSON (checked equal once), loaded in turn with autocannon (bench/load.ts) for BENCH_ROUNDS
//      rounds; target ≥ 0.5× the statement's req/s with p99 ≤ 2× its p99. Fields the schema lacks
//      (the relations of the dashboard graph, before they are merged) are left out of both, with a warning.
//   2. Charts: workOrderStats by status × location over one month and by supplier facility × week over a
//      quarter (and, for scale, status × location of one region's locations), sequential requests (BENCH_ITERATIONS), p50/p95/p99 and the ratio to a baseline measured
//      in the same run (GET one work order by id); target p95 ≤ 50 ms. Each case five times: asked
//      again while nothing changed (a buyer's chart answer is kept: src/schema/core/kept-answers.ts),
//      with a new work order written before every request (a chart of past months stays kept), with a
//      problem type renamed before every request (a name the chart does not show: kept), with a
//      status change of one of the period's work orders before every request (a chart grouped by
//      location or supplier facility is patched: that key's groups read again), and after a
//      change to every period before every request (read again). Each request is timed to the
//      answer's last byte by a client in a worker thread (the service runs in this one: TIMING_CLIENT);
//      its p95 with the client's JSON.parse of the answer (a month's 2.5 MB) and the service's own mean
//      time (/metrics) are shown beside it. Each case's total is checked against a plain SQL count;
//      EXPLAIN (ANALYZE, BUFFERS) of its statement goes into the JSON.
//
// Settings: BENCH_ITERATIONS (200), BENCH_ROUNDS (3), BENCH_DURATION (8 s), BENCH_WARMUP (2 s),
// BENCH_CONNECTIONS (10), BENCH_PROFILE=1 (the first GraphQL board round under the CPU profiler: a breakdown
// printed, the profile in <tmpdir>/wo-bench/dashboard-board.cpuprofile). Summary printed; JSON in <tmpdir>/wo-bench/dashboard.json. Exit code 1 when a
// target was missed, 2 on failure. The machine may be shared: the load average is printed with the figures.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import { Worker } from "node:worker_threads";
import pg from "pg";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import type { Viewer } from "../src/schema/core/viewer.ts";
import { type WorkOrderDimension, workOrderStatsSql } from "../src/schema/work-orders/rules/stats.ts";
import type { ListCall } from "./calls.ts";
import { gitRevision, percentiles, ROOT } from "./common.ts";
import { createCountingDb, createCountingPool } from "./counting-pool.ts";
import { issueBenchKey, migrate, urlOf } from "./database.ts";
import { type LoadSample, type LoadSettings, medians, runLoad } from "./load.ts";
import { breakdown, profiled } from "./profile.ts";

const DATABASE = "wo_bench_wo";
/** The work-orders bench's row count: the database is reused when the measured company has this many. */
const ROWS = 1_000_000;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Math.max(10, Math.round(ITERATIONS / 10));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_PROFILE=1: the board's first GraphQL round under the CPU profiler (where the service's time goes). */
const PROFILE = process.env.BENCH_PROFILE === "1";
const LOAD: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  durationSeconds: Number(process.env.BENCH_DURATION ?? 8),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 2),
};
const BOARD_ROWS = 25;
const TARGET = { boardRate: 0.5, boardP99: 2, statsP95Ms: 50 };
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "dashboard.json");

const started = Date.now();
const log = (message: string) =>
  console.log(`[dashboard-bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}`);
const loadAverage = () => os.loadavg().map((l) => Number(l.toFixed(2)));

// ---------------------------------------------------------------- database

async function companyRows(): Promise<number> {
  const client = new pg.Client({ connectionString: urlOf(DATABASE) });
  try {
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "WorkOrder" WHERE id <= ${ROWS}`);
    return rows[0].n;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The work-orders bench's database, built by that bench when absent (its measurements left out). */
function ensureDatabase(rows: number) {
  if (rows >= ROWS) {
    log(
      `reusing ${DATABASE} (${rows.toLocaleString("en")} work orders of the measured company); applying new migrations`,
    );
    migrate(DATABASE);
    return;
  }
  log(`${DATABASE} is absent: building it with bench/work-orders.ts (BENCH_KEEP=1), several minutes`);
  const built = spawnSync(
    path.join(ROOT, "node_modules", ".bin", "tsx"),
    [path.join(ROOT, "bench", "work-orders.ts")],
    {
      stdio: "inherit",
      env: { ...process.env, BENCH_KEEP: "1", BENCH_WRITES: "0", BENCH_CASES: "^$", BENCH_ITERATIONS: "20" },
    },
  );
  if (built.status === 2 || built.status === null) throw new Error("bench/work-orders.ts could not build the database");
}

/** Five root notes and two labels on each of the board's rows (the company's newest), once. */
async function boardData(client: pg.Client, companyId: number) {
  const { rows } = await client.query(
    `SELECT id FROM "WorkOrder" WHERE "buyerCompanyId" = $1 ORDER BY "createdAt" DESC, id DESC LIMIT ${BOARD_ROWS}`,
    [companyId],
  );
  const ids = rows.map((r) => r.id as number);
  await client.query(
    `INSERT INTO "Label" ("buyerCompanyId", kind, name, color)
     SELECT $1, 'work_order', n, '#3366ff' FROM unnest(ARRAY['Board: urgent', 'Board: warranty']) n
      WHERE NOT EXISTS (SELECT 1 FROM "Label" WHERE "buyerCompanyId" = $1 AND name = n)`,
    [companyId],
  );
  await client.query(
    `INSERT INTO "WorkOrderLabelLink" ("workOrderId", "labelId")
     SELECT w, l.id FROM unnest($2::int[]) w, "Label" l WHERE l."buyerCompanyId" = $1 AND l.name LIKE 'Board: %'
     ON CONFLICT DO NOTHING`,
    [companyId, ids],
  );
  await client.query(
    `INSERT INTO "WorkOrderNote" ("workOrderId", thread, text, "noteAddedBy", "noteAddedAt")
     SELECT w, 'root', 'Board note ' || n || ': technician update', 'bob@coolco.example', now() - (6 - n) * interval '1 hour'
       FROM unnest($1::int[]) w, generate_series(1, 5) n
      WHERE NOT EXISTS (SELECT 1 FROM "WorkOrderNote" x WHERE x."workOrderId" = w AND x.text LIKE 'Board note %')`,
    [ids],
  );
}

// ---------------------------------------------------------------- the board, twice

interface Board {
  /** The root field: the relay connection when the schema has it, else the REST-facing list. */
  root: "workOrdersConnection" | "workOrders";
  query: string;
  sql: string;
  fields: string[];
  missing: string[];
}

type FieldInfo = { name: string; args: { name: string }[]; type: { name: string | null; ofType?: { name: string } } };

/**
 * The board query over the fields the schema has, and its hand-written twin: one statement returning the
 * same JSON. The relation fields of the dashboard graph are left out of both when missing.
 */
async function board(serviceUrl: string, headers: Record<string, string>): Promise<Board> {
  const reply = await fetch(`${serviceUrl}/graphql`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      query: `{ workOrder: __type(name: "WorkOrder") { fields { name args { name } type { name ofType { name } } } }
                query: __type(name: "Query") { fields { name } } }`,
    }),
  });
  const types = ((await reply.json()) as { data: Record<"workOrder" | "query", { fields: FieldInfo[] }> }).data;
  const fields = new Map(types.workOrder.fields.map((f) => [f.name, f]));
  const root = types.query.fields.some((f) => f.name === "workOrdersConnection")
    ? "workOrdersConnection"
    : "workOrders";
  const connection = (name: string, arg: string) => {
    const field = fields.get(name);
    const type = field?.type.name ?? field?.type.ofType?.name ?? "";
    return field && type.endsWith("Connection") && field.args.some((a) => a.name === arg);
  };
  const gql = ["id title status woPriority createdAt", "location { id name }", "asset { id name }"];
  const json = [
    `'id', w.id, 'title', w.title, 'status', w.status, 'woPriority', w."woPriority",
     'createdAt', to_char(w."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
     'location', json_build_object('id', l.id, 'name', l.name),
     'asset', CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object('id', a.id, 'name', a.name) END`,
  ];
  const used = ["location", "asset"];
  const missing: string[] = [];
  if (fields.has("supplierFacility")) {
    gql.push("supplierFacility { id name }");
    json.push(
      `'supplierFacility', (SELECT json_build_object('id', s.id, 'name', s.name) FROM "SupplierFacility" s WHERE s.id = w."supplierFacilityId")`,
    );
    used.push("supplierFacility");
  } else missing.push("supplierFacility");
  if (connection("labels", "first")) {
    gql.push("labels(first: 10) { edges { node { label { id name } } } }");
    json.push(`'labels', json_build_object('edges', (SELECT coalesce(json_agg(json_build_object('node', json_build_object('label',
       json_build_object('id', lb.id, 'name', lb.name))) ORDER BY lk."labelId"), '[]')
       FROM "WorkOrderLabelLink" lk JOIN "Label" lb ON lb.id = lk."labelId" WHERE lk."workOrderId" = w.id AND lb."deletedAt" IS NULL))`);
    used.push("labels");
  } else missing.push("labels(first:) connection");
  if (connection("notes", "last")) {
    gql.push("notes(last: 3) { edges { node { id text } } }");
    json.push(`'notes', json_build_object('edges', (SELECT coalesce(json_agg(json_build_object('node', json_build_object('id', n.id, 'text', n.text))
       ORDER BY n."noteAddedAt", n.id), '[]') FROM (SELECT id, text, "noteAddedAt" FROM "WorkOrderNote" WHERE "workOrderId" = w.id AND thread = 'root'
       ORDER BY "noteAddedAt" DESC, id DESC LIMIT 3) n))`);
    used.push("notes");
  } else missing.push("notes(last:) connection");
  const row = `json_build_object(${json.join(", ")})`;
  const rows = (item: string) => `coalesce(json_agg(${item} ORDER BY w."createdAt" DESC, w.id DESC), '[]')`;
  return {
    root,
    query:
      root === "workOrdersConnection"
        ? `{ workOrdersConnection(first: ${BOARD_ROWS}, orderBy: [{field: createdAt, direction: desc}]) { edges { node { ${gql.join(" ")} } } } }`
        : `{ workOrders(limit: ${BOARD_ROWS}, sort_by: "createdAt", order: "desc") { data { ${gql.join(" ")} } } }`,
    sql: `SELECT json_build_object('data', json_build_object(${
      root === "workOrdersConnection"
        ? `'workOrdersConnection', json_build_object('edges', ${rows(`json_build_object('node', ${row})`)})`
        : `'workOrders', json_build_object('data', ${rows(row)})`
    }))::text AS body
            FROM (SELECT * FROM "WorkOrder" WHERE "buyerCompanyId" = $1 ORDER BY "createdAt" DESC, id DESC LIMIT ${BOARD_ROWS}) w
            JOIN "Location" l ON l.id = w."locationId" LEFT JOIN "Asset" a ON a.id = w."assetId"`,
    fields: used,
    missing,
  };
}

/** The twin: a bare node:http server answering GET /board with the statement's JSON. */
async function startTwin(databaseUrl: string, statement: string, companyId: number) {
  const { pool, counter } = createCountingPool(databaseUrl, 10);
  const server = http.createServer(async (_req, res) => {
    try {
      const { rows } = await pool.query(statement, [companyId]);
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(rows[0].body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counter,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

/** The board's rows in an answer of either root field (ListCall.page; the board asks for no total). */
const boardPage = (json: any) => {
  if (json.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(json.errors)}`);
  const connection = json.data.workOrdersConnection;
  return {
    data: (connection
      ? connection.edges.map((e: { node: unknown }) => e.node)
      : json.data.workOrders.data) as unknown[],
    count: 0,
  };
};

// ---------------------------------------------------------------- charts

interface StatsCase {
  name: string;
  /** Request bodies, used in turn (several periods, so no single cached answer dominates). */
  bodies: { query: string; variables: Record<string, unknown> }[];
  target: boolean;
}

const monthStart = (monthsAgo: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
};

/** The cases; `regionId` narrows a third, chart-sized one (a region's ~70 locations instead of 2,000). */
function statsCases(regionId: number): StatsCase[] {
  const byStatusAndLocation = `query($filter: WorkOrderFilter) { workOrderStats(filter: $filter, groupBy: [STATUS, LOCATION]) {
    rows { status location { id name } count overdue medianHoursToCompletion } } }`;
  const bySupplierAndWeek = `query($filter: WorkOrderFilter) { workOrderStats(filter: $filter, groupBy: [SUPPLIER_FACILITY, CREATED], bucket: WEEK) {
    rows { supplierFacility { id name } created count overdue } } }`;
  const range = (from: Date, to: Date) => ({
    filter: { createdAt: { from: from.toISOString(), to: to.toISOString() } },
  });
  return [
    {
      name: "status × location, one month",
      bodies: [1, 2, 3, 4, 5, 6].map((m) => ({
        query: byStatusAndLocation,
        variables: range(monthStart(m), monthStart(m - 1)),
      })),
      target: true,
    },
    {
      name: "supplier facility × week, one quarter",
      bodies: [3, 6, 9, 12].map((m) => ({
        query: bySupplierAndWeek,
        variables: range(monthStart(m), monthStart(m - 3)),
      })),
      target: true,
    },
    {
      name: "status × location, one month, one region",
      bodies: [1, 2, 3, 4, 5, 6].map((m) => ({
        query: byStatusAndLocation,
        variables: { filter: { ...range(monthStart(m), monthStart(m - 1)).filter, regionIds: [regionId] } },
      })),
      target: false,
    },
  ];
}

interface Timing {
  name: string;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** p95 with this process's JSON.parse of the answer. */
  p95Parsed: number;
  /** The service's own mean time a request (arrival to answer, /metrics' http_request_duration_seconds); charts only. */
  serviceMean?: number;
  rows: number;
  p95ToBaseline?: number;
  meetsTarget?: boolean;
}

/** An answer's status and parsed body. */
async function answerOf(response: Response): Promise<{ status: number; body: any }> {
  return { status: response.status, body: JSON.parse(await response.text()) };
}

/**
 * The GraphQL requests the service has answered and the seconds it took for them (from /metrics: a
 * request's time from its arrival to the last byte of its answer handed to the socket).
 */
async function graphqlServed(serviceUrl: string): Promise<{ count: number; seconds: number }> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const sum = (name: string) =>
    [
      ...text.matchAll(
        new RegExp(`^http_request_duration_seconds_${name}\\{[^}]*route="/graphql"[^}]*\\} (\\S+)$`, "gm"),
      ),
    ]
      .map((m) => Number(m[1]))
      .reduce((a, b) => a + b, 0);
  return { count: sum("count"), seconds: sum("sum") };
}

/** What the timing client reports of one request. */
interface Timed {
  status: number;
  /** Milliseconds to the answer's last byte, and to its JSON.parse done. */
  received: number;
  parsed: number;
  /** The rows of a chart's answer (1 for any other), its errors' JSON, or the start of an unexpected body. */
  rows: number;
  problem?: string;
}

/**
 * The timing client, in a worker thread: the service runs on this thread, and a client on its event loop
 * (reading a chart's 2.5 MB answer a chunk per turn, decoding and parsing it, its garbage collected with
 * the service's) added 35–40 ms to a kept month chart on a 2-core VM, where curl from another process
 * took 20 ms for the same answer. As the board's load generator (bench/load.ts), it runs apart.
 */
const TIMING_CLIENT = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", async ({ id, url, init }) => {
  const t0 = performance.now();
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    const received = performance.now() - t0;
    const body = JSON.parse(text);
    const parsed = performance.now() - t0;
    const rows = body?.data?.workOrderStats?.rows?.length ?? 1;
    const problem = response.status !== 200 || body.errors ? text.slice(0, 500) : undefined;
    parentPort.postMessage({ id, timed: { status: response.status, received, parsed, rows, problem } });
  } catch (error) {
    parentPort.postMessage({ id, timed: { status: 0, received: 0, parsed: 0, rows: 0, problem: String(error) } });
  }
});`;

function startTimingClient() {
  const worker = new Worker(TIMING_CLIENT, { eval: true });
  const waiting = new Map<number, (timed: Timed) => void>();
  let next = 0;
  worker.on("message", ({ id, timed }: { id: number; timed: Timed }) => waiting.get(id)?.(timed));
  return {
    request: (url: string, init: RequestInit) =>
      new Promise<Timed>((resolve) => {
        const id = next++;
        waiting.set(id, (timed) => {
          waiting.delete(id);
          resolve(timed);
        });
        worker.postMessage({ id, url, init });
      }),
    close: () => worker.terminate(),
  };
}

/** Timed to the answer's last byte by the timing client; p95Parsed with its JSON.parse too (as measured until 2026-11-29). */
async function sequential(
  name: string,
  request: (i: number) => Promise<Timed>,
  before?: (i: number) => Promise<unknown>,
): Promise<Timing> {
  const times: number[] = [];
  const parsed: number[] = [];
  let rows = 0;
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    await before?.(i);
    const timed = await request(i);
    if (timed.status !== 200 || timed.problem) throw new Error(`${name}: HTTP ${timed.status} ${timed.problem}`);
    if (i < WARMUP) continue;
    times.push(timed.received);
    parsed.push(timed.parsed);
    rows += timed.rows;
  }
  const at = percentiles(times);
  return {
    name,
    requests: times.length,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    max: at(100),
    p95Parsed: percentiles(parsed)(95),
    rows: Math.round(rows / times.length),
  };
}

// ---------------------------------------------------------------- main

async function main() {
  ensureDatabase(await companyRows());
  const databaseUrl = urlOf(DATABASE);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const database = createCountingDb(databaseUrl, 10);
  const closers: (() => Promise<unknown>)[] = [() => admin.end(), () => database.close()];
  try {
    const seeded = await issueBenchKey(database.db);
    const companyId = seeded.buyerCompanyId;
    await boardData(admin, companyId);
    await admin.query(`ANALYZE "WorkOrderNote", "WorkOrderLabelLink", "Label"`);

    const config = loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: "0",
      ROLES: "api",
      REDIS_PREFIX: `wobenchdash:${crypto.randomBytes(4).toString("hex")}`,
      NODE_ENV: "production",
    });
    const app = await startApp(config, { db: database.db, logger: pino({ level: "warn" }) });
    closers.push(() => app.close());
    for (const deadline = Date.now() + 5_000; app.redis.status !== "ready"; await sleep(50))
      if (Date.now() > deadline) throw new Error("Redis is not reachable");
    const serviceUrl = `http://127.0.0.1:${app.port}`;
    const headers = seeded.headers;

    // 1. The board.
    const shape = await board(serviceUrl, headers);
    for (const field of shape.missing)
      console.warn(
        `WARNING: the schema has no WorkOrder.${field}: the board (and its SQL twin) leave it out; rerun once it is merged`,
      );
    const twin = await startTwin(databaseUrl, shape.sql, companyId);
    closers.push(() => twin.close());
    const graphqlCall: ListCall = {
      method: "POST",
      path: "/graphql",
      body: JSON.stringify({ query: shape.query }),
      page: boardPage,
    };
    const twinCall: ListCall = { method: "GET", path: "/board", page: boardPage };
    const fetchJson = async (url: string, call: ListCall) =>
      (
        await fetch(`${url}${call.path}`, {
          method: call.method,
          headers: { ...headers, ...(call.body ? { "content-type": "application/json" } : {}) },
          body: call.body,
        })
      ).json();
    // Labels compared as a set: their order is the connection's cursor order, not part of the board.
    const comparable = (json: any) =>
      boardPage(json).data.map((row: any) => ({
        ...row,
        labels: row.labels && {
          edges: [...row.labels.edges].sort((a: any, b: any) => a.node.label.id - b.node.label.id),
        },
      }));
    const answers = {
      graphql: comparable(await fetchJson(serviceUrl, graphqlCall)),
      twin: comparable(await fetchJson(twin.url, twinCall)),
    };
    const sameJson = isDeepStrictEqual(answers.graphql, answers.twin);
    const at = answers.graphql.findIndex((row: unknown, i: number) => !isDeepStrictEqual(row, answers.twin[i]));
    const difference = sameJson ? undefined : { row: at, graphql: answers.graphql[at], twin: answers.twin[at] };
    if (difference)
      console.warn(`WARNING: the board's GraphQL answer and its SQL twin's differ: ${JSON.stringify(difference)}`);
    const statementsPerBoard = async () => {
      const before = database.counter.statements;
      await fetchJson(serviceUrl, graphqlCall);
      return database.counter.statements - before;
    };
    const boardStatements = await statementsPerBoard();
    log(
      `board (${shape.root}): ${shape.fields.join(", ")}; ${boardStatements} SQL statements per request; JSON equal to the twin's: ${sameJson}`,
    );

    const loadBefore = loadAverage();
    const samples: LoadSample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, url, call, counter] of [
        ["graphql board", serviceUrl, graphqlCall, database.counter],
        ["sql twin", twin.url, twinCall, twin.counter],
      ] as const) {
        log(`load round ${round}/${ROUNDS}: ${name}`);
        const target = { name, baseUrl: url, headers, call, expectRows: BOARD_ROWS, counter };
        if (PROFILE && round === 1 && name === "graphql board") {
          const { result, profile } = await profiled(() => runLoad(target, LOAD, round));
          const file = path.join(path.dirname(RESULT_FILE), "dashboard-board.cpuprofile");
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, JSON.stringify(profile));
          for (const { category, percent } of breakdown(profile).slice(0, 10))
            log(`  profile: ${percent.toFixed(1).padStart(5)}% ${category}`);
          log(`  profile written to ${file}`);
          samples.push(result);
        } else samples.push(await runLoad(target, LOAD, round));
      }
    }
    const boardFigures = medians(samples.filter((s) => s.target === "graphql board"));
    const twinFigures = medians(samples.filter((s) => s.target === "sql twin"));
    const rateRatio = boardFigures.requestsPerSecond / twinFigures.requestsPerSecond;
    const p99Ratio = boardFigures.p99Ms / twinFigures.p99Ms;

    // 2. Charts.
    const postInit = (body: unknown) => ({
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const post = async (body: unknown) => answerOf(await fetch(`${serviceUrl}/graphql`, postInit(body)));
    const client = startTimingClient();
    closers.push(() => client.close());
    const ids = Array.from({ length: 50 }, (_, i) => 1 + ((i * 19_997) % ROWS));
    log(`measuring the baseline (GET one work order by id), ${WARMUP} + ${ITERATIONS} requests`);
    const baseline = await sequential("baseline: GET one work order by id", (i) =>
      client.request(`${serviceUrl}/v1/buyer/work_order/work_orders/${ids[i % ids.length]}`, { headers }),
    );
    const timings: Timing[] = [baseline];
    const plans: Record<string, string[]> = {};
    const exact: Record<string, boolean> = {};
    const viewer = { kind: "buyer", buyerCompanyId: companyId } as Viewer;
    const { rows: regions } = await admin.query(
      `SELECT "regionId" AS id FROM "Location" WHERE "buyerCompanyId" = $1 AND "regionId" IS NOT NULL ORDER BY id LIMIT 1`,
      [companyId],
    );
    const cases = statsCases(regions[0].id);
    // The floor of an answer of a month chart's size here: a bare node:http server answering the month
    // chart's own bytes, timed by the same client (a Node client took 17-21 ms p50 for 2.5 MB from it on a
    // 2-core VM where a Python client took 1).
    const monthAnswer = Buffer.from(
      await (await fetch(`${serviceUrl}/graphql`, postInit(cases[0].bodies[0]))).arrayBuffer(),
    );
    const bare = http.createServer(async (req, res) => {
      for await (const _ of req); // the request's body, read as the service does
      res.writeHead(200, { "content-type": "application/json", "content-length": String(monthAnswer.length) });
      res.end(monthAnswer);
    });
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => bare.close(resolve)));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    log(
      `measuring a bare server's answer of the month chart's ${monthAnswer.length} bytes, ${WARMUP} + ${ITERATIONS} requests`,
    );
    timings.push(
      await sequential("bare node:http server: the month chart's answer", () =>
        client.request(bareUrl, postInit(cases[0].bodies[0])),
      ),
    );
    // What a write in the company leaves (migration 20261219090000_stats_changes): a change to every
    // period (a renamed location; the next chart is read again), or to work orders created now (a new
    // work order: a chart of past months stays kept).
    const change = (period: string) => () =>
      admin.query(`INSERT INTO "StatsChange" ("buyerCompanyId", "createdFrom", "createdTo") VALUES ($1, ${period})`, [
        companyId,
      ]);
    // A work order of the period the next request counts changes status (TechAssigned ↔ TechScheduled): a
    // chart grouped by location reads its location's groups again (patched), another reads it all. The
    // statuses are put back after the case.
    const statusFlips = async (c: StatsCase) => {
      const picked: { id: number; status: string }[] = [];
      for (const body of c.bodies) {
        const filter = body.variables.filter as { createdAt: { from: string; to: string }; regionIds?: number[] };
        const { rows } = await admin.query(
          `SELECT id, status::text FROM "WorkOrder" WHERE "buyerCompanyId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3
              AND status IN ('TechAssigned', 'TechScheduled')
              AND ($4::int[] IS NULL OR "locationId" IN (SELECT id FROM "Location" WHERE "regionId" = ANY($4)))
            ORDER BY id LIMIT 1`,
          [companyId, filter.createdAt.from, filter.createdAt.to, filter.regionIds ?? null],
        );
        if (!rows.length) throw new Error(`${c.name}: no work order to change in ${filter.createdAt.from}`);
        picked.push(rows[0]);
      }
      return {
        before: (i: number) =>
          admin.query(
            `UPDATE "WorkOrder" SET status = (CASE status WHEN 'TechAssigned' THEN 'TechScheduled' ELSE 'TechAssigned' END)::"WorkOrderStatus" WHERE id = $1`,
            [picked[i % picked.length].id],
          ),
        restore: () =>
          admin.query(
            `UPDATE "WorkOrder" w SET status = p.status::"WorkOrderStatus" FROM unnest($1::int[], $2::text[]) p(id, status)
              WHERE w.id = p.id AND w.status::text <> p.status`,
            [picked.map((p) => p.id), picked.map((p) => p.status)],
          ),
      };
    };
    // A name no chart here shows (a problem type's) changed before each request: the chart stays kept
    // (migration 20261230090000_stats_change_dimensions). The name is put back afterwards.
    const [problemType] = (
      await admin.query(`SELECT id, name FROM "ProblemType" WHERE "buyerCompanyId" = $1 ORDER BY id LIMIT 1`, [
        companyId,
      ])
    ).rows;
    const rename = (i: number) =>
      admin.query(`UPDATE "ProblemType" SET name = $2 WHERE id = $1`, [
        problemType.id,
        `${problemType.name}${i % 2 ? "" : " (renamed)"}`,
      ]);
    for (const c of cases) {
      const flips = await statusFlips(c);
      const patched = /LOCATION|SUPPLIER_FACILITY/.test(c.bodies[0].query); // the dimensions kept answers are patched by
      for (const [name, before] of [
        [`${c.name}, asked again (kept)`, undefined],
        [`${c.name}, a new work order before each (kept)`, change("now(), now()")],
        [`${c.name}, a problem type renamed before each (kept)`, rename],
        [`${c.name}, a work order of its period changed before each (${patched ? "patched" : "read"})`, flips.before],
        [`${c.name}, after a change to its period (read)`, change("NULL, NULL")],
      ] as const) {
        log(`measuring workOrderStats ${name}, ${WARMUP} + ${ITERATIONS} requests`);
        const served = await graphqlServed(serviceUrl);
        const timing = await sequential(
          name,
          (i) => client.request(`${serviceUrl}/graphql`, postInit(c.bodies[i % c.bodies.length])),
          before,
        );
        const after = await graphqlServed(serviceUrl);
        timing.serviceMean = Number(
          ((1000 * (after.seconds - served.seconds)) / (after.count - served.count)).toFixed(1),
        );
        timing.p95ToBaseline = Number((timing.p95 / baseline.p95).toFixed(2));
        if (c.target) timing.meetsTarget = timing.p95 <= TARGET.statsP95Ms;
        timings.push(timing);
      }
      await flips.restore();
      await rename(1);
      // Exact: the rows' counts add up to a plain SQL count over the same period.
      const first = c.bodies[0];
      const { body } = await post(first);
      const total = body.data.workOrderStats.rows.reduce((sum: number, r: { count: number }) => sum + r.count, 0);
      const filter = first.variables.filter as { createdAt: { from: string; to: string }; regionIds?: number[] };
      const { from, to } = filter.createdAt;
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM "WorkOrder" WHERE "buyerCompanyId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3
            AND ($4::int[] IS NULL OR "locationId" IN (SELECT id FROM "Location" WHERE "regionId" = ANY($4)))`,
        [companyId, from, to, filter.regionIds ?? null],
      );
      exact[c.name] = total === rows[0].n;
      if (!exact[c.name]) throw new Error(`${c.name}: the rows count ${total}, plain SQL ${rows[0].n}`);
      const selected = new Set(["overdue", "medianHoursToCompletion"].filter((m) => first.query.includes(m)));
      const groupBy: WorkOrderDimension[] = first.query.includes("SUPPLIER_FACILITY")
        ? ["SUPPLIER_FACILITY", "CREATED"]
        : ["STATUS", "LOCATION"];
      const statement = workOrderStatsSql(
        viewer,
        {
          filter: { createdAt: { from: new Date(from), to: new Date(to) }, regionIds: filter.regionIds },
          groupBy,
          bucket: groupBy.includes("CREATED") ? "WEEK" : null,
        },
        selected,
        new Date(),
      );
      plans[c.name] = (
        await database.db.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
          `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
          ...statement.values,
        )
      ).map((r) => r["QUERY PLAN"]);
    }

    const summary = {
      when: new Date().toISOString(),
      commit: gitRevision(),
      node: process.version,
      cpus: os.cpus().length,
      loadAverage: { before: loadBefore, after: loadAverage() },
      rows: Number(
        (await admin.query(`SELECT count(*)::int AS n FROM "WorkOrder" WHERE "buyerCompanyId" = $1`, [companyId]))
          .rows[0].n,
      ),
      board: {
        root: shape.root,
        query: shape.query,
        difference,
        fields: shape.fields,
        missing: shape.missing,
        sameJson,
        statementsPerRequest: boardStatements,
        graphql: boardFigures,
        twin: twinFigures,
        rateRatio: Number(rateRatio.toFixed(2)),
        p99Ratio: Number(p99Ratio.toFixed(2)),
        meetsTarget: rateRatio >= TARGET.boardRate && p99Ratio <= TARGET.boardP99,
        load: LOAD,
        rounds: ROUNDS,
      },
      stats: { iterations: ITERATIONS, warmup: WARMUP, timings, exact, plans },
    };
    fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
    fs.writeFileSync(RESULT_FILE, `${JSON.stringify(summary, null, 2)}\n`);
    printSummary(summary);
    console.log(`\nJSON (with the twin's SQL and EXPLAIN ANALYZE of the stats statements) written to ${RESULT_FILE}`);
    if (!summary.board.meetsTarget || timings.some((t) => t.meetsTarget === false)) process.exitCode = 1;
  } finally {
    for (const close of closers.reverse())
      await close().catch((error) => console.error("bench: cleanup step failed:", error));
  }
}

function printSummary(s: {
  rows: number;
  commit: string;
  node: string;
  cpus: number;
  loadAverage: { before: number[]; after: number[] };
  board: {
    root: string;
    fields: string[];
    missing: string[];
    sameJson: boolean;
    statementsPerRequest: number;
    graphql: ReturnType<typeof medians>;
    twin: ReturnType<typeof medians>;
    rateRatio: number;
    p99Ratio: number;
    meetsTarget: boolean;
  };
  stats: { timings: Timing[]; plans: Record<string, string[]> };
}) {
  const b = s.board;
  console.log("\n======================== DASHBOARD BENCH ========================");
  console.log(
    `${s.rows.toLocaleString("en")} work orders in the measured company, commit ${s.commit}, node ${s.node}, ${s.cpus} CPUs, ` +
      `load average ${s.loadAverage.before.join(" ")} → ${s.loadAverage.after.join(" ")}`,
  );
  console.log(
    `\nBoard (${b.root}, ${BOARD_ROWS} rows: ${b.fields.join(", ")}${b.missing.length ? `; left out: ${b.missing.join(", ")}` : ""})`,
  );
  console.log(
    `  ${ROUNDS} rounds × ${LOAD.durationSeconds} s after ${LOAD.warmupSeconds} s warm-up, ${LOAD.connections} connections; medians over rounds`,
  );
  console.log(
    `  graphql board: ${b.graphql.requestsPerSecond.toFixed(0)} req/s, p50 ${b.graphql.p50Ms} ms, p99 ${b.graphql.p99Ms} ms, ${b.statementsPerRequest} statements per request`,
  );
  console.log(
    `  sql twin:      ${b.twin.requestsPerSecond.toFixed(0)} req/s, p50 ${b.twin.p50Ms} ms, p99 ${b.twin.p99Ms} ms, 1 statement`,
  );
  console.log(
    `  ratio: ${b.rateRatio}× the twin's req/s (target ≥ ${TARGET.boardRate}), p99 ${b.p99Ratio}× (target ≤ ${TARGET.boardP99}): ${b.meetsTarget ? "ok" : "MISSED"}; same JSON: ${b.sameJson}`,
  );
  console.log(
    `\nCharts (workOrderStats, ${ITERATIONS} sequential requests after ${WARMUP} warm-up, timed to the answer's last byte by a client in a worker thread (p95 parsed: with its JSON.parse); target p95 ≤ ${TARGET.statsP95Ms} ms)`,
  );
  for (const t of s.stats.timings)
    console.log(
      `  ${t.name.padEnd(40)} p50 ${t.p50.toFixed(1).padStart(7)}  p95 ${t.p95.toFixed(1).padStart(7)}  p99 ${t.p99.toFixed(1).padStart(7)} ms` +
        `  ${t.rows} rows  p95 parsed ${t.p95Parsed.toFixed(1)}${t.serviceMean === undefined ? "" : `  service mean ${t.serviceMean}`}${t.p95ToBaseline === undefined ? "" : `  p95 ÷ baseline ${t.p95ToBaseline}`}${t.meetsTarget === undefined ? "" : t.meetsTarget ? "  ok" : "  MISSED"}`,
    );
  for (const [name, plan] of Object.entries(s.stats.plans))
    console.log(`  plan of ${name}: ${plan.find((l) => l.includes("Scan")) ?? plan[0]}; ${plan.at(-1)}`);
  console.log("=================================================================");
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
