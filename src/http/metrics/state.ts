// State gauges, read when Prometheus scrapes (prom-client collect()): the outbox's lag, the webhook
// and mail queues in PostgreSQL, the planned maintenance generator's backlog (PostgreSQL) and its
// BullMQ queue (Redis). They describe shared state, so every instance that serves /metrics reports the
// same values; aggregate them with max(), not sum(). One SQL statement per scrape, over the partial
// indexes of the "not yet done" rows (its cost grows with the backlog, not with the tables).
// A source that does not answer within a second leaves its gauges out of that scrape (alert on
// absent()); the scrape itself always answers.
import client from "prom-client";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { sqlPool, type Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { PM_QUEUE } from "../../schema/planned-maintenance/public.ts";

export interface StateSource {
  db: Db;
  now: () => Date;
  logger: Logger;
  /** The BullMQ queue of the planned maintenance generator; without Redis its gauge is left out. */
  redis?: Redis;
  redisPrefix: string;
  /** How long a scrape waits for PostgreSQL and for Redis (default 1 s). */
  timeoutMs?: number;
}

interface DbState {
  outbox_unrelayed: string;
  outbox_oldest: Date | null;
  webhook_due: string;
  webhook_in_flight: string;
  webhook_retry_wait: string;
  webhook_oldest_due: Date | null;
  mail_due: string;
  mail_in_flight: string;
  mail_retry_wait: string;
  mail_oldest_due: Date | null;
  pm_due: string;
  search_pending: string;
  search_oldest: Date | null;
}

// $1: now. A pending row is in flight while a worker's lease holds it; else due once nextAttemptAt has
// passed, else waiting for its retry (nextAttemptAt is set exactly while a row is pending). Webhook
// deliveries and mail are scheduled alike (claimed rows with leases), so they are counted alike.
const pendingWork = (table: string) => `
         SELECT count(*) FILTER (WHERE "nextAttemptAt" <= $1 AND ("leaseUntil" IS NULL OR "leaseUntil" <= $1)) AS due,
                count(*) FILTER (WHERE "leaseUntil" > $1) AS in_flight,
                count(*) FILTER (WHERE "nextAttemptAt" > $1 AND ("leaseUntil" IS NULL OR "leaseUntil" <= $1)) AS retry_wait,
                min("nextAttemptAt") AS oldest_due
           FROM ${table} WHERE "nextAttemptAt" IS NOT NULL`;
const STATE_SQL = `
  WITH outbox AS (SELECT count(*) AS n FROM "OutboxEvent" WHERE "relayedAt" IS NULL),
       oldest AS (SELECT "createdAt" FROM "OutboxEvent" WHERE "relayedAt" IS NULL ORDER BY id LIMIT 1),
       webhook AS (${pendingWork('"WebhookDelivery"')}),
       mail AS (${pendingWork('"MailOutbox"')}),
       pm AS (
         SELECT count(*) AS due FROM "PlannedMaintenanceSchedule" s JOIN "BuyerCompany" c ON c.id = s."buyerCompanyId"
          WHERE s."isActive" AND s."nextRunAt" IS NOT NULL AND s."nextRunAt" <= $1 AND c."pmScheduling" = 'built_in'),
       search AS (SELECT count(*) AS pending, min(since) AS oldest FROM "WorkOrderSearchPending")
  SELECT outbox.n AS outbox_unrelayed, (SELECT "createdAt" FROM oldest) AS outbox_oldest,
         webhook.due AS webhook_due, webhook.in_flight AS webhook_in_flight, webhook.retry_wait AS webhook_retry_wait, webhook.oldest_due AS webhook_oldest_due,
         mail.due AS mail_due, mail.in_flight AS mail_in_flight, mail.retry_wait AS mail_retry_wait, mail.oldest_due AS mail_oldest_due,
         pm.due AS pm_due, search.pending AS search_pending, search.oldest AS search_oldest
    FROM outbox, webhook, mail, pm, search`;

const PM_JOB_STATES = ["waiting", "delayed", "active", "prioritized", "waiting-children", "failed"] as const;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A pending-work gauge's three states (counts arrive as bigint text). */
function setPending(gauge: client.Gauge, due: string, inFlight: string, retryWait: string) {
  gauge.set({ state: "due" }, Number(due));
  gauge.set({ state: "in_flight" }, Number(inFlight));
  gauge.set({ state: "retry_wait" }, Number(retryWait));
}

/** Registers the state gauges on `registry`; close() ends the BullMQ queue handle. */
export function registerStateGauges(registry: client.Registry, source: StateSource) {
  const timeoutMs = source.timeoutMs ?? 1_000;
  const seconds = (from: Date | null, now: Date) => (from ? Math.max(0, (now.getTime() - from.getTime()) / 1000) : 0);

  // One statement per scrape: the first gauge's collect starts it, the others (collected at the same
  // time by registry.metrics()) share it.
  let reading: Promise<{ state: DbState; now: Date } | null> | undefined;
  const dbState = () => {
    reading ??= (async () => {
      const now = source.now();
      try {
        const { rows } = await within(sqlPool(source.db).query<DbState>(STATE_SQL, [now]), timeoutMs, "PostgreSQL");
        return { state: rows[0], now };
      } catch (err) {
        source.logger.warn(
          { err: (err as Error).message },
          "metrics: reading the queue state failed; its gauges are left out of this scrape",
        );
        return null;
      }
    })().finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };

  /** A gauge set from the database state at each scrape (reset first: absent when the read failed). */
  const dbGauge = (
    name: string,
    help: string,
    labelNames: string[],
    set: (g: client.Gauge, s: DbState, now: Date) => void,
  ) =>
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const read = await dbState();
        if (read) set(this, read.state, read.now);
      },
    });

  dbGauge(
    "outbox_oldest_unrelayed_age_seconds",
    "Age in seconds of the oldest outbox event the relay has not turned into deliveries yet (0: none waiting)",
    [],
    (g, s, now) => g.set(seconds(s.outbox_oldest, now)),
  );
  dbGauge(
    "search_index_pending_work_orders",
    "Work orders changed since the search indexer last saw them (searches read them from their rows, exactly but slower)",
    [],
    (g, s) => g.set(Number(s.search_pending)),
  );
  dbGauge(
    "search_index_oldest_pending_age_seconds",
    "Age in seconds of the oldest change the search indexer has not applied (0: none)",
    [],
    (g, s, now) => g.set(seconds(s.search_oldest, now)),
  );
  dbGauge("outbox_unrelayed_events", "Outbox events not relayed yet", [], (g, s) => g.set(Number(s.outbox_unrelayed)));
  dbGauge(
    "webhook_deliveries_pending",
    "Pending webhook deliveries by state: due (waiting for a worker), in_flight (held by a worker's lease), retry_wait (failed, next attempt later)",
    ["state"],
    (g, s) => setPending(g, s.webhook_due, s.webhook_in_flight, s.webhook_retry_wait),
  );
  dbGauge(
    "webhook_delivery_oldest_due_age_seconds",
    "How long the longest-due pending webhook delivery has been due (0: none overdue); grows while workers fall behind or are down",
    [],
    (g, s, now) => g.set(s.webhook_oldest_due && s.webhook_oldest_due <= now ? seconds(s.webhook_oldest_due, now) : 0),
  );
  dbGauge(
    "mail_outbox_pending",
    "Pending mail by state: due (waiting for a worker), in_flight (held by a worker's lease), retry_wait (failed, next attempt later)",
    ["state"],
    (g, s) => setPending(g, s.mail_due, s.mail_in_flight, s.mail_retry_wait),
  );
  dbGauge(
    "mail_oldest_due_age_seconds",
    "How long the longest-due pending mail has been due (0: none overdue)",
    [],
    (g, s, now) => g.set(s.mail_oldest_due && s.mail_oldest_due <= now ? seconds(s.mail_oldest_due, now) : 0),
  );
  dbGauge(
    "pm_schedules_due",
    "Active planned maintenance schedules of built-in companies whose next run is due and not generated yet",
    [],
    (g, s) => g.set(Number(s.pm_due)),
  );

  // The generator's BullMQ queue (its trigger jobs; the schedules themselves are in PostgreSQL).
  let queue: Queue | undefined;
  const pmJobs = new client.Gauge({
    name: "pm_generator_queue_jobs",
    help: "Jobs of the planned maintenance generator's BullMQ queue by state (BullMQ getJobCounts)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      if (!source.redis) return;
      try {
        queue ??= new Queue(PM_QUEUE, { connection: source.redis, prefix: source.redisPrefix });
        const counts = await within(queue.getJobCounts(...PM_JOB_STATES), timeoutMs, "Redis");
        for (const state of PM_JOB_STATES) this.set({ state }, counts[state] ?? 0);
      } catch (err) {
        source.logger.warn(
          { err: (err as Error).message },
          "metrics: reading the planned maintenance queue failed; its gauge is left out of this scrape",
        );
        // A queue whose connection setup failed stays failed: make a new one next time.
        const failed = queue;
        queue = undefined;
        void failed?.close().catch(() => undefined);
      }
    },
  });
  void pmJobs;

  return {
    async close() {
      await queue?.close().catch(() => undefined);
    },
  };
}
