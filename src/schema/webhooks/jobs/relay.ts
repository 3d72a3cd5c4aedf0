// The outbox relay: turns committed outbox rows into webhook deliveries (one per message and endpoint)
// and live subscription messages. Step 1 is database-only and atomic (deliveries + relayedAt), so a
// crash or a Redis outage loses nothing; step 2 hands pending deliveries to BullMQ with the delivery's
// webhook-id as job id, so a repeated hand-over cannot enqueue twice.
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { sqlPool, sqlTransaction, type Db } from "../../../db.ts";
import type { Logger } from "../../../logger.ts";
import { startPollLoop } from "../../core/poll-loop.ts";
import { messagesFor, type Message, type OutboxRow } from "../../work-orders/public.ts";
import { endpointSkips, messageBody } from "../rules/routing.ts";

/**
 * The Redis channel of live messages (`<prefix>:work-order-events`). Each Redis message is a JSON
 * array of messages: one publish per relay round (in chunks), not one per event, so neither Redis nor
 * the API instances pay a round of their own for every event.
 */
export const SUBSCRIPTION_CHANNEL = "work-order-events";
const LIVE_CHUNK = 500;

interface RelayRow extends OutboxRow {
  /** bigint, as pg returns it: text. */
  id: string;
  buyerCompanyId: number;
  createdAt: Date;
}

interface EndpointRow {
  id: number;
  buyerCompanyId: number | null;
  supplierFacilityId: number | null;
  events: string[];
}

export interface RelayDeps {
  db: Db;
  queue: Queue<{ webhookId: string }>;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
}

/**
 * Step 1: up to `batch` outbox rows → deliveries; returns the messages for live subscribers.
 * Plain SQL on Prisma's pool: this runs for every event, and an ORM call per step costs more than the SQL.
 */
export async function relayOutbox(deps: Pick<RelayDeps, "db" | "now">, batch = 200): Promise<{ events: number; messages: (Message & { eventId: string })[] }> {
  return sqlTransaction(deps.db, async (sql) => {
    const { rows } = await sql.query<RelayRow>(
      `SELECT id, "eventType", payload, "buyerCompanyId", "createdAt" FROM "OutboxEvent"
        WHERE "relayedAt" IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batch],
    );
    if (rows.length === 0) return { events: 0, messages: [] };
    const { rows: companies } = await sql.query<{ id: number; visibilityWebhooks: boolean }>(
      `SELECT id, "visibilityWebhooks" FROM "BuyerCompany" WHERE id = ANY($1::int[])`,
      [[...new Set(rows.map((r) => r.buyerCompanyId))]],
    );
    const companyById = new Map(companies.map((c) => [c.id, c]));
    const messages = rows.flatMap((row) =>
      messagesFor(row, companyById.get(row.buyerCompanyId) ?? { visibilityWebhooks: false }).map((m) => ({ ...m, eventId: row.id, row })),
    );
    const { rows: endpoints } = await sql.query<EndpointRow>(
      `SELECT id, "buyerCompanyId", "supplierFacilityId", events FROM "WebhookEndpoint"
        WHERE "disabledAt" IS NULL AND ("buyerCompanyId" = ANY($1::int[]) OR "supplierFacilityId" = ANY($2::int[]))`,
      [
        messages.flatMap((m) => ("buyerCompanyId" in m.to ? [m.to.buyerCompanyId] : [])),
        messages.flatMap((m) => ("supplierFacilityId" in m.to ? [m.to.supplierFacilityId] : [])),
      ],
    );
    const sequence = new Map<string, number>();
    const deliveries = messages.flatMap((m) =>
      endpoints
        .filter((e) => endpointSkips(e, m) === null)
        .map((e) => {
          const key = `${m.eventId}_${e.id}`;
          const n = sequence.get(key) ?? 0;
          sequence.set(key, n + 1);
          return {
            eventId: m.eventId, endpointId: e.id, sequence: n, webhookId: `msg_${key}_${n}`, eventType: m.event_type,
            body: messageBody(m), eventAt: m.row.createdAt,
          };
        }),
    );
    const column = <K extends keyof (typeof deliveries)[number]>(key: K) => deliveries.map((d) => d[key]);
    // A delivery already written for (event, endpoint, sequence) is kept as it is.
    await sql.query(
      `INSERT INTO "WebhookDelivery" ("eventId", "endpointId", sequence, "webhookId", "eventType", body, "eventAt")
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
       ON CONFLICT DO NOTHING`,
      [column("eventId"), column("endpointId"), column("sequence"), column("webhookId"), column("eventType"), column("body"), column("eventAt")],
    );
    await sql.query(`UPDATE "OutboxEvent" SET "relayedAt" = $1 WHERE id = ANY($2::bigint[])`, [deps.now(), rows.map((r) => r.id)]);
    return { events: rows.length, messages: messages.map(({ row: _row, ...m }) => m) };
  });
}

/** Step 2: every pending delivery not yet handed to BullMQ. */
export async function enqueuePending(deps: RelayDeps, batch = 500): Promise<number> {
  const pool = sqlPool(deps.db);
  const { rows: pending } = await pool.query<{ id: number; webhookId: string }>(
    `SELECT id, "webhookId" FROM "WebhookDelivery" WHERE status = 'pending' AND "enqueuedAt" IS NULL ORDER BY id LIMIT $1`,
    [batch],
  );
  if (pending.length === 0) return 0;
  await deps.queue.addBulk(pending.map((d) => ({ name: "deliver", data: { webhookId: d.webhookId }, opts: { jobId: d.webhookId } })));
  await pool.query(`UPDATE "WebhookDelivery" SET "enqueuedAt" = $1 WHERE id = ANY($2::int[])`, [deps.now(), pending.map((d) => d.id)]);
  return pending.length;
}

/** Runs the relay until stopped: deliveries, live messages, hand-over; polls every `intervalMs` while idle. */
export function startRelay(deps: RelayDeps, intervalMs: number) {
  return startPollLoop("outbox relay", async () => {
    const { events, messages } = await relayOutbox(deps, 1000);
    if (messages.length) {
      // One round trip for the whole batch (subscriptions are live-only: a failure is logged, not retried).
      const pipeline = deps.publisher.pipeline();
      for (let i = 0; i < messages.length; i += LIVE_CHUNK) {
        pipeline.publish(`${deps.prefix}:${SUBSCRIPTION_CHANNEL}`, JSON.stringify(messages.slice(i, i + LIVE_CHUNK)));
      }
      await pipeline.exec().catch((err) => deps.logger.warn({ err: err.message }, "subscription publish failed"));
    }
    const handedOver = await enqueuePending(deps, 2000);
    return events > 0 || handedOver > 0;
  }, intervalMs, deps.logger);
}
