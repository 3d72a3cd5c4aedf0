// Connection loss is survived, not crashed on: while PostgreSQL cannot be reached the API answers the
// contract's 503 and /readyz says so; both roles recover by themselves; connections ended by the server
// (pg_terminate_backend) end nothing but those connections. The service runs in this process behind a
// TCP proxy the test cuts, so an unhandled 'error' event would fail the run.
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import { createDb, sqlPool, sqlTransaction } from "../../src/db.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { startReceiver } from "../support/receiver.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { acmeWorkOrder, confirmed, context } from "../support/work-order-events.ts";

let t: TestApp;
let proxy: TcpProxy;
let app: App;
let base: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let workOrderId: number;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({
    configure: (c) => {
      c.webhookAllowInsecureUrls = true;
    },
  });
  await t.db.webhookEndpoint.updateMany({ data: { url: `${receiver.base}/hook` } });
  workOrderId = (await acmeWorkOrder(t)).id;
  const target = new URL(t.databaseUrl);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  // The service under test: API and worker, its database reached through the proxy only.
  app = await startApp(
    {
      ...t.config,
      databaseUrl: proxy.url(t.databaseUrl),
      port: 0,
      roles: { api: true, worker: true },
      relayIntervalMs: 20,
      webhookAllowInsecureUrls: true,
    },
    { logger: pino({ level: process.env.TEST_LOG ?? "silent" }) },
  );
  base = `http://127.0.0.1:${app.port}`;
});
afterAll(async () => {
  await app?.close();
  await proxy?.close();
  await t?.close();
  await receiver?.close();
});

const get = (path: string) => fetch(`${base}${path}`, { headers: t.headers("acme-key") });
const post = (path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { ...t.headers("acme-key"), "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function statusOf(response: Promise<Response>) {
  const r = await response;
  return { status: r.status, headers: r.headers, body: await r.json() };
}

async function eventDelivered(text: string) {
  await t.db.$transaction((tx) =>
    writeEvent(tx, "workorder.status_update", context(t, workOrderId, { supplierFacilityId: null }), {
      ...confirmed(),
      changedBy: text,
    }),
  );
  await waitFor(() => receiver.receipts.some((r) => r.json.data.changedBy === text), 15_000, `the delivery of ${text}`);
}

describe("PostgreSQL unreachable", () => {
  it("answers 503 with the contract's error body, /readyz says so, and both roles recover by themselves", async () => {
    expect((await get("/v1/buyer/location/locations")).status).toBe(200);
    await eventDelivered("before the outage");

    proxy.down();
    const read = await statusOf(get("/v1/buyer/location/locations"));
    expect(read.status).toBe(503);
    expect(read.body).toEqual({
      message: expect.stringContaining("database"),
      type: "ServiceUnavailableException",
      status: "error",
      traceId: expect.any(String),
    });
    expect(read.headers.get("retry-after")).toBe("5");
    expect((await statusOf(post("/v1/buyer/asset/asset_types", { name: "During the outage" }))).status).toBe(503);
    const graphql = await statusOf(post("/graphql", { query: "{ me { email } }" }));
    expect(graphql.body.errors[0].extensions.code).toBe("ServiceUnavailableException");
    const ready = await statusOf(fetch(`${base}/readyz`));
    expect(ready).toMatchObject({ status: 503, body: { database: "down", redis: "ok" } });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // An event committed meanwhile (by an instance that can reach the database) waits for the worker.
    await t.db.$transaction((tx) =>
      writeEvent(tx, "workorder.status_update", context(t, workOrderId, { supplierFacilityId: null }), {
        ...confirmed(),
        changedBy: "during the outage",
      }),
    );
    await sleep(500);
    expect(receiver.receipts.some((r) => r.json.data.changedBy === "during the outage")).toBe(false);

    proxy.up();
    await waitFor(async () => (await get("/v1/buyer/location/locations")).status === 200, 15_000, "the API to recover");
    expect((await statusOf(fetch(`${base}/readyz`))).body).toEqual({ database: "ok", redis: "ok" });
    await waitFor(
      () => receiver.receipts.some((r) => r.json.data.changedBy === "during the outage"),
      15_000,
      "the worker to resume",
    );
    expect((await post("/v1/buyer/asset/asset_types", { name: "After the outage" })).status).toBe(200);
  });
});

describe("connections ended by PostgreSQL (pg_terminate_backend)", () => {
  it("end neither role: the next requests and deliveries go through on new connections", async () => {
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round++) {
        // Busy and idle connections alike, the API's and the worker's.
        const busy = Promise.all(
          Array.from({ length: 5 }, () =>
            get("/v1/buyer/location/locations").then(
              (r) => r.status,
              () => 0,
            ),
          ),
        );
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        expect(rows[0].n).toBeGreaterThan(0);
        // A request whose connection was cut answers 503 (it did nothing); none is a 500.
        for (const status of await busy) expect([200, 503]).toContain(status);
        // A connection still being opened when its backend was told to end fails at its first query: a
        // few more 503s are possible, never a 500, and the pool soon holds only live connections again.
        const statuses: number[] = [];
        await waitFor(
          async () => statuses.push((await get("/v1/buyer/location/locations")).status) && statuses.at(-1) === 200,
          5_000,
          "a 200",
        );
        expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
        await eventDelivered(`after termination ${round}`);
      }
    } finally {
      await admin.end();
    }
  });
});

describe("a plain-SQL transaction whose connection the server ends", () => {
  it("fails, and the process and the pool carry on", async () => {
    const db = createDb(t.databaseUrl, { max: 1 });
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    try {
      const running = sqlTransaction(db, async (sql) => {
        const { rows } = await sql.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        await admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
        await sleep(100); // the connection ends while idle in the transaction: an 'error' event on the client
        await sql.query("SELECT 1");
      });
      await expect(running).rejects.toThrow();
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.$disconnect();
    }
  });
});

describe("a checked-out connection the server ends between two queries", () => {
  it("is reported as a lost connection, not thrown as an uncaught exception", async () => {
    const lost: Error[] = [];
    const db = createDb(t.databaseUrl, { max: 1, onConnectionError: (error) => lost.push(error) });
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    try {
      // Checked out the way pool.query takes a connection (a callback), then held between statements:
      // pg-pool's idle listener is off, and nothing of the holder's listens.
      const { client, release } = await new Promise<{ client: pg.PoolClient; release: (e?: Error) => void }>(
        (resolve, reject) =>
          sqlPool(db).connect((err, client, release) => (err ? reject(err) : resolve({ client: client!, release }))),
      );
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
      await waitFor(async () => lost.length > 0, 5_000, "the lost connection reported");
      expect((lost[0] as { code?: string }).code).toBe("57P01");
      release(lost[0]);
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.$disconnect();
    }
  });
});
