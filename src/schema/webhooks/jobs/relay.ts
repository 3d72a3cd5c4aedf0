// The outbox relay: turns committed outbox rows into webhook deliveries (one per message and endpoint,
// due at once) and numbered live stream messages. The first step is database-only and atomic
// (deliveries + relayedAt + stream numbers), so a crash or a Redis outage loses nothing; the
// deliveries' schedule is theirs from then on (delivery.ts claims them), and live subscribers read
// what Redis did not bring them from the outbox (src/schema/live/). As many deliveries as the worker's
// dispatcher has free slots for are written already leased to it and handed over after the commit: the
// claim's UPDATE is saved for them, and a worker dying meanwhile leaves them to the lease like a claim.
import type { Redis } from "ioredis";
import type { PoolClient } from "pg";
import { sqlPool, sqlTransaction, type Db } from "../../../db.ts";
import type { Logger } from "../../../logger.ts";
import type { Reservation } from "../../core/due-work.ts";
import { startPollLoop } from "../../core/poll-loop.ts";
import { messagesFor, type OutboxRow } from "../../work-orders/public.ts";
import { addressedSuppliers, numberRound, SUBSCRIPTION_CHANNEL, type LiveMessage } from "../../live/public.ts";
import { endpointSkips, messageBody } from "../rules/routing.ts";
import type { ClaimedDelivery } from "./delivery.ts";

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
  url: string;
  mode: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** Deliveries a round may write leased to the worker's dispatcher (its free slots) instead of due for a claim. */
export interface HeldDeliveries {
  /** How many of `wanted` deliveries to write leased. */
  slots(wanted: number): number;
  /** When a lease set at `now` ends (the dispatcher's claims use the same). */
  leaseUntil(now: Date): Date;
}

export interface RelayDeps {
  db: Db;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
  /** Called after a round wrote deliveries due for a claim. */
  onDeliveries?: () => void;
  /** The worker's delivery dispatcher: as many deliveries as it has free slots are written leased to it. */
  dispatcher?: {
    reserve(max: number): Reservation<ClaimedDelivery>;
    /** How long its attempts hold a delivery. */
    leaseMs: number;
  };
}

/**
 * Up to `batch` outbox rows → deliveries; returns how many of each, the deliveries written leased (`held`,
 * at most `hold.slots(…)`, oldest events first) and the messages for live subscribers.
 * Plain SQL on Prisma's pool: this runs for every event, and an ORM call per step costs more than the SQL.
 */
export async function relayOutbox(
  deps: Pick<RelayDeps, "db" | "now">,
  batch = 200,
  hold?: HeldDeliveries,
): Promise<{ events: number; deliveries: number; held: ClaimedDelivery[]; messages: LiveMessage[] }> {
  return sqlTransaction(deps.db, async (sql) => {
    const { rows } = await sql.query<RelayRow>(
      `SELECT id, "eventType", payload, "buyerCompanyId", "createdAt" FROM "OutboxEvent"
        WHERE "relayedAt" IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batch],
    );
    if (rows.length === 0) return { events: 0, deliveries: 0, held: [], messages: [] };
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
      `SELECT id, "buyerCompanyId", "supplierFacilityId", events, url, mode::text AS mode, secret, "previousSecret",
              "previousSecretExpiresAt" FROM "WebhookEndpoint"
        WHERE "disabledAt" IS NULL AND ("buyerCompanyId" = ANY($1::int[]) OR "supplierFacilityId" = ANY($2::int[]))`,
      [
        messages.flatMap((m) => ("buyerCompanyId" in m.to ? [m.to.buyerCompanyId] : [])),
        messages.flatMap((m) => ("supplierFacilityId" in m.to ? [m.to.supplierFacilityId] : [])),
      ],
    );
    const sequence = new Map<string, number>();
    const deliveries: NewDelivery[] = messages.flatMap((m) =>
      endpoints
        .filter((e) => endpointSkips(e, m) === null)
        .map((e) => {
          const key = `${m.eventId}_${e.id}`;
          const n = sequence.get(key) ?? 0;
          sequence.set(key, n + 1);
          return {
            endpoint: e,
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
    const now = deps.now();
    const held = await writeDeliveries(sql, deliveries, now, hold);
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
    return { events: rows.length, deliveries: deliveries.length, held, messages: stream.live };
  });
}

/** A delivery as the relay writes it, with the endpoint it goes to. */
interface NewDelivery {
  endpoint: EndpointRow;
  eventId: string;
  endpointId: number;
  sequence: number;
  webhookId: string;
  eventType: string;
  body: string;
  eventAt: Date;
}

/**
 * Writes a round's deliveries, due at once; the first `hold.slots(…)` of them leased to this worker's
 * dispatcher, returned as a claim would have read them. A delivery already written for (event,
 * endpoint, sequence) is kept as it is (and not handed over).
 */
async function writeDeliveries(
  sql: PoolClient,
  deliveries: NewDelivery[],
  now: Date,
  hold: HeldDeliveries | undefined,
): Promise<ClaimedDelivery[]> {
  const column = <K extends keyof NewDelivery>(key: K) => deliveries.map((d) => d[key]);
  const held = hold?.slots(deliveries.length) ?? 0;
  const leaseUntil = held > 0 ? hold!.leaseUntil(now) : null;
  const { rows: leased } = await sql.query<{ id: number; webhookId: string }>(
    `WITH written AS (
       INSERT INTO "WebhookDelivery" ("eventId", "endpointId", sequence, "webhookId", "eventType", body, "eventAt", "nextAttemptAt", "leaseUntil")
       SELECT e, ep, s, w, t, b, a, $8::timestamptz, CASE WHEN n <= $9 THEN $10::timestamptz END
         FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
              WITH ORDINALITY AS u(e, ep, s, w, t, b, a, n)
       ON CONFLICT DO NOTHING
       RETURNING id, "webhookId", "leaseUntil")
     SELECT id, "webhookId" FROM written WHERE "leaseUntil" IS NOT NULL`,
    [
      column("eventId"),
      column("endpointId"),
      column("sequence"),
      column("webhookId"),
      column("eventType"),
      column("body"),
      column("eventAt"),
      now,
      held,
      leaseUntil,
    ],
  );
  if (leased.length === 0) return [];
  const byWebhookId = new Map(deliveries.map((d) => [d.webhookId, d]));
  return leased.map(({ id, webhookId }) => {
    const { endpoint, body, eventAt } = byWebhookId.get(webhookId)!;
    return {
      id,
      webhookId,
      body,
      eventAt,
      attempts: 0,
      retriesFrom: 0,
      leaseUntil: leaseUntil!,
      url: endpoint.url,
      mode: endpoint.mode,
      secret: endpoint.secret,
      previousSecret: endpoint.previousSecret,
      previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    };
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
      let reservation: Reservation<ClaimedDelivery> | undefined;
      const { dispatcher } = deps;
      const hold: HeldDeliveries | undefined = dispatcher && {
        slots: (wanted) => (reservation = dispatcher.reserve(wanted)).count,
        leaseUntil: (now) => new Date(now.getTime() + dispatcher.leaseMs),
      };
      const round = await relayOutbox(deps, 1000, hold).catch((error: Error) => {
        reservation?.handOver([]);
        throw error;
      });
      reservation?.handOver(round.held);
      const { events, deliveries, messages } = round;
      if (deliveries > round.held.length) deps.onDeliveries?.();
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
