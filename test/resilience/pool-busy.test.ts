// A full connection pool is overload, not an outage: a request that waits the pool's bounded time for a
// free connection is answered 503 "busy" with Retry-After 1, counted in /metrics, and the next request
// after the burst is served. "Cannot reach its database" stays for a database that is really unreachable.
// Once a request has committed a write, "busy" (which promises that nothing was done) is no longer true:
// its remaining reads wait for a connection however long the pool stays full.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import { createDb, type Db, isPoolBusy, markCommitted, sqlPool, trackingWrites } from "../../src/db.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let db: Db;
let app: App;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  db = createDb(t.databaseUrl, { max: 2, waitMs: 300 });
  app = await startApp({ ...t.config, port: 0 }, { db, logger: pino({ level: process.env.TEST_LOG ?? "silent" }) });
  base = `http://127.0.0.1:${app.port}`;
});
afterAll(async () => {
  await app?.close();
  await db?.$disconnect();
  await t?.close();
});

const locations = () => fetch(`${base}/v1/buyer/location/locations`, { headers: t.headers("acme-key") });
const busyCount = async () => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^db_pool_busy_timeouts_total (\d+)/m.exec(text)?.[1]);
};

describe("a full connection pool", () => {
  it("answers 503 busy with Retry-After while every connection is held, then serves again", async () => {
    expect((await locations()).status).toBe(200);
    const before = await busyCount();
    const pool = sqlPool(db);
    const held = await Promise.all([pool.connect(), pool.connect()]);
    try {
      const response = await locations();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      const body = (await response.json()) as { message: string; type: string; status: string };
      expect(body).toMatchObject({
        message: "the service is busy right now; retry in 1 s",
        type: "ServiceUnavailableException",
        status: "error",
      });
      const graphql = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { ...t.headers("acme-key"), "content-type": "application/json" },
        body: JSON.stringify({ query: "{ locations { data { id } } }" }),
      });
      expect(JSON.stringify(await graphql.json())).toContain("the service is busy right now");
    } finally {
      for (const client of held) client.release();
    }
    expect(await busyCount()).toBeGreaterThanOrEqual(before + 2);
    expect((await locations()).status).toBe(200);
  });

  it("waits out a full pool once the request has committed a write, and turns away a request that has not", async () => {
    const pool = sqlPool(db);
    const read = () => db.$queryRaw<{ one: number }[]>`SELECT 1 AS one`;
    // Every connection held, and freed well after the pool's 300 ms wait.
    const holdAll = async () => {
      const held = await Promise.all([pool.connect(), pool.connect()]);
      const freed = new Promise<void>((resolve) =>
        setTimeout(() => {
          for (const client of held) client.release();
          resolve();
        }, 1_000),
      );
      return { freed };
    };
    let { freed } = await holdAll();
    const before = await trackingWrites(read).catch((error: unknown) => error);
    expect(isPoolBusy(before)).toBe(true);
    await freed;
    ({ freed } = await holdAll());
    const after = await trackingWrites(async () => {
      markCommitted();
      return read();
    });
    expect(after).toEqual([{ one: 1 }]);
    await freed;
  });
});
