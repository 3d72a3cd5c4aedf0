// Redis through Sentinel (REDIS_SENTINELS, REDIS_MASTER_NAME): the API and the worker find the primary
// through three Sentinels, and when the primary is killed and the replica promoted they carry on with no
// restart. A subscription opened before the failover receives events written after it (the relay's
// publisher and the API's subscriber both follow the new primary), and the rate limit keeps holding: the
// window's entries were replicated, so a key over its limit stays over it on the new primary.
import pino from "pino";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { waitFor } from "../support/wait.ts";
import { MASTER_NAME, startSentinelGroup, type SentinelGroup } from "../support/redis-sentinel.ts";

let group: SentinelGroup;
let t: TestApp;
let app: App;
let base: string;
let client: Client;
const received: number[] = [];

beforeAll(async () => {
  group = await startSentinelGroup();
  t = await startTestApp();
  app = await startApp(
    {
      ...t.config,
      port: 0,
      roles: { api: true, worker: true },
      relayIntervalMs: 20,
      redisUrl: "redis://127.0.0.1:1", // never used: the Sentinels name the primary
      redisSentinels: group.sentinels,
      redisMasterName: MASTER_NAME,
    },
    { db: t.db, logger: pino({ level: process.env.TEST_LOG ?? "silent" }) },
  );
  base = `http://127.0.0.1:${app.port}`;
  client = createClient({
    url: `${base.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: t.headers("acme-key"),
    retryAttempts: 0,
  });
  await new Promise<void>((resolve, reject) => {
    client.subscribe(
      { query: 'subscription { workOrderEvents(eventTypes: ["workorder.create"]) { workOrderId } }' },
      {
        next: (m) =>
          received.push((m.data as { workOrderEvents: { workOrderId: number } }).workOrderEvents.workOrderId),
        error: reject,
        complete: () => undefined,
      },
    );
    client.on("connected", () => setTimeout(resolve, 200)); // the subscription is registered by then
  });
}, 60_000);
afterAll(async () => {
  await client?.dispose();
  await app?.close();
  await t?.close();
  await group?.close();
});

const create = async () => {
  const reply = await fetch(`${base}/v1/buyer/work_order/work_orders`, {
    method: "POST",
    headers: { ...t.headers("acme-key"), "content-type": "application/json" },
    body: JSON.stringify({
      title: "Through Sentinel",
      locationId: t.fixture.refs["store-1"],
      problemTypeId: t.fixture.refs.hvac,
      buyerFacilityId: t.fixture.refs["acme-hq"],
      buyerCompanyId: t.fixture.refs.acme,
      createdBy: "alice@acme.example",
    }),
  });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { data: { id: number } }).data.id;
};
/** Whether the subscriber has the event of work order `id`, waiting at most `withinMs`. */
const arrives = (id: number, withinMs = 15_000) =>
  waitFor(() => received.includes(id), withinMs, `the event of work order ${id}`).then(
    () => true,
    () => false,
  );
const limited = () => fetch(`${base}/v1/buyer/location/locations`, { headers: t.headers("acme-key-default-limit") });

describe("Redis through Sentinel", () => {
  it("finds the primary through the Sentinels, and keeps subscriptions and the rate limit across a failover", async () => {
    expect(await arrives(await create())).toBe(true);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await limited()).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);

    const before = await group.primaryPort();
    const killedAt = Date.now();
    const after = await group.killPrimary();
    const promotedAt = Date.now();
    expect(after).not.toBe(before);

    // Writes keep working (PostgreSQL), and events written after the switch reach the subscriber.
    let id = await create();
    const end = Date.now() + 20_000;
    // Live messages are not durable (webhooks are): one published while the API's subscriber
    // reconnects is missed, so a new work order is written every second until one arrives.
    while (!(await arrives(id, 1_000)) && Date.now() < end) id = await create();
    expect(received).toContain(id);
    const eventsAt = Date.now();

    // Once the limiter reaches the new primary again (not failing open: its headers count the window),
    // the key is still over its limit.
    const reply = await waitFor(
      async () => {
        const r = await limited();
        return r.headers.get("ratelimit-remaining") === "10" ? undefined : r;
      },
      20_000,
      "the rate limiter to count again",
    );
    expect(reply.status).toBe(429);
    console.log(
      `Redis failover: promoted ${promotedAt - killedAt} ms after the kill; events flowing ${eventsAt - killedAt} ms, ` +
        `the rate limiter back ${Date.now() - killedAt} ms after it`,
    );
  }, 90_000);
});
