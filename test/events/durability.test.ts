// Events written while no worker runs wait in the outbox and are delivered exactly once per endpoint
// when a worker starts; a worker that stops between the relay's two steps (deliveries written, not yet
// handed to BullMQ, or handed over without recording it) loses and duplicates nothing.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { relayOutbox } from "../../src/schema/webhooks/jobs/relay.ts";
import { webhookQueue } from "../../src/schema/webhooks/jobs/start.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder, confirmed, context, note, silentLogger, sleep, startReceiver, waitFor } from "./helpers.ts";

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let workOrderId = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  // The API role only: nothing relays or delivers.
  t = await startTestApp({ configure: (c) => { c.webhookAllowInsecureUrls = true; c.relayIntervalMs = 20; } });
  await t.db.webhookEndpoint.updateMany({ data: { url: `${receiver.base}/hook` } });
  workOrderId = (await acmeWorkOrder(t)).id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A worker-role process on the same database and Redis prefix (no API). */
const startWorker = (): Promise<App> => startApp({ ...t.config, roles: { api: false, worker: true } }, { db: t.db, logger: silentLogger() });

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
      await waitFor(async () => (await t.db.webhookDelivery.count({ where: { status: "delivered" } })) === expected, 15_000, "all delivered");
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

  it("recovers from a worker that stopped between writing deliveries and handing them over", async () => {
    receiver.receipts.length = 0;
    const before = new Set((await t.db.webhookDelivery.findMany({ select: { webhookId: true } })).map((d) => d.webhookId));
    const expected = await writeEvents(4);
    const redis = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const queue = webhookQueue(redis, t.config.redisPrefix);
    try {
      // The relay's step 1 as a dying worker ran it: deliveries written and the outbox marked relayed…
      const step1 = await relayOutbox({ db: t.db, now: () => new Date() });
      expect(step1.events).toBe(8);
      const pending = await t.db.webhookDelivery.findMany({ where: { webhookId: { notIn: [...before] } }, orderBy: { id: "asc" } });
      expect(pending).toHaveLength(expected);
      expect(pending.every((d) => d.status === "pending" && d.enqueuedAt === null)).toBe(true);
      // …and half of them handed to BullMQ without recording it (the crash came before the update).
      const half = pending.slice(0, Math.floor(pending.length / 2));
      await queue.addBulk(half.map((d) => ({ name: "deliver", data: { webhookId: d.webhookId }, opts: { jobId: d.webhookId } })));
      await sleep(200);
      expect(receiver.receipts).toHaveLength(0);

      const worker = await startWorker();
      try {
        await expectDeliveredOnce(pending.map((d) => d.webhookId));
        expect(receiver.receipts).toHaveLength(expected);
        const after = await t.db.webhookDelivery.findMany({ where: { id: { in: pending.map((d) => d.id) } } });
        expect(after.every((d) => d.status === "delivered" && d.attempts === 1 && d.enqueuedAt !== null)).toBe(true);
      } finally {
        await worker.close();
      }
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });
});
