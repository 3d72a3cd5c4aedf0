// State gauges, read when Prometheus scrapes (prom-client collect()): the outbox's lag, the webhook
// and mail queues in PostgreSQL, the planned maintenance generator's backlog (PostgreSQL) and its
// BullMQ queue (Redis), the search indexer's backlog. They describe shared state, so every instance that
// serves /metrics reports the same values; aggregate them with max(), not sum(). Each feature reads its
// own tables (a function of its public.ts, over the partial indexes of the "not yet done" rows, so the
// cost grows with the backlog, not with the tables); a scrape runs the five reads at once.
// A source that does not answer within a second leaves its gauges out of that scrape (alert on
// absent()); the scrape itself always answers.
import client from "prom-client";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import type { PendingWork } from "../../schema/core/due-work.ts";
import { pendingMail } from "../../schema/mail/public.ts";
import { dueScheduleCount, PM_QUEUE } from "../../schema/planned-maintenance/public.ts";
import { outboxBacklog, pendingDeliveries } from "../../schema/webhooks/public.ts";
import { searchIndexBacklog } from "../../schema/work-orders/public.ts";

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
  outbox: Awaited<ReturnType<typeof outboxBacklog>>;
  webhooks: PendingWork;
  mail: PendingWork;
  pmDue: number;
  search: Awaited<ReturnType<typeof searchIndexBacklog>>;
}

/** Every feature's state at `now`, read through its public file. */
async function readDbState(db: Db, now: Date): Promise<DbState> {
  const [outbox, webhooks, mail, pmDue, search] = await Promise.all([
    outboxBacklog(db),
    pendingDeliveries(db, now),
    pendingMail(db, now),
    dueScheduleCount(db, now),
    searchIndexBacklog(db),
  ]);
  return { outbox, webhooks, mail, pmDue, search };
}

const PM_JOB_STATES = ["waiting", "delayed", "active", "prioritized", "waiting-children", "failed"] as const;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const seconds = (from: Date | null, now: Date) => (from ? Math.max(0, (now.getTime() - from.getTime()) / 1000) : 0);

/** How long the longest-due pending row has been due (0: none is, or none is overdue yet). */
const overdueSeconds = (work: PendingWork, now: Date) =>
  work.oldestDue && work.oldestDue <= now ? seconds(work.oldestDue, now) : 0;

/** A pending-work gauge's three states. */
function setPending(gauge: client.Gauge, work: PendingWork) {
  gauge.set({ state: "due" }, work.due);
  gauge.set({ state: "in_flight" }, work.inFlight);
  gauge.set({ state: "retry_wait" }, work.retryWait);
}

/** The database state of the scrape under way; null when the read failed or timed out (logged). */
type DbRead = () => Promise<{ state: DbState; now: Date } | null>;

/**
 * One read per scrape: the first gauge's collect starts it, the others (collected at the same time by
 * registry.metrics()) share it.
 */
function sharedDbRead(source: StateSource, timeoutMs: number): DbRead {
  let reading: ReturnType<DbRead> | undefined;
  return () => {
    reading ??= (async () => {
      const now = source.now();
      try {
        return { state: await within(readDbState(source.db, now), timeoutMs, "PostgreSQL"), now };
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
}

/** The gauges of the database state, in the order /metrics lists them. */
function registerDbGauges(registry: client.Registry, read: DbRead) {
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
        const state = await read();
        if (state) set(this, state.state, state.now);
      },
    });

  dbGauge(
    "outbox_oldest_unrelayed_age_seconds",
    "Age in seconds of the oldest outbox event the relay has not turned into deliveries yet (0: none waiting)",
    [],
    (g, s, now) => g.set(seconds(s.outbox.oldestCreatedAt, now)),
  );
  dbGauge(
    "search_index_pending_work_orders",
    "Work orders changed since the search indexer last saw them (searches read them from their rows, exactly but slower)",
    [],
    (g, s) => g.set(s.search.pending),
  );
  dbGauge(
    "search_index_oldest_pending_age_seconds",
    "Age in seconds of the oldest change the search indexer has not applied (0: none)",
    [],
    (g, s, now) => g.set(seconds(s.search.oldestSince, now)),
  );
  dbGauge("outbox_unrelayed_events", "Outbox events not relayed yet", [], (g, s) => g.set(s.outbox.unrelayed));
  dbGauge(
    "webhook_deliveries_pending",
    "Pending webhook deliveries by state: due (waiting for a worker), in_flight (held by a worker's lease), retry_wait (failed, next attempt later)",
    ["state"],
    (g, s) => setPending(g, s.webhooks),
  );
  dbGauge(
    "webhook_delivery_oldest_due_age_seconds",
    "How long the longest-due pending webhook delivery has been due (0: none overdue); grows while workers fall behind or are down",
    [],
    (g, s, now) => g.set(overdueSeconds(s.webhooks, now)),
  );
  dbGauge(
    "mail_outbox_pending",
    "Pending mail by state: due (waiting for a worker), in_flight (held by a worker's lease), retry_wait (failed, next attempt later)",
    ["state"],
    (g, s) => setPending(g, s.mail),
  );
  dbGauge(
    "mail_oldest_due_age_seconds",
    "How long the longest-due pending mail has been due (0: none overdue)",
    [],
    (g, s, now) => g.set(overdueSeconds(s.mail, now)),
  );
  dbGauge(
    "pm_schedules_due",
    "Active planned maintenance schedules of built-in companies whose next run is due and not generated yet",
    [],
    (g, s) => g.set(s.pmDue),
  );
}

/** The generator's BullMQ queue (its trigger jobs; the schedules themselves are in PostgreSQL). */
function registerPmQueueGauge(registry: client.Registry, source: StateSource, timeoutMs: number) {
  let queue: Queue | undefined;
  new client.Gauge({
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
  return {
    async close() {
      await queue?.close().catch(() => undefined);
    },
  };
}

/** Registers the state gauges on `registry`; close() ends the BullMQ queue handle. */
export function registerStateGauges(registry: client.Registry, source: StateSource) {
  const timeoutMs = source.timeoutMs ?? 1_000;
  registerDbGauges(registry, sharedDbRead(source, timeoutMs));
  return registerPmQueueGauge(registry, source, timeoutMs);
}
