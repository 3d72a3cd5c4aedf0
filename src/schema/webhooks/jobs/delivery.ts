// One delivery attempt of one webhook message: sign the stored body, POST it with a 10 s timeout,
// record the attempt, and say whether to retry. Any 2xx acknowledges. A message not handed over within
// three hours of the change is expired and never sent.
//
// This is the hot path of the worker (thousands of attempts a second), so it runs plain SQL on the
// pool under Prisma (db.ts sqlPool) and undici's `request` (a fraction of fetch's cost per call).
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import DataLoader from "dataloader";
import { Agent, request } from "undici";
import { sqlPool, type Db } from "../../../db.ts";
import { signatureHeaders } from "../rules/signing.ts";
import { DELIVERY_TIMEOUT_MS, DELIVERY_WINDOW_MS, endpointUrlProblem, isPrivateAddress, retryDelayMs } from "../rules/endpoints.ts";

export type Outcome = "delivered" | "retry" | "expired" | "skipped";

export interface DelivererOptions {
  db: Db;
  now: () => Date;
  /** WEBHOOK_ALLOW_INSECURE_URLS: http and private addresses allowed (development, tests). */
  allowInsecureUrls: boolean;
  /** How long an attempt may take (decisions.md §3: 10 s); tests shorten it. */
  timeoutMs?: number;
  /** Host name resolution (dns.lookup); tests inject names that resolve to private addresses. */
  lookup?: typeof dns.lookup;
}

/** A delivery as an attempt needs it: the stored body and the endpoint's URL and secrets. */
interface DeliveryRow {
  id: number;
  body: string;
  eventAt: Date;
  status: string;
  attempts: number;
  url: string;
  mode: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

interface AttemptRecord {
  deliveryId: number;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  at: Date;
  status: "delivered" | "expired" | "pending";
  deliveredAt: Date | null;
}

/**
 * A worker runs many deliveries at once; each needs its row and then records its attempt. DataLoader
 * turns the concurrent ones into one SELECT and one INSERT+UPDATE statement, instead of two round
 * trips (and a commit) per delivery. Answers arrive each in its own tick, so a batch collects until
 * the event loop has handled everything it read in this turn (setImmediate), not for one tick only.
 */
const batching = { cache: false, maxBatchSize: 1000, batchScheduleFn: (run: () => void) => setImmediate(run) };

function deliveryStore(db: Db) {
  const pool = sqlPool(db);
  const rows = new DataLoader<string, DeliveryRow | undefined>(
    async (webhookIds) => {
      const { rows: found } = await pool.query<DeliveryRow & { webhookId: string }>(
        `SELECT d.id, d."webhookId", d.body, d."eventAt", d.status::text AS status, d.attempts,
                e.url, e.mode::text AS mode, e.secret, e."previousSecret", e."previousSecretExpiresAt"
           FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e.id = d."endpointId"
          WHERE d."webhookId" = ANY($1::text[])`,
        [webhookIds],
      );
      const byId = new Map(found.map((d) => [d.webhookId, d]));
      return webhookIds.map((id) => byId.get(id));
    },
    batching,
  );
  const attempts = new DataLoader<AttemptRecord, undefined>(
    async (records) => {
      const column = <K extends keyof AttemptRecord>(key: K) => records.map((r) => r[key]);
      await pool.query(
        `WITH v AS (
           SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::text[], $6::timestamptz[], $7::text[], $8::timestamptz[])
             AS v(id, attempt, code, latency, error, at, status, delivered)),
         logged AS (
           INSERT INTO "WebhookAttempt" ("deliveryId", attempt, "statusCode", "latencyMs", error, at)
           SELECT id, attempt, code, latency, error, at FROM v)
         UPDATE "WebhookDelivery" d
            SET attempts = v.attempt, "lastStatusCode" = v.code, "lastError" = v.error,
                status = v.status::"DeliveryStatus", "deliveredAt" = v.delivered
           FROM v WHERE d.id = v.id`,
        [column("deliveryId"), column("attempt"), column("statusCode"), column("latencyMs"), column("error"), column("at"), column("status"), column("deliveredAt")],
      );
      return records.map(() => undefined);
    },
    batching,
  );
  return {
    load: (webhookId: string) => rows.load(webhookId),
    record: (r: AttemptRecord) => attempts.load(r),
    expire: (id: number) => pool.query(`UPDATE "WebhookDelivery" SET status = 'expired' WHERE id = $1`, [id]),
  };
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
  const store = deliveryStore(options.db);
  // Keep-alive connections per endpoint origin, reused across deliveries.
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(options.allowInsecureUrls ? {} : { lookup: publicOnly(options.lookup ?? dns.lookup) }) },
  });

  /** Signs and POSTs one delivery; the status code (null when there was no answer) and the error, if any. */
  async function post(delivery: DeliveryRow, webhookId: string, started: Date): Promise<{ statusCode: number | null; error: string | null }> {
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
          ...signatureHeaders(delivery.body, { webhookId, timestamp: Math.floor(started.getTime() / 1000), secrets }),
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
    async deliver(webhookId: string): Promise<Outcome> {
      const delivery = await store.load(webhookId);
      if (!delivery || delivery.status !== "pending") return "skipped";
      const started = options.now();
      if (started.getTime() - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS) {
        await store.expire(delivery.id);
        return "expired";
      }
      const attempt = delivery.attempts + 1;
      const clock = performance.now();
      const { statusCode, error } = await post(delivery, webhookId, started);
      const latencyMs = Math.round(performance.now() - clock);
      const ok = error === null;
      // Would the next attempt still fall inside the three-hour window?
      const nextAt = started.getTime() + retryDelayMs(attempt);
      const expired = !ok && nextAt - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS;
      await store.record({
        deliveryId: delivery.id, attempt, statusCode, latencyMs, error, at: started,
        status: ok ? "delivered" : expired ? "expired" : "pending", deliveredAt: ok ? options.now() : null,
      });
      return ok ? "delivered" : expired ? "expired" : "retry";
    },
    close: () => agent.close(),
  };
}
