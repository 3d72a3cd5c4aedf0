// The webhook jobs of the worker role: the outbox relay and the BullMQ delivery worker. Retries follow
// decisions.md §3 (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly) until three hours after the change.
import { Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Db } from "../../../db.ts";
import type { Logger } from "../../../logger.ts";
import { retryDelayMs } from "../rules/endpoints.ts";
import { createDeliverer } from "./delivery.ts";
import { startRelay } from "./relay.ts";

export const WEBHOOK_QUEUE = "webhooks";

export function webhookQueue(connection: Redis, prefix: string) {
  return new Queue<{ webhookId: string }>(WEBHOOK_QUEUE, {
    connection,
    prefix,
    // Attempts are bounded by the three-hour window, not by a count; completed jobs are dropped (the
    // delivery table is the log), and a delivered message is skipped if it is ever handed over again.
    defaultJobOptions: { attempts: 1000, backoff: { type: "webhook" }, removeOnComplete: true, removeOnFail: 1000 },
  });
}

export interface WebhookJobOptions {
  db: Db;
  connection: Redis;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
  allowInsecureUrls: boolean;
  /** Multiplies the retry delays (1 in production; tests use a tiny factor). */
  retryScale: number;
  relayIntervalMs: number;
  concurrency: number;
}

export function startWebhookJobs(o: WebhookJobOptions) {
  // The relay hands thousands of jobs over in one pipeline. On the worker's connection every job's
  // completion would wait behind that pipeline, so the relay's queue gets a connection of its own.
  const producer = o.connection.duplicate();
  const queue = webhookQueue(producer, o.prefix);
  const deliverer = createDeliverer({ db: o.db, now: o.now, allowInsecureUrls: o.allowInsecureUrls });
  const worker = new Worker<{ webhookId: string }>(
    WEBHOOK_QUEUE,
    async (job) => {
      const outcome = await deliverer.deliver(job.data.webhookId);
      if (outcome === "retry") throw new Error("delivery failed; retrying");
      if (outcome === "expired") throw new UnrecoverableError("delivery window of three hours has passed");
    },
    {
      connection: o.connection,
      prefix: o.prefix,
      concurrency: o.concurrency,
      settings: { backoffStrategy: (attemptsMade: number) => Math.round(retryDelayMs(attemptsMade) * o.retryScale) },
    },
  );
  worker.on("error", (err) => o.logger.warn({ err: err.message }, "webhook worker error"));
  const relay = startRelay({ db: o.db, queue, publisher: o.publisher, prefix: o.prefix, logger: o.logger, now: o.now }, o.relayIntervalMs);
  return {
    queue,
    async close() {
      await relay.close();
      await worker.close();
      await deliverer.close();
      await queue.close();
      producer.disconnect();
    },
  };
}
