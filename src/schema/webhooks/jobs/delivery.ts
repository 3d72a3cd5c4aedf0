// One delivery attempt of one webhook message: sign the stored body, POST it with a 10 s timeout,
// record the attempt and the next one's time (or none). Any 2xx acknowledges. A message not handed
// over within three hours of the change is expired and never sent. Deliveries are claimed from
// PostgreSQL with a lease (core/due-work.ts): the schedule never lives in Redis.
//
// This is the hot path of the worker (thousands of attempts a second), so it runs plain SQL on the
// pool under Prisma (db.ts sqlPool) and undici's `request` (a fraction of fetch's cost per call).
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import DataLoader from "dataloader";
import { Agent, request } from "undici";
import { sqlPool, type Db } from "../../../db.ts";
import { claimDueSql } from "../../core/due-work.ts";
import { signatureHeaders } from "../rules/signing.ts";
import { DELIVERY_TIMEOUT_MS, DELIVERY_WINDOW_MS, endpointUrlProblem, isPrivateAddress, retryDelayMs } from "../rules/endpoints.ts";

export type Outcome = "delivered" | "retry" | "expired" | "skipped";

/** How long an attempt holds its delivery by default: the 10 s timeout, recording, and a wide margin. */
export const DEFAULT_LEASE_MS = 60_000;

export interface DelivererOptions {
  db: Db;
  now: () => Date;
  /** WEBHOOK_ALLOW_INSECURE_URLS: http and private addresses allowed (development, tests). */
  allowInsecureUrls: boolean;
  /** How long an attempt may take (decisions.md §3: 10 s); tests shorten it. */
  timeoutMs?: number;
  /** Host name resolution (dns.lookup); tests inject names that resolve to private addresses. */
  lookup?: typeof dns.lookup;
  /** Multiplies the waits between retries (1 in production; tests use a tiny factor). The three-hour rule reads the real schedule. */
  retryScale?: number;
  /** How long a claimed delivery is held before it is due again (a worker that died mid-attempt). */
  leaseMs?: number;
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

/**
 * A worker runs many attempts at once and each records its outcome. DataLoader turns the concurrent
 * records into one INSERT+UPDATE statement (and one commit) instead of one per attempt. Answers arrive
 * each in its own tick, so a batch collects until the event loop has handled everything it read in
 * this turn (setImmediate), not for one tick only.
 */
const batching = { cache: false, maxBatchSize: 1000, batchScheduleFn: (run: () => void) => setImmediate(run) };

function attemptLog(db: Db) {
  const pool = sqlPool(db);
  return new DataLoader<AttemptRecord, undefined>(
    async (records) => {
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
        [column("deliveryId"), column("lease"), column("attempt"), column("statusCode"), column("latencyMs"), column("error"), column("at"), column("status"), column("deliveredAt"), column("nextAttemptAt")],
      );
      return records.map(() => undefined);
    },
    batching,
  );
}

/**
 * Resolves like dns.lookup but refuses names that resolve to a private address. It runs when a
 * connection is opened, so the address checked is the address connected to (no second resolution an
 * attacker's DNS could answer differently).
 */
function publicOnly(lookup: typeof dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", 0);
      if (list.some((a) => isPrivateAddress(a.address))) {
        return callback(Object.assign(new Error(`endpoint URL resolves to a private address (${hostname})`), { code: "EPRIVATEADDRESS" }), "", 0);
      }
      // net asks for every address when it tries several families (autoSelectFamily), else for one.
      if (options.all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
}

/** What the attempt log says about a failed POST. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const e = error as Error & { code?: string; cause?: Error };
  if (e.name === "TimeoutError") return `timed out after ${timeoutMs / 1000} s`;
  return e.cause?.message ?? e.message;
}

export function createDeliverer(options: DelivererOptions) {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const retryScale = options.retryScale ?? 1;
  const log = attemptLog(options.db);
  const pool = sqlPool(options.db);
  // Keep-alive connections per endpoint origin, reused across deliveries.
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(options.allowInsecureUrls ? {} : { lookup: publicOnly(options.lookup ?? dns.lookup) }) },
  });

  /** Signs and POSTs one delivery; the status code (null when there was no answer) and the error, if any. */
  async function post(delivery: ClaimedDelivery, started: Date): Promise<{ statusCode: number | null; error: string | null }> {
    const refused = endpointUrlProblem(delivery.url, options.allowInsecureUrls);
    if (refused) return { statusCode: null, error: `endpoint URL ${refused}` };
    const secrets = [delivery.secret];
    if (delivery.previousSecret && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > started) secrets.push(delivery.previousSecret);
    try {
      const response = await request(delivery.url, {
        method: "POST",
        dispatcher: agent,
        body: delivery.body,
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          "content-type": "application/json",
          "user-agent": "wo-service-webhooks/1",
          "x-webhook-mode": delivery.mode,
          ...signatureHeaders(delivery.body, { webhookId: delivery.webhookId, timestamp: Math.floor(started.getTime() / 1000), secrets }),
        },
      });
      await response.body.dump(); // the answer's body is not read; this frees the connection
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return { statusCode: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
    } catch (error) {
      return { statusCode: null, error: describeFailure(error, timeoutMs) };
    }
  }

  return {
    /** Takes up to `limit` due deliveries for attempts (see claimDeliveries). */
    claim(limit: number): Promise<ClaimedDelivery[]> {
      const now = options.now();
      return claimDeliveries(options.db, now, limit, new Date(now.getTime() + leaseMs));
    },

    /** One attempt of a claimed delivery, recorded with the time of the next one (or none). */
    async attempt(delivery: ClaimedDelivery): Promise<Outcome> {
      const started = options.now();
      if (started.getTime() - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS) {
        await pool.query(
          `UPDATE "WebhookDelivery" SET status = 'expired', "nextAttemptAt" = NULL, "leaseUntil" = NULL WHERE id = $1 AND "leaseUntil" = $2`,
          [delivery.id, delivery.leaseUntil],
        );
        return "expired";
      }
      const attempt = delivery.attempts + 1;
      const clock = performance.now();
      const { statusCode, error } = await post(delivery, started);
      const latencyMs = Math.round(performance.now() - clock);
      const ok = error === null;
      // Would the next attempt, on the real schedule, still fall inside the three-hour window?
      const wait = retryDelayMs(attempt - delivery.retriesFrom);
      const expired = !ok && started.getTime() + wait - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS;
      const retry = !ok && !expired;
      await log.load({
        deliveryId: delivery.id, lease: delivery.leaseUntil, attempt, statusCode, latencyMs, error, at: started,
        status: ok ? "delivered" : expired ? "expired" : "pending", deliveredAt: ok ? options.now() : null,
        nextAttemptAt: retry ? new Date(started.getTime() + Math.round(wait * retryScale)) : null,
      });
      return ok ? "delivered" : expired ? "expired" : "retry";
    },

    close: () => agent.close(),
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
