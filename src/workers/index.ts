// The worker role: wires each feature's background jobs and starts them. close() lets in-flight
// attempts finish. Every job's schedule is in PostgreSQL; Redis carries the live messages of
// subscriptions (published by the webhook relay) and the planned maintenance generator's trigger.
import { connectRedis } from "../redis.ts";
import { type Db, sqlPool } from "../db.ts";
import type { Logger } from "../logger.ts";
import type { Config } from "../config.ts";
import type { Services } from "../schema/core/context.ts";
import { startIdempotencyCleanup } from "../schema/core/idempotency.ts";
import { startStatsChangesCleanup } from "../schema/core/kept-answers.ts";
import { startMailJobs, type MailMetrics } from "../schema/mail/public.ts";
import { startWebhookJobs, type DeliveryMetrics } from "../schema/webhooks/public.ts";
import { startPmJobs } from "../schema/planned-maintenance/public.ts";
import { startInvoiceJobs } from "../schema/invoices/public.ts";
import { startSearchIndexJobs } from "../schema/work-orders/public.ts";

/**
 * The jobs' queue tables (the search's pending rows, the outbox, deliveries, mail) are written and
 * emptied all day, and the work orders' pages lose their all-visible mark with every change: without
 * autovacuum their dead rows stay, and every list and chart reads through them (docs/operations.md,
 * "Vacuum and index-only scans"). A server set up for short test runs may have it off: say so.
 */
async function warnWithoutAutovacuum(db: Db, logger: Logger): Promise<void> {
  const setting = await sqlPool(db)
    .query<{ autovacuum: string }>("SHOW autovacuum")
    .then(({ rows }) => rows[0].autovacuum)
    .catch(() => "on");
  if (setting !== "on")
    logger.warn(
      { autovacuum: setting },
      "PostgreSQL's autovacuum is off: the queue tables and the work orders keep their dead rows and reads slow down; turn it on, or VACUUM on a schedule",
    );
}

/** The counters the jobs report to (the process's metrics registry, http/metrics/registry.ts). */
export type WorkerMetrics = DeliveryMetrics & MailMetrics;

export async function startWorkers(config: Config, services: Services, metrics?: WorkerMetrics) {
  // BullMQ workers block on Redis, so they get a connection of their own; publishing gets another.
  const connection = connectRedis(config, { maxRetriesPerRequest: null });
  const publisher = connectRedis(config, { maxRetriesPerRequest: 1 });
  for (const redis of [connection, publisher])
    redis.on("error", (err) => services.logger.warn({ err: err.message }, "worker redis error"));
  const { db, logger, now } = services;
  const jobs = [
    startMailJobs({
      db,
      smtpUrl: config.smtpUrl,
      logger,
      now,
      retryDelayMs: config.mailRetryDelayMs,
      intervalMs: config.relayIntervalMs,
      leaseMs: config.workLeaseMs,
      metrics,
    }),
    startWebhookJobs({
      db,
      databaseUrl: config.databaseUrl,
      publisher,
      prefix: config.redisPrefix,
      logger,
      now,
      allowInsecureUrls: config.webhookAllowInsecureUrls,
      retryScale: config.webhookRetryScale,
      relayIntervalMs: config.relayIntervalMs,
      concurrency: config.webhookConcurrency,
      leaseMs: config.workLeaseMs,
      metrics,
    }),
    startPmJobs({ db, connection, prefix: config.redisPrefix, logger, now, intervalMs: config.pmGeneratorIntervalMs }),
    startInvoiceJobs({ db, logger, now, intervalMs: config.relayIntervalMs }),
    startIdempotencyCleanup({ db, logger, now }),
    startStatsChangesCleanup({ db, logger, now }),
    startSearchIndexJobs({ db, logger, intervalMs: config.relayIntervalMs, minDocs: config.searchBitmapMinDocs }),
  ];
  logger.info({ jobs: jobs.length }, "workers started");
  await warnWithoutAutovacuum(db, logger);
  return {
    async close() {
      await Promise.all(jobs.map((j) => j.close()));
      connection.disconnect();
      publisher.disconnect();
    },
  };
}
