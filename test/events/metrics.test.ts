// Prometheus metrics of the background work, scraped from GET /metrics as Prometheus would:
//   - state gauges (outbox lag, webhook and mail queues, the planned maintenance backlog and its BullMQ
//     queue), read from PostgreSQL and Redis at scrape time by an API instance that runs no worker;
//   - the worker's counters (webhook deliveries by outcome, their latency, mail) in a process running
//     both roles (one registry), and in a worker-only process on its own METRICS_PORT.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type App } from "../../src/app.ts";
import { writeEvent, type WorkOrderEventContext } from "../../src/schema/work-orders/events.ts";
import { PM_QUEUE } from "../../src/schema/planned-maintenance/public.ts";
import { indexSearchBatch } from "../../src/schema/work-orders/jobs.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { startReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";
import { acmeWorkOrder, context } from "../support/work-order-events.ts";

/** One scrape: `name{labels}` → value, exactly as the exposition format writes them. */
async function scrape(base: string): Promise<Map<string, number>> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

const value = (samples: Map<string, number>, series: string) => samples.get(series);
/** A counter's or histogram count's sample, 0 while the series has not appeared. */
const count = (samples: Map<string, number>, series: string) => samples.get(series) ?? 0;

const DELIVERED = 'webhook_deliveries_total{outcome="delivered"}';
const RETRY = 'webhook_deliveries_total{outcome="retry"}';
const EXPIRED = 'webhook_deliveries_total{outcome="expired"}';

const indexAll = async (t: TestApp) => {
  while ((await indexSearchBatch(t.db, 1_000)) > 0);
};

const aWorkOrder = (t: TestApp) =>
  acmeWorkOrder(t, { title: "Metrics unit", status: "PendingConfirmationByServiceProvider" });

/** Commits one status change's outbox event; returns its id. */
async function commitEvent(
  t: TestApp,
  workOrderId: number,
  overrides: Partial<WorkOrderEventContext> = {},
): Promise<bigint> {
  return t.db.$transaction(async (tx) => {
    await writeEvent(tx, "workorder.status_update", context(t, workOrderId, overrides), {
      oldStatus: "PendingConfirmationByServiceProvider",
      newStatus: "ConfirmedByServiceProvider",
      changedBy: "Bob Tech",
      changedAt: new Date().toISOString(),
      action: "confirm",
    });
    return (await tx.outboxEvent.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
  });
}

describe("state gauges, read at scrape time by an API instance without a worker", () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t?.close());

  it("outbox lag: the age of the oldest unrelayed event, and 0 when none waits", async () => {
    await t.db.outboxEvent.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    let m = await scrape(t.url);
    expect(value(m, "outbox_oldest_unrelayed_age_seconds")).toBe(0);
    expect(value(m, "outbox_unrelayed_events")).toBe(0);

    const wo = await aWorkOrder(t);
    const old = await commitEvent(t, wo.id);
    await t.db.outboxEvent.update({ where: { id: old }, data: { createdAt: new Date(Date.now() - 120_000) } });
    await commitEvent(t, wo.id);
    m = await scrape(t.url);
    expect(value(m, "outbox_oldest_unrelayed_age_seconds")).toBeGreaterThanOrEqual(120);
    expect(value(m, "outbox_oldest_unrelayed_age_seconds")).toBeLessThan(3600);
    expect(value(m, "outbox_unrelayed_events")).toBe(2);

    // The old one relayed: the lag is the younger one's.
    await t.db.outboxEvent.update({ where: { id: old }, data: { relayedAt: new Date() } });
    m = await scrape(t.url);
    expect(value(m, "outbox_oldest_unrelayed_age_seconds")).toBeLessThan(120);
    expect(value(m, "outbox_unrelayed_events")).toBe(1);

    await t.db.outboxEvent.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    m = await scrape(t.url);
    expect(value(m, "outbox_oldest_unrelayed_age_seconds")).toBe(0);
    expect(value(m, "outbox_unrelayed_events")).toBe(0);
  });

  it("webhook deliveries pending: due, held by a worker, waiting for a retry; finished ones are not counted", async () => {
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const now = Date.now();
    const row = (n: number, data: object) => ({
      eventId: 700_000n + BigInt(n),
      endpointId: endpoint.id,
      webhookId: `msg_metrics_${n}`,
      eventType: "workorder.status_update",
      body: "{}",
      eventAt: new Date(now),
      ...data,
    });
    await t.db.webhookDelivery.createMany({
      data: [
        row(1, { nextAttemptAt: new Date(now - 30_000) }), // due for 30 s
        row(2, { nextAttemptAt: new Date(now - 5_000) }), // due
        row(3, { nextAttemptAt: new Date(now - 1_000), leaseUntil: new Date(now + 60_000) }), // a worker holds it
        row(4, { nextAttemptAt: new Date(now + 60_000), attempts: 1 }), // failed once, retry in a minute
        row(5, { status: "delivered", nextAttemptAt: null, deliveredAt: new Date(now) }),
        row(6, { status: "expired", nextAttemptAt: null }),
      ],
    });
    const m = await scrape(t.url);
    expect(value(m, 'webhook_deliveries_pending{state="due"}')).toBe(2);
    expect(value(m, 'webhook_deliveries_pending{state="in_flight"}')).toBe(1);
    expect(value(m, 'webhook_deliveries_pending{state="retry_wait"}')).toBe(1);
    expect(value(m, "webhook_delivery_oldest_due_age_seconds")).toBeGreaterThanOrEqual(30);
    await t.db.webhookDelivery.deleteMany({ where: { webhookId: { startsWith: "msg_metrics_" } } });
    const after = await scrape(t.url);
    expect(value(after, 'webhook_deliveries_pending{state="due"}')).toBe(0);
    expect(value(after, "webhook_delivery_oldest_due_age_seconds")).toBe(0);
  });

  it("mail pending: due, held, waiting for a retry; sent and failed mail are not counted", async () => {
    const now = Date.now();
    const message = { to: "x@example.com", subject: "s", text: "t" };
    await t.db.mailOutbox.createMany({
      data: [
        { jobId: "metrics-1", message, nextAttemptAt: new Date(now - 10_000) },
        { jobId: "metrics-2", message, nextAttemptAt: new Date(now - 1_000), leaseUntil: new Date(now + 60_000) },
        { jobId: "metrics-3", message, nextAttemptAt: new Date(now + 60_000), attempts: 1 },
        { jobId: "metrics-4", message, nextAttemptAt: new Date(now + 60_000), attempts: 2 },
        { jobId: "metrics-5", message, status: "sent", nextAttemptAt: null, sentAt: new Date(now) },
        { jobId: "metrics-6", message, status: "failed", nextAttemptAt: null, attempts: 5 },
      ],
    });
    const m = await scrape(t.url);
    expect(value(m, 'mail_outbox_pending{state="due"}')).toBe(1);
    expect(value(m, 'mail_outbox_pending{state="in_flight"}')).toBe(1);
    expect(value(m, 'mail_outbox_pending{state="retry_wait"}')).toBe(2);
    expect(value(m, "mail_oldest_due_age_seconds")).toBeGreaterThanOrEqual(10);
    await t.db.mailOutbox.deleteMany({ where: { jobId: { startsWith: "metrics-" } } });
    expect(value(await scrape(t.url), 'mail_outbox_pending{state="retry_wait"}')).toBe(0);
  });

  it("planned maintenance: due schedules of built-in companies, and the generator's BullMQ queue", async () => {
    const refs = t.fixture.refs;
    await t.db.plannedMaintenanceSchedule.updateMany({ data: { nextRunAt: null } });
    const schedule = (title: string, nextRunAt: Date, isActive = true) => ({
      buyerCompanyId: refs.acme,
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      title,
      cadence: "P1M",
      anchorAt: nextRunAt,
      nextRunAt,
      isActive,
    });
    await t.db.plannedMaintenanceSchedule.createMany({
      data: [
        schedule("due 1", new Date(Date.now() - 3_600_000)),
        schedule("due 2", new Date(Date.now() - 60_000)),
        schedule("later", new Date(Date.now() + 3_600_000)),
        schedule("inactive", new Date(Date.now() - 60_000), false),
      ],
    });
    // Acme schedules externally: nothing for the built-in generator.
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { pmScheduling: "external" } });
    expect(value(await scrape(t.url), "pm_schedules_due")).toBe(0);
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { pmScheduling: "built_in" } });
    expect(value(await scrape(t.url), "pm_schedules_due")).toBe(2);

    let m = await scrape(t.url);
    expect(value(m, 'pm_generator_queue_jobs{state="waiting"}')).toBe(0);
    const connection = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(PM_QUEUE, { connection, prefix: t.config.redisPrefix });
    try {
      await queue.add("round", {});
      await queue.add("round", {}, { delay: 3_600_000 });
      m = await scrape(t.url);
      expect(value(m, 'pm_generator_queue_jobs{state="waiting"}')).toBe(1);
      expect(value(m, 'pm_generator_queue_jobs{state="delayed"}')).toBe(1);
      expect(value(m, 'pm_generator_queue_jobs{state="active"}')).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it("search index: work orders changed since the indexer ran, and the oldest change's age", async () => {
    await indexAll(t);
    let m = await scrape(t.url);
    expect(value(m, "search_index_pending_work_orders")).toBe(0);
    expect(value(m, "search_index_oldest_pending_age_seconds")).toBe(0);
    await aWorkOrder(t);
    await aWorkOrder(t);
    m = await scrape(t.url);
    expect(value(m, "search_index_pending_work_orders")).toBe(2);
    expect(value(m, "search_index_oldest_pending_age_seconds")).toBeGreaterThan(0);
    await indexAll(t);
    expect(value(await scrape(t.url), "search_index_pending_work_orders")).toBe(0);
  });

  it("an API-only process has no worker counters with samples", async () => {
    const m = await scrape(t.url);
    expect(m.has(DELIVERED)).toBe(false);
    expect(m.has('mail_messages_total{outcome="sent"}')).toBe(false);
  });
});

describe("worker counters in a process running both roles", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let workOrderId = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtp();
    t = await startTestApp({
      configure: (c) => {
        c.roles.worker = true;
        c.webhookAllowInsecureUrls = true;
        c.webhookRetryScale = 1; // a failed attempt's retry is 5 s away: the tests see exactly one attempt
        c.relayIntervalMs = 20;
        c.smtpUrl = smtp.url;
        c.mailRetryDelayMs = 60_000; // a failed mail waits a minute
      },
    });
    await t.db.webhookEndpoint.updateMany({ data: { url: `${receiver.base}/hook` } });
    workOrderId = (await aWorkOrder(t)).id;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await smtp?.close();
  });

  it("counts every delivered webhook exactly once, with its POST duration and its lag from the change", async () => {
    const before = await scrape(t.url);
    expect(value(before, DELIVERED)).toBe(0); // present from the start (rate() sees the first one)
    const events = [
      await commitEvent(t, workOrderId),
      await commitEvent(t, workOrderId),
      await commitEvent(t, workOrderId, { supplierFacilityId: null }),
    ];
    const done = await waitFor(
      async () => {
        const rows = await t.db.webhookDelivery.findMany({ where: { eventId: { in: events } } });
        // All five, not the first ones relayed: the relay may fan the three events out in separate rounds.
        return rows.length >= 5 && rows.every((r) => r.status === "delivered") ? rows : null;
      },
      10_000,
      "the deliveries",
    );
    expect(done).toHaveLength(5); // buyer and supplier for two, buyer only for the third
    expect(receiver.receipts.filter((r) => done.some((d) => d.webhookId === r.headers["webhook-id"]))).toHaveLength(5);
    const after = await waitFor(
      async () => {
        const m = await scrape(t.url);
        return count(m, DELIVERED) - count(before, DELIVERED) >= 5 ? m : null;
      },
      5_000,
      "the counter",
    );
    const delta = (series: string) => count(after, series) - count(before, series);
    expect(delta(DELIVERED)).toBe(5);
    expect(delta(RETRY)).toBe(0);
    expect(delta(EXPIRED)).toBe(0);
    expect(delta('webhook_delivery_duration_seconds_count{status_class="2xx"}')).toBe(5);
    expect(delta("webhook_delivery_lag_seconds_count")).toBe(5);
    expect(delta("webhook_delivery_lag_seconds_sum")).toBeGreaterThan(0);
    expect(value(after, 'webhook_delivery_lag_seconds_bucket{le="+Inf"}')).toBe(
      count(after, "webhook_delivery_lag_seconds_count"),
    );
    // The state gauges are served by the same registry.
    expect(value(after, "outbox_oldest_unrelayed_age_seconds")).toBe(0);
  });

  it("says at start when PostgreSQL's autovacuum is off, and only then", async () => {
    const started = t.logs.findIndex((l) => l.msg === "workers started");
    expect(started).toBeGreaterThanOrEqual(0);
    const [{ autovacuum }] = await t.db.$queryRaw<{ autovacuum: string }[]>`SHOW autovacuum`;
    const warned = t.logs.filter((l) => String(l.msg).startsWith("PostgreSQL's autovacuum is off"));
    expect(warned).toHaveLength(autovacuum === "on" ? 0 : 1);
  });

  it("counts a failed attempt as retry, and the delivery waits for it in retry_wait", async () => {
    const before = await scrape(t.url);
    receiver.state.failing = true;
    try {
      const event = await commitEvent(t, workOrderId, { supplierFacilityId: null });
      const delivery = await waitFor(
        () => t.db.webhookDelivery.findFirst({ where: { eventId: event, attempts: 1 } }),
        10_000,
        "the failed attempt",
      );
      expect(delivery.status).toBe("pending");
      const after = await waitFor(
        async () => {
          const m = await scrape(t.url);
          return count(m, RETRY) - count(before, RETRY) >= 1 ? m : null;
        },
        5_000,
        "the counter",
      );
      const delta = (series: string) => count(after, series) - count(before, series);
      expect(delta(RETRY)).toBe(1);
      expect(delta(DELIVERED)).toBe(0);
      expect(delta('webhook_delivery_duration_seconds_count{status_class="5xx"}')).toBe(1);
      expect(delta("webhook_delivery_lag_seconds_count")).toBe(0);
      expect(value(after, 'webhook_deliveries_pending{state="retry_wait"}')).toBe(1);
      // This file's worker must not retry it during the next tests.
      await t.db.webhookDelivery.update({
        where: { id: delivery.id },
        data: { status: "expired", nextAttemptAt: null },
      });
    } finally {
      receiver.state.failing = false;
    }
  });

  it("counts a delivery given up under the three-hour rule as expired, once", async () => {
    const before = await scrape(t.url);
    // Due now, for a change three hours and a second ago: the claim or the sweep expires it unsent.
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const delivery = await t.db.webhookDelivery.create({
      data: {
        eventId: 800_001n,
        endpointId: endpoint.id,
        webhookId: "msg_metrics_late",
        eventType: "workorder.status_update",
        body: "{}",
        eventAt: new Date(Date.now() - 3 * 3_600_000 - 1_000),
        nextAttemptAt: new Date(),
      },
    });
    await waitFor(
      () => t.db.webhookDelivery.findFirst({ where: { id: delivery.id, status: "expired" } }),
      10_000,
      "the expiry",
    );
    const after = await waitFor(
      async () => {
        const m = await scrape(t.url);
        return count(m, EXPIRED) - count(before, EXPIRED) >= 1 ? m : null;
      },
      10_000,
      "the counter",
    );
    // The sweep runs every 5 s: wait for it to have seen the row too, then count once more.
    await new Promise((r) => setTimeout(r, 5_500));
    const settled = await scrape(t.url);
    expect(count(settled, EXPIRED) - count(before, EXPIRED)).toBe(1);
    expect(count(after, RETRY) - count(before, RETRY)).toBe(0);
    expect(count(after, DELIVERED) - count(before, DELIVERED)).toBe(0);
    expect(receiver.receipts.some((r) => r.headers["webhook-id"] === "msg_metrics_late")).toBe(false);
  });

  it("counts mail sent, and a failed send as retry", async () => {
    const before = await scrape(t.url);
    expect(value(before, 'mail_messages_total{outcome="sent"}')).toBe(0);
    await t.db.mailOutbox.createMany({
      data: [1, 2].map((n) => ({
        jobId: `metrics-sent-${n}`,
        message: { to: `m${n}@example.com`, subject: "Hello", text: "Hi" },
      })),
    });
    await smtp.waitFor((m) => m.rcptTo.includes("m1@example.com"));
    await smtp.waitFor((m) => m.rcptTo.includes("m2@example.com"));
    let after = await waitFor(
      async () => {
        const m = await scrape(t.url);
        return count(m, 'mail_messages_total{outcome="sent"}') - count(before, 'mail_messages_total{outcome="sent"}') >=
          2
          ? m
          : null;
      },
      5_000,
      "the counter",
    );
    expect(
      count(after, 'mail_messages_total{outcome="sent"}') - count(before, 'mail_messages_total{outcome="sent"}'),
    ).toBe(2);
    expect(
      count(after, 'mail_messages_total{outcome="retry"}') - count(before, 'mail_messages_total{outcome="retry"}'),
    ).toBe(0);

    smtp.failNext(1);
    await t.db.mailOutbox.create({
      data: { jobId: "metrics-retry", message: { to: "r@example.com", subject: "Hello", text: "Hi" } },
    });
    await waitFor(
      () => t.db.mailOutbox.findFirst({ where: { jobId: "metrics-retry", attempts: 1 } }),
      10_000,
      "the failed send",
    );
    after = await waitFor(
      async () => {
        const m = await scrape(t.url);
        return count(m, 'mail_messages_total{outcome="retry"}') -
          count(before, 'mail_messages_total{outcome="retry"}') >=
          1
          ? m
          : null;
      },
      5_000,
      "the counter",
    );
    expect(
      count(after, 'mail_messages_total{outcome="retry"}') - count(before, 'mail_messages_total{outcome="retry"}'),
    ).toBe(1);
    expect(
      count(after, 'mail_messages_total{outcome="sent"}') - count(before, 'mail_messages_total{outcome="sent"}'),
    ).toBe(2);
    expect(value(after, 'mail_outbox_pending{state="retry_wait"}')).toBe(1);
  });
});

describe("a worker-only process (ROLES=worker) on METRICS_PORT", () => {
  let t: TestApp;
  let worker: App;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(); // the API, without a worker
    await t.db.webhookEndpoint.updateMany({ data: { url: `${receiver.base}/hook` } });
    worker = await startApp(
      {
        ...t.config,
        roles: { api: false, worker: true },
        metricsPort: 0,
        webhookAllowInsecureUrls: true,
        relayIntervalMs: 20,
      },
      { db: t.db, logger: pino({ level: "silent" }) },
    );
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
  });

  it("serves its own counters and the state gauges; the API instance reports the same state", async () => {
    expect(worker.port).toBeUndefined();
    expect(worker.metricsPort).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${worker.metricsPort}`;
    const before = await scrape(base);
    expect(value(before, DELIVERED)).toBe(0);
    const event = await commitEvent(t, (await aWorkOrder(t)).id);
    const rows = await waitFor(
      async () => {
        const found = await t.db.webhookDelivery.findMany({ where: { eventId: event } });
        return found.length > 0 && found.every((r) => r.status === "delivered") ? found : null;
      },
      10_000,
      "the deliveries",
    );
    const after = await waitFor(
      async () => {
        const m = await scrape(base);
        return count(m, DELIVERED) >= rows.length ? m : null;
      },
      5_000,
      "the counter",
    );
    expect(count(after, DELIVERED)).toBe(rows.length);
    expect(value(after, "outbox_unrelayed_events")).toBe(0);
    // The API process delivered nothing itself; it reports the shared state only.
    const api = await scrape(t.url);
    expect(api.has(DELIVERED)).toBe(false);
    expect(value(api, "outbox_unrelayed_events")).toBe(0);
    expect(value(api, 'webhook_deliveries_pending{state="due"}')).toBe(0);
    // Only /metrics (and /healthz) on that port.
    expect((await fetch(`${base}/v1/buyer/ping`)).status).toBe(404);
  });
});
