// One delivery attempt of one webhook message: sign the stored body and POST it with a 10 s timeout
// (send.ts), record the attempt and the next one's time (or none). Any 2xx acknowledges. A message not handed
// over within three hours of the change is expired and never sent. Deliveries are claimed from
// PostgreSQL with a lease (core/due-work.ts): the schedule never lives in Redis.
//
// This is the hot path of the worker (thousands of attempts a second), so it runs plain SQL on the
// pool under Prisma (db.ts sqlPool) and undici's `request` (a fraction of fetch's cost per call).
import { sqlPool, type Db } from "../../../db.ts";
import { claimDueSql, pendingWork } from "../../core/due-work.ts";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "../rules/endpoints.ts";
import { createSender, type SenderOptions } from "./send.ts";

export type Outcome = "delivered" | "retry" | "expired" | "skipped";

/**
 * What the delivery worker reports to the metrics (the transports implement it; a feature knows no
 * metrics library). Every hook is optional to call: tests and the operator CLI pass none.
 */
export interface DeliveryMetrics {
  /**
   * One claimed delivery's attempt ended and was recorded: its outcome; the POST's status code (null: no
   * answer) and duration when one was sent; seconds from the change to the acknowledgement when delivered.
   */
  webhookAttempt(report: {
    outcome: "delivered" | "retry" | "expired";
    post?: { statusCode: number | null; seconds: number };
    sinceEventSeconds?: number;
  }): void;
  /** The expiry sweep expired `count` pending deliveries (three-hour rule, no attempt). */
  webhooksExpired(count: number): void;
}

/** How long an attempt holds its delivery by default: the 10 s timeout, recording, and a wide margin. */
const DEFAULT_LEASE_MS = 60_000;

export interface DelivererOptions extends SenderOptions {
  db: Db;
  now: () => Date;
  /** Multiplies the waits between retries (1 in production; tests use a tiny factor). The three-hour rule reads the real schedule. */
  retryScale?: number;
  /** How long a claimed delivery is held before it is due again (a worker that died mid-attempt). */
  leaseMs?: number;
  metrics?: DeliveryMetrics;
}

/** A claimed delivery as an attempt needs it: the stored body, its schedule and the endpoint's URL and secrets. */
export interface ClaimedDelivery {
  id: number;
  webhookId: string;
  body: string;
  eventAt: Date;
  attempts: number;
  retriesFrom: number;
  /** The lease this claim set: the attempt's record only lands while it still holds. */
  leaseUntil: Date;
  url: string;
  mode: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

interface AttemptRecord {
  deliveryId: number;
  lease: Date;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  at: Date;
  status: "delivered" | "expired" | "pending";
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
}

const CLAIM = claimDueSql(
  "WebhookDelivery",
  `t.id, t."webhookId", t.body, t."eventAt", t.attempts, t."retriesFrom", t."leaseUntil", t."endpointId"`,
  `SELECT c.*, e.url, e.mode::text AS mode, e.secret, e."previousSecret", e."previousSecretExpiresAt"
     FROM claimed c JOIN "WebhookEndpoint" e ON e.id = c."endpointId"`,
);

/** Claims up to `limit` deliveries due at `now` that nobody holds, holding them until `leaseUntil`. */
export async function claimDeliveries(db: Db, now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]> {
  const { rows } = await sqlPool(db).query<ClaimedDelivery>(CLAIM, [now, limit, leaseUntil]);
  return rows;
}

/** The deliveries not done yet at `now`: due, held by a worker, or waiting for a retry (the metrics read them). */
export const pendingDeliveries = (db: Db, now: Date) => pendingWork(db, "WebhookDelivery", now);

/**
 * A worker runs many attempts at once and each records its outcome: the records are written in
 * batches, one INSERT+UPDATE statement (and one commit) per batch, and one batch at a time. A batch
 * collects what the event loop read in one turn (setImmediate) and, while the previous batch is being
 * written, everything that arrives meanwhile: a slow database gets fewer, larger statements instead of
 * one per turn taking every pooled connection (the relay and the claims need them too).
 */
const MAX_BATCH = 1000;

function attemptLog(db: Db) {
  const pool = sqlPool(db);
  const waiting: { record: AttemptRecord; done: (error?: Error) => void }[] = [];
  let writing = false;

  async function write(records: AttemptRecord[]) {
    const column = <K extends keyof AttemptRecord>(key: K) => records.map((r) => r[key]);
    // Only where the claim's lease still holds (another worker may have taken a delivery whose lease
    // ran out); the sweep may have expired it meanwhile, and the attempt's outcome then wins.
    await pool.query(
      `WITH v AS (
           SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::text[], $7::timestamptz[], $8::text[], $9::timestamptz[], $10::timestamptz[])
             AS v(id, lease, attempt, code, latency, error, at, status, delivered, next)),
         recorded AS (
           UPDATE "WebhookDelivery" d
              SET attempts = v.attempt, "lastStatusCode" = v.code, "lastError" = v.error, status = v.status::"DeliveryStatus",
                  "deliveredAt" = v.delivered, "nextAttemptAt" = v.next, "leaseUntil" = NULL
             FROM v WHERE d.id = v.id AND d."leaseUntil" = v.lease
           RETURNING d.id)
         INSERT INTO "WebhookAttempt" ("deliveryId", attempt, "statusCode", "latencyMs", error, at)
         SELECT v.id, v.attempt, v.code, v.latency, v.error, v.at FROM v JOIN recorded USING (id)`,
      [
        column("deliveryId"),
        column("lease"),
        column("attempt"),
        column("statusCode"),
        column("latencyMs"),
        column("error"),
        column("at"),
        column("status"),
        column("deliveredAt"),
        column("nextAttemptAt"),
      ],
    );
  }

  async function drain() {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      const error = await write(batch.map((w) => w.record)).then(
        () => undefined,
        (e: Error) => e,
      );
      for (const w of batch) w.done(error);
    }
    writing = false;
  }

  return {
    /** Resolves once the record has landed (or rejects with the batch's error). */
    record(record: AttemptRecord): Promise<void> {
      return new Promise((resolve, reject) => {
        waiting.push({ record, done: (error) => (error ? reject(error) : resolve()) });
        if (!writing) {
          writing = true;
          setImmediate(drain);
        }
      });
    },
  };
}

export function createDeliverer(options: DelivererOptions) {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const retryScale = options.retryScale ?? 1;
  const log = attemptLog(options.db);
  const pool = sqlPool(options.db);
  const sender = createSender(options);

  return {
    /** Takes up to `limit` due deliveries for attempts (see claimDeliveries). */
    claim(limit: number): Promise<ClaimedDelivery[]> {
      const now = options.now();
      return claimDeliveries(options.db, now, limit, new Date(now.getTime() + leaseMs));
    },

    /**
     * One attempt of a claimed delivery, recorded with the time of the next one (or none). `sent` is
     * called once the POST has its answer (or none), before the record lands.
     */
    async attempt(delivery: ClaimedDelivery, sent?: () => void): Promise<Outcome> {
      const started = options.now();
      if (started.getTime() - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS) {
        // Counted only when still pending: the expiry sweep may have expired (and counted) it meanwhile.
        const { rows } = await pool.query<{ pending: boolean }>(
          `WITH held AS (SELECT id, "nextAttemptAt" IS NOT NULL AS pending FROM "WebhookDelivery" WHERE id = $1 AND "leaseUntil" = $2 FOR UPDATE)
           UPDATE "WebhookDelivery" d SET status = 'expired', "nextAttemptAt" = NULL, "leaseUntil" = NULL FROM held WHERE d.id = held.id
           RETURNING held.pending`,
          [delivery.id, delivery.leaseUntil],
        );
        if (rows[0]?.pending) options.metrics?.webhookAttempt({ outcome: "expired" });
        return "expired";
      }
      const attempt = delivery.attempts + 1;
      const clock = performance.now();
      const { statusCode, error } = await sender.post(delivery, delivery.body, delivery.webhookId, started);
      const seconds = (performance.now() - clock) / 1000;
      sent?.();
      const latencyMs = Math.round(seconds * 1000);
      const ok = error === null;
      // Would the next attempt, on the real schedule, still fall inside the three-hour window?
      const wait = retryDelayMs(attempt - delivery.retriesFrom);
      const expired = !ok && started.getTime() + wait - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS;
      const retry = !ok && !expired;
      const deliveredAt = ok ? options.now() : null;
      await log.record({
        deliveryId: delivery.id,
        lease: delivery.leaseUntil,
        attempt,
        statusCode,
        latencyMs,
        error,
        at: started,
        status: ok ? "delivered" : expired ? "expired" : "pending",
        deliveredAt,
        nextAttemptAt: retry ? new Date(started.getTime() + Math.round(wait * retryScale)) : null,
      });
      const outcome = ok ? "delivered" : expired ? "expired" : "retry";
      options.metrics?.webhookAttempt({
        outcome,
        post: { statusCode, seconds },
        sinceEventSeconds: deliveredAt
          ? Math.max(0, deliveredAt.getTime() - delivery.eventAt.getTime()) / 1000
          : undefined,
      });
      return outcome;
    },

    close: () => sender.close(),
  };
}

/**
 * The three-hour rule on time, whether or not an attempt runs: every pending delivery whose change is
 * more than three hours old is expired (a worker stopped for hours, a backlog). An attempt in flight
 * still records its outcome. Returns how many were expired.
 */
export async function expireOverdue(db: Db, now: Date): Promise<number> {
  const { rowCount } = await sqlPool(db).query(
    `UPDATE "WebhookDelivery" SET status = 'expired', "nextAttemptAt" = NULL WHERE "nextAttemptAt" IS NOT NULL AND "eventAt" < $1`,
    [new Date(now.getTime() - DELIVERY_WINDOW_MS)],
  );
  return rowCount ?? 0;
}
