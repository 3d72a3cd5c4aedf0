// The webhook jobs of the worker role: the outbox relay, the delivery dispatcher (claims due deliveries
// from PostgreSQL, core/due-work.ts) and the expiry sweep. Retries follow docs/decisions.md#webhooks (5 s, 30 s,
// 2 min, 10 min, 30 min, 1 h, then hourly) until three hours after the change; the schedule is each
// delivery's row, so Redis holds none of it.
import type { Redis } from "ioredis";
import type { Db } from "../../../db.ts";
import { listen } from "../../../db-listen.ts";
import type { Logger } from "../../../logger.ts";
import { startDueWork } from "../../core/due-work.ts";
import { startPollLoop } from "../../core/poll-loop.ts";
import { createDeliverer, expireOverdue, type DeliveryMetrics } from "./delivery.ts";
import { startRelay } from "./relay.ts";
import { OUTBOX_CHANNEL } from "../../work-orders/public.ts";

/** How often the sweep expires deliveries past the three-hour window. */
const EXPIRY_SWEEP_MS = 5_000;

export interface WebhookJobOptions {
  db: Db;
  /** Where the relay listens for committed events (a connection of its own). */
  databaseUrl: string;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
  allowInsecureUrls: boolean;
  /** Multiplies the retry delays (1 in production; tests use a tiny factor). */
  retryScale: number;
  /** The relay's poll while it is not told of new events (its listening connection down: the latency floor then). */
  relayIntervalMs: number;
  concurrency: number;
  /** How long an attempt holds its delivery (a worker that dies mid-attempt leaves it due again after this). */
  leaseMs: number;
  sweepIntervalMs?: number;
  /** Counters of attempts and expiries (the worker's /metrics); none in tests that do not look. */
  metrics?: DeliveryMetrics;
}

export function startWebhookJobs(o: WebhookJobOptions) {
  const deliverer = createDeliverer({
    db: o.db,
    now: o.now,
    allowInsecureUrls: o.allowInsecureUrls,
    retryScale: o.retryScale,
    leaseMs: o.leaseMs,
    metrics: o.metrics,
  });
  const deliveries = startDueWork({
    name: "webhook deliveries",
    logger: o.logger,
    concurrency: o.concurrency,
    intervalMs: o.relayIntervalMs,
    claim: (limit) => deliverer.claim(limit),
    run: (delivery, sent) => deliverer.attempt(delivery, sent),
  });
  const relay = startRelay(
    {
      db: o.db,
      publisher: o.publisher,
      prefix: o.prefix,
      logger: o.logger,
      now: o.now,
      onDeliveries: () => deliveries.poke(),
      dispatcher: { reserve: (max) => deliveries.reserve(max), leaseMs: o.leaseMs },
    },
    o.relayIntervalMs,
  );
  // Committed events wake the relay at once; after a reconnection it looks too, for those it was not told of.
  const wakeUps = listen({
    databaseUrl: o.databaseUrl,
    channel: OUTBOX_CHANNEL,
    applicationName: "work-orders outbox relay",
    logger: o.logger,
    what: "outbox relay (polling every RELAY_INTERVAL_MS until notifications are back)",
    notified: () => relay.poke(),
    up: () => relay.poke(),
    down: () => undefined,
  });
  const sweep = startPollLoop(
    "webhook expiry",
    async () => {
      const expired = await expireOverdue(o.db, o.now());
      if (expired > 0) {
        o.logger.info({ expired }, "webhook deliveries expired (three-hour rule)");
        o.metrics?.webhooksExpired(expired);
      }
      return false;
    },
    o.sweepIntervalMs ?? EXPIRY_SWEEP_MS,
    o.logger,
  );
  return {
    async close() {
      await (await wakeUps).close();
      await relay.close();
      await sweep.close();
      await deliveries.close();
      await deliverer.close();
    },
  };
}
