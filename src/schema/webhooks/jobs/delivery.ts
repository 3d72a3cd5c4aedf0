// One delivery attempt of one webhook message: sign the stored body and POST it with a 10 s timeout
// (send.ts), record the attempt, and say whether to retry. Any 2xx acknowledges. A message not handed
// over within three hours of the change is expired and never sent.
//
// This is the hot path of the worker (thousands of attempts a second), so it runs plain SQL on the
// pool under Prisma (db.ts sqlPool) and undici's `request` (a fraction of fetch's cost per call).
import DataLoader from "dataloader";
import { sqlPool, type Db } from "../../../db.ts";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "../rules/endpoints.ts";
import { createSender, type SenderOptions } from "./send.ts";

export type Outcome = "delivered" | "retry" | "expired" | "skipped";

export interface DelivererOptions extends SenderOptions {
  db: Db;
  now: () => Date;
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

export function createDeliverer(options: DelivererOptions) {
  const store = deliveryStore(options.db);
  const sender = createSender(options);

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
      const { statusCode, error } = await sender.post(delivery, delivery.body, webhookId, started);
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
    close: () => sender.close(),
  };
}
