// The worker role: every BullMQ worker this service runs, and the outbox relay. close() lets in-flight
// jobs finish.
import { Redis } from "ioredis";
import type { Config } from "../config.ts";
import type { Services } from "../schema/context.ts";
import { mailWorker } from "./mail.ts";
import { mailJobOptions, mailQueue } from "./queues.ts";
import { startWebhookRole } from "./webhooks.ts";

export async function startWorkers(config: Config, services: Services) {
  // BullMQ workers block on Redis, so they get a connection of their own; publishing gets another.
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const publisher = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  for (const redis of [connection, publisher]) redis.on("error", (err) => services.logger.warn({ err: err.message }, "worker redis error"));
  const mail = { queue: mailQueue(connection, config.redisPrefix), jobOptions: mailJobOptions(config.mailRetryDelayMs) };
  const workers = [
    mailWorker(connection, config.redisPrefix, config.smtpUrl, services.logger),
    startWebhookRole({
      mail,
      db: services.db, connection, publisher, prefix: config.redisPrefix, logger: services.logger, now: services.now,
      allowInsecureUrls: config.webhookAllowInsecureUrls, retryScale: config.webhookRetryScale,
      relayIntervalMs: config.relayIntervalMs, concurrency: config.webhookConcurrency,
    }),
  ];
  services.logger.info({ workers: workers.length }, "workers started");
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await mail.queue.close();
      connection.disconnect();
      publisher.disconnect();
    },
  };
}
