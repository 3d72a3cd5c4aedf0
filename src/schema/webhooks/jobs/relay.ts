// The outbox relay: turns committed outbox rows into webhook deliveries (one per message and endpoint,
// due at once) and numbered live stream messages. The first step is database-only and atomic
// (deliveries + relayedAt + stream numbers), so a crash or a Redis outage loses nothing; the
// deliveries' schedule is theirs from then on (delivery.ts claims them), and live subscribers read
// what Redis did not bring them from the outbox (src/schema/live/).
import type { Redis } from "ioredis";
import { sqlPool, sqlTransaction, type Db } from "../../../db.ts";
import type { Logger } from "../../../logger.ts";
import { startPollLoop } from "../../core/poll-loop.ts";
import { messagesFor, type OutboxRow } from "../../work-orders/public.ts";
import { addressedSuppliers, numberRound, SUBSCRIPTION_CHANNEL, type LiveMessage } from "../../live/public.ts";
import { endpointSkips, messageBody } from "../rules/routing.ts";

export { SUBSCRIPTION_CHANNEL };
/**
 * Live messages per Redis message: one publish per relay round (in chunks), not one per event, so
 * neither Redis nor the API instances pay a round of their own for every event.
 */
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
  publisher: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
  /** Called after a round wrote deliveries (they are due now). */
  onDeliveries?: () => void;
}

/**
 * Up to `batch` outbox rows → deliveries; returns how many of each, and the messages for live subscribers.
 * Plain SQL on Prisma's pool: this runs for every event, and an ORM call per step costs more than the SQL.
 */
export async function relayOutbox(
  deps: Pick<RelayDeps, "db" | "now">,
  batch = 200,
): Promise<{ events: number; deliveries: number; messages: LiveMessage[] }> {
  return sqlTransaction(deps.db, async (sql) => {
    const { rows } = await sql.query<RelayRow>(
      `SELECT id, "eventType", payload, "buyerCompanyId", "createdAt" FROM "OutboxEvent"
        WHERE "relayedAt" IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batch],
    );
    if (rows.length === 0) return { events: 0, deliveries: 0, messages: [] };
    const { rows: companies } = await sql.query<{ id: number; visibilityWebhooks: boolean }>(
      `SELECT id, "visibilityWebhooks" FROM "BuyerCompany" WHERE id = ANY($1::int[])`,
      [[...new Set(rows.map((r) => r.buyerCompanyId))]],
    );
    const companyById = new Map(companies.map((c) => [c.id, c]));
    const rounds = rows.map((row) => {
      const visibilityWebhooks = companyById.get(row.buyerCompanyId)?.visibilityWebhooks ?? false;
      return { row, visibilityWebhooks, messages: messagesFor(row, { visibilityWebhooks }) };
    });
    const messages = rounds.flatMap(({ row, messages }) => messages.map((m) => ({ ...m, eventId: row.id, row })));
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
            eventId: m.eventId,
            endpointId: e.id,
            sequence: n,
            webhookId: `msg_${key}_${n}`,
            eventType: m.event_type,
            body: messageBody(m),
            eventAt: m.row.createdAt,
          };
        }),
    );
    const column = <K extends keyof (typeof deliveries)[number]>(key: K) => deliveries.map((d) => d[key]);
    // Due at once. A delivery already written for (event, endpoint, sequence) is kept as it is.
    const now = deps.now();
    await sql.query(
      `INSERT INTO "WebhookDelivery" ("eventId", "endpointId", sequence, "webhookId", "eventType", body, "eventAt", "nextAttemptAt")
       SELECT *, $8::timestamptz FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
       ON CONFLICT DO NOTHING`,
      [
        column("eventId"),
        column("endpointId"),
        column("sequence"),
        column("webhookId"),
        column("eventType"),
        column("body"),
        column("eventAt"),
        now,
      ],
    );
    const stream = await numberRound(sql, rounds);
    await sql.query(
      `UPDATE "OutboxEvent" o SET "relayedAt" = $1, seq = x.seq, "visibilityWebhooks" = x.v, "supplierFacilityIds" = x.s
         FROM jsonb_to_recordset($2::jsonb) AS x(id bigint, seq bigint, v boolean, s int[]) WHERE o.id = x.id`,
      [
        now,
        JSON.stringify(
          rounds.map((r, i) => ({
            id: r.row.id,
            seq: stream.seqs[i],
            v: r.visibilityWebhooks,
            s: addressedSuppliers(r.messages),
          })),
        ),
      ],
    );
    return { events: rows.length, deliveries: deliveries.length, messages: stream.live };
  });
}

/**
 * The relay's backlog (the metrics read it): how many outbox events it has not relayed yet, and when the
 * oldest of them was written. Both over the partial index of the unrelayed rows.
 */
export async function outboxBacklog(db: Db): Promise<{ unrelayed: number; oldestCreatedAt: Date | null }> {
  const { rows } = await sqlPool(db).query<{ unrelayed: string; oldest: Date | null }>(
    `SELECT (SELECT count(*) FROM "OutboxEvent" WHERE "relayedAt" IS NULL) AS unrelayed,
            (SELECT "createdAt" FROM "OutboxEvent" WHERE "relayedAt" IS NULL ORDER BY id LIMIT 1) AS oldest`,
  );
  return { unrelayed: Number(rows[0].unrelayed), oldestCreatedAt: rows[0].oldest };
}

/** Runs the relay until stopped: deliveries and live messages; polls every `intervalMs` while idle. */
export function startRelay(deps: RelayDeps, intervalMs: number) {
  return startPollLoop(
    "outbox relay",
    async () => {
      const { events, deliveries, messages } = await relayOutbox(deps, 1000);
      if (deliveries > 0) deps.onDeliveries?.();
      if (messages.length) {
        // One round trip for the whole batch. A failure is logged, not retried: API instances read the
        // numbered messages Redis did not bring them from the outbox.
        const pipeline = deps.publisher.pipeline();
        for (let i = 0; i < messages.length; i += LIVE_CHUNK) {
          pipeline.publish(`${deps.prefix}:${SUBSCRIPTION_CHANNEL}`, JSON.stringify(messages.slice(i, i + LIVE_CHUNK)));
        }
        await pipeline.exec().catch((err) => deps.logger.warn({ err: err.message }, "subscription publish failed"));
      }
      return events > 0;
    },
    intervalMs,
    deps.logger,
  );
}
