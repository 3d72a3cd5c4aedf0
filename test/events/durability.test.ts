// Events written while no worker runs wait in the outbox and are delivered exactly once per endpoint
// when a worker starts; deliveries a dying worker had written, claimed, or written leased to itself are
// attempted by the next one; a worker's relay hands what it writes to its own dispatcher without a
// claim; and no Redis at all is needed to deliver (the schedule is in PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { relayOutbox } from "../../src/schema/webhooks/jobs/relay.ts";
import { claimDeliveries } from "../../src/schema/webhooks/jobs/delivery.ts";
import { sqlPool } from "../../src/db.ts";
import { startTestApp, type TestApp, silentLogger } from "../support/app.ts";
import { startReceiver } from "../support/receiver.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { acmeWorkOrder, confirmed, context, note } from "../support/work-order-events.ts";

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let workOrderId = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  // The API role only: nothing relays or delivers.
  t = await startTestApp({
    configure: (c) => {
      c.webhookAllowInsecureUrls = true;
      c.relayIntervalMs = 20;
    },
  });
  await t.db.webhookEndpoint.updateMany({ data: { url: `${receiver.base}/hook` } });
  workOrderId = (await acmeWorkOrder(t)).id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A worker-role process on the same database and Redis prefix (no API). */
const startWorker = (config: Partial<Config> = {}): Promise<App> =>
  startApp({ ...t.config, ...config, roles: { api: false, worker: true } }, { db: t.db, logger: silentLogger() });

/** 2 status updates (buyer + coolco-pdx endpoints) and 2 notes (buyer endpoint only: coolco's does not take notes). */
async function writeEvents(count: number) {
  for (let i = 0; i < count; i++) {
    await t.db.$transaction(async (tx) => {
      await writeEvent(tx, "workorder.status_update", context(t, workOrderId), confirmed(new Date(Date.now() + i)));
      await writeEvent(tx, "workorder.new_note", context(t, workOrderId), note(`note ${i}`));
    });
  }
  return count * 3; // deliveries
}

async function expectDeliveredOnce(webhookIds: string[]) {
  await waitFor(() => webhookIds.every((id) => receiver.delivered(id).length > 0), 15_000, "every delivery");
  await sleep(300); // nothing more arrives afterwards
  for (const id of webhookIds) expect(receiver.delivered(id), id).toHaveLength(1);
}

describe("outbox durability", () => {
  it("keeps events written without a worker and delivers each exactly once per endpoint when one starts", async () => {
    const expected = await writeEvents(4);
    await sleep(300);
    expect(await t.db.webhookDelivery.count()).toBe(0);
    expect(await t.db.outboxEvent.count({ where: { relayedAt: null } })).toBe(8);
    expect(receiver.receipts).toHaveLength(0);

    const worker = await startWorker();
    try {
      await waitFor(
        async () => (await t.db.webhookDelivery.count({ where: { status: "delivered" } })) === expected,
        15_000,
        "all delivered",
      );
      const deliveries = await t.db.webhookDelivery.findMany();
      expect(deliveries).toHaveLength(expected);
      expect(new Set(deliveries.map((d) => `${d.eventId}:${d.endpointId}`)).size).toBe(expected);
      await expectDeliveredOnce(deliveries.map((d) => d.webhookId));
      expect(receiver.receipts).toHaveLength(expected);
      expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
      // The webhook-id is the delivery's, stable: msg_<event>_<endpoint>_<n>.
      for (const d of deliveries) expect(d.webhookId).toBe(`msg_${d.eventId}_${d.endpointId}_${d.sequence}`);
    } finally {
      await worker.close();
    }
  });

  it("attempts the deliveries a dead worker had written, and those it held, once its lease runs out", async () => {
    receiver.receipts.length = 0;
    const before = new Set(
      (await t.db.webhookDelivery.findMany({ select: { webhookId: true } })).map((d) => d.webhookId),
    );
    const expected = await writeEvents(4);
    // The relay's round as a dying worker ran it: deliveries written and the outbox marked relayed…
    const step1 = await relayOutbox({ db: t.db, now: () => new Date() });
    expect(step1).toMatchObject({ events: 8, deliveries: expected });
    const pending = await t.db.webhookDelivery.findMany({
      where: { webhookId: { notIn: [...before] } },
      orderBy: { id: "asc" },
    });
    expect(pending).toHaveLength(expected);
    expect(pending.every((d) => d.status === "pending" && d.nextAttemptAt !== null && d.leaseUntil === null)).toBe(
      true,
    );
    // …and half of them claimed for attempts it never made (it died first), held for another second.
    const leaseEnds = new Date(Date.now() + 1_000);
    const held = await claimDeliveries(t.db, new Date(), Math.floor(expected / 2), leaseEnds);
    expect(held).toHaveLength(Math.floor(expected / 2));

    const worker = await startWorker();
    try {
      await expectDeliveredOnce(pending.map((d) => d.webhookId));
      expect(receiver.receipts).toHaveLength(expected);
      // The held ones only once their lease had run out.
      const heldIds = new Set(held.map((d) => d.webhookId));
      const heldReceipts = receiver.receipts.filter((r) => heldIds.has(r.headers["webhook-id"] as string));
      expect(heldReceipts).toHaveLength(held.length);
      expect(heldReceipts.every((r) => r.at >= leaseEnds.getTime())).toBe(true);
      const after = await t.db.webhookDelivery.findMany({ where: { id: { in: pending.map((d) => d.id) } } });
      expect(
        after.every(
          (d) => d.status === "delivered" && d.attempts === 1 && d.nextAttemptAt === null && d.leaseUntil === null,
        ),
      ).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it("attempts the deliveries a dying worker's relay wrote leased to itself once their lease runs out", async () => {
    receiver.receipts.length = 0;
    const before = await t.db.webhookDelivery.count();
    const expected = await writeEvents(4);
    const leaseEnds = new Date(Date.now() + 1_000);
    // Its dispatcher had slots for half of them; it died before the POSTs.
    const round = await relayOutbox({ db: t.db, now: () => new Date() }, 200, {
      slots: (wanted) => Math.floor(wanted / 2),
      leaseUntil: () => leaseEnds,
    });
    expect(round.deliveries).toBe(expected);
    expect(round.held).toHaveLength(Math.floor(expected / 2));
    const rows = await t.db.webhookDelivery.findMany({ where: { id: { in: round.held.map((d) => d.id) } } });
    expect(rows.every((d) => d.leaseUntil?.getTime() === leaseEnds.getTime() && d.attempts === 0)).toBe(true);
    // What it handed over is what a claim of those rows would have read.
    const endpoint = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: rows[0].endpointId } });
    const first = round.held.find((d) => d.id === rows[0].id)!;
    expect(first).toMatchObject({ webhookId: rows[0].webhookId, body: rows[0].body, url: endpoint.url });
    expect(first.secret).toBe(endpoint.secret);
    expect(first.eventAt.getTime()).toBe(rows[0].eventAt.getTime());

    const worker = await startWorker();
    try {
      const all = await t.db.webhookDelivery.findMany({ skip: before, orderBy: { id: "asc" } });
      expect(all).toHaveLength(expected);
      await expectDeliveredOnce(all.map((d) => d.webhookId));
      const heldIds = new Set(round.held.map((d) => d.webhookId));
      const heldReceipts = receiver.receipts.filter((r) => heldIds.has(r.headers["webhook-id"] as string));
      expect(heldReceipts).toHaveLength(round.held.length);
      expect(heldReceipts.every((r) => r.at >= leaseEnds.getTime())).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it("hands the deliveries its relay writes to its own dispatcher: no claim takes them", async () => {
    receiver.receipts.length = 0;
    // Every claim this process sends, and how many rows it took.
    const pool = sqlPool(t.db);
    const query = pool.query.bind(pool);
    const claimed: number[] = [];
    pool.query = (async (...args: Parameters<typeof query>) => {
      const result = await (query as (...a: unknown[]) => Promise<{ rows: unknown[] }>)(...args);
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (text?.includes('UPDATE "WebhookDelivery" t SET "leaseUntil"')) claimed.push(result.rows.length);
      return result;
    }) as typeof pool.query;
    const worker = await startWorker();
    try {
      await waitFor(() => claimed.length > 0, 5_000, "the dispatcher's first claim");
      const before = await t.db.webhookDelivery.count();
      const expected = await writeEvents(3);
      await waitFor(() => receiver.receipts.length >= expected, 15_000, "the deliveries");
      const written = await t.db.webhookDelivery.findMany({ skip: before, orderBy: { id: "asc" } });
      await expectDeliveredOnce(written.map((d) => d.webhookId));
      expect(claimed.every((n) => n === 0)).toBe(true);
    } finally {
      await worker.close();
      pool.query = query as typeof pool.query;
    }
  });

  it("delivers without any Redis: the schedule is in PostgreSQL", async () => {
    receiver.receipts.length = 0;
    const expected = await writeEvents(2);
    const worker = await startWorker({ redisUrl: "redis://127.0.0.1:1" }); // nothing listens there
    try {
      await waitFor(() => receiver.receipts.length >= expected, 15_000, "the deliveries");
      await sleep(200);
      expect(receiver.receipts).toHaveLength(expected);
    } finally {
      await worker.close();
    }
  });
});
