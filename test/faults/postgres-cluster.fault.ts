// PostgreSQL past one server (docs/deployment.md): a primary and a streaming hot standby on this machine
// (test/support/postgres-cluster.ts). The API is given both hosts in DATABASE_URL and the standby as its
// read replica (DATABASE_READ_URL). Reads of lists and counts come from the replica while it keeps up
// (a write is briefly absent from them while replay is paused), and from the primary once its lag passes
// the bound or it stops answering; when the primary is stopped and the standby promoted, writes resume
// on it with no restart, every write answered before the switch is there, and nothing answers 500.
import pino from "pino";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startApp, type App } from "../../src/app.ts";
import { createDb } from "../../src/db.ts";
import { applyFixture, type ApplyResult } from "../../src/operator/apply.ts";
import { BASE_FIXTURE } from "../support/app.ts";
import { startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.ts";
import { sleep, waitFor } from "../support/wait.ts";

const MAX_LAG_MS = 2_000;

let cluster: PostgresCluster;
let app: App;
let base: string;
let fixture: ApplyResult;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const db = createDb(cluster.url(cluster.primaryPort), { max: 2 });
  fixture = await applyFixture(db, BASE_FIXTURE, { allowInsecureWebhooks: true });
  await db.$disconnect();
  app = await startApp(
    loadConfig({
      ...process.env,
      DATABASE_URL: cluster.databaseUrl,
      DATABASE_READ_URL: cluster.url(cluster.standbyPort),
      DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      PORT: "0",
      ROLES: "api",
      REDIS_PREFIX: `wotest:${crypto.randomBytes(4).toString("hex")}`,
      NODE_ENV: "test",
    }),
    { logger: pino({ level: process.env.TEST_LOG ?? "silent" }) },
  );
  base = `http://127.0.0.1:${app.port}`;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await cluster?.close();
});

const headers = () => {
  const key = fixture.keys["acme-key"];
  return { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey!, "content-type": "application/json" };
};

/** Every answer of the service in this file, to check that none was a 500. */
const answers: { status: number; retryAfter: string | null }[] = [];
async function call(method: string, path: string, body?: unknown) {
  const reply = await fetch(`${base}${path}`, {
    method,
    headers: headers(),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  answers.push({ status: reply.status, retryAfter: reply.headers.get("retry-after") });
  return { status: reply.status, body: (await reply.json().catch(() => undefined)) as any };
}

const create = () =>
  call("POST", "/v1/buyer/work_order/work_orders", {
    title: "Replicated",
    locationId: fixture.refs["store-1"],
    problemTypeId: fixture.refs.hvac,
    buyerFacilityId: fixture.refs["acme-hq"],
    buyerCompanyId: fixture.refs.acme,
    createdBy: "alice@acme.example",
  });
/** The ids of the newest work orders, as the list answers them. */
const listed = async (): Promise<number[] | undefined> => {
  const reply = await call("GET", "/v1/buyer/work_order/work_orders?limit=100");
  return reply.status === 200 ? reply.body.data.map((w: { id: number }) => w.id) : undefined;
};

async function metric(name: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}
const replicaUsable = () => metric(`db_replica_usable{replica="127.0.0.1:${cluster.standbyPort}"}`);

describe("PostgreSQL primary, hot standby and failover", () => {
  it("reads lists from the replica, and from the primary once its lag passes the bound", async () => {
    expect(await replicaUsable()).toBe(1);
    const seen = (await create()).body.data.id as number;
    await waitFor(async () => (await listed())?.includes(seen), 10_000, "the replica to show the first write");
    const before = (await metric('db_read_requests_total{target="replica"}')) ?? 0;
    await cluster.pauseReplay();
    const made = await create();
    expect(made.status).toBe(200);
    const id = made.body.data.id as number;
    // The single read is the primary's: a client finds what it just wrote.
    expect((await call("GET", `/v1/buyer/work_order/work_orders/${id}`)).status).toBe(200);
    // The list is the replica's, which has not replayed the write.
    expect(await listed()).not.toContain(id);
    const graph = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ query: "{ workOrders(limit: 100) { data { id } } }" }),
    });
    const graphIds = ((await graph.json()) as any).data.workOrders.data.map((w: { id: number }) => w.id);
    expect(graphIds).toContain(seen);
    expect(graphIds).not.toContain(id);
    expect(await metric('db_read_requests_total{target="replica"}')).toBeGreaterThan(before);

    // Past the bound the replica is skipped: the list shows the write, from the primary.
    const pausedAt = Date.now();
    await waitFor(async () => (await listed())?.includes(id), 10_000, "the list to come from the primary");
    const fellBack = Date.now() - pausedAt;
    expect(await replicaUsable()).toBe(0);
    expect(await metric("db_replica_lag_seconds")).toBeGreaterThan(MAX_LAG_MS / 1000);

    await cluster.resumeReplay();
    const resumedAt = Date.now();
    await waitFor(async () => (await replicaUsable()) === 1, 10_000, "the replica back in service");
    expect(await metric("db_replica_lag_seconds")).toBeLessThan(MAX_LAG_MS / 1000);
    console.log(
      `replica lag: skipped ${fellBack} ms after the write it could not show (bound ${MAX_LAG_MS} ms); ` +
        `back in service ${Date.now() - resumedAt} ms after replay resumed`,
    );
  });

  it("falls back to the primary while the replica is down, with no 500", async () => {
    const id = (await create()).body.data.id as number;
    await waitFor(async () => (await listed())?.includes(id), 10_000, "the replica to show the write");
    const stoppedAt = Date.now();
    const answered = answers.length;
    cluster.stop(cluster.standbyPort);
    await waitFor(async () => (await listed())?.includes(id), 15_000, "lists answered without the replica");
    const answeredAt = Date.now();
    expect(await replicaUsable()).toBe(0);
    await cluster.start(cluster.standbyPort);
    await waitFor(async () => (await replicaUsable()) === 1, 20_000, "the restarted replica back in service");
    const unavailable = answers.slice(answered).filter((a) => a.status === 503).length;
    console.log(
      `replica down: lists answered from the primary ${answeredAt - stoppedAt} ms after the stop (${unavailable} answered 503 before)`,
    );
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
  }, 60_000);

  it("moves writes to the promoted standby with no restart: 503 with Retry-After meanwhile, nothing lost", async () => {
    const written: number[] = [];
    for (let i = 0; i < 5; i++) written.push((await create()).body.data.id);

    const statuses: number[] = [];
    const stoppedAt = Date.now();
    cluster.stop(cluster.primaryPort);
    // Lists go on from the caught-up replica while there is no primary.
    expect(await listed()).toEqual(expect.arrayContaining(written));
    // Writes keep coming while the standby is promoted (a second later, as an operator or a tool would).
    const writing = (async () => {
      for (;;) {
        const reply = await create();
        statuses.push(reply.status);
        if (reply.status === 200) return reply.body.data.id as number;
        await sleep(100); // a client honouring Retry-After would wait longer; this measures the switch closely
      }
    })();
    await sleep(1_000);
    await cluster.promoteStandby();
    const promotedAt = Date.now();
    const first = await writing;
    const resumedAt = Date.now();
    written.push(first);

    // Every write answered before the switch is on the new primary (synchronous replication).
    const ids = (await cluster.query<{ id: number }>(cluster.standbyPort, 'SELECT id FROM "WorkOrder"')).map(
      (r) => r.id,
    );
    for (const id of written) expect(ids).toContain(id);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null)).toBe(true);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    console.log(
      `failover: writes resumed ${resumedAt - promotedAt} ms after the promotion ` +
        `(${resumedAt - stoppedAt} ms after the primary stopped); ${statuses.filter((s) => s === 503).length} writes answered 503 meanwhile`,
    );
  }, 90_000);
});
