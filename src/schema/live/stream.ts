// The live stream of work order events: every message the relay sends (one per event and audience, by
// the recipients rules) gets the next number of one sequence, in commit order and without gaps. That
// number is the event id every subscriber sees; a subscriber resumes after the last id it saw
// (docs/events.md, "Subscriptions"). The outbox row keeps what a replay needs to compute the same
// messages again: its `seq` (the number of its last message), the company's visibility-webhooks
// setting at relay time, and the suppliers addressed (the index a supplier's replay reads by).
import type { PoolClient } from "pg";
import { sqlRows, Prisma, type Db } from "../../db.ts";
import { messagesFor, type Audience, type Message, type OutboxRow } from "../work-orders/public.ts";

/** The Redis channel of live messages (`<prefix>:work-order-events`); each Redis message is a JSON array. */
export const SUBSCRIPTION_CHANNEL = "work-order-events";

/** What a subscription filter looks at besides the message itself, as of the event. */
interface Facts {
  locationId: number | null;
  /** The supplier assigned at the event, and the one it was taken from on a reassignment. */
  supplierFacilityIds: number[];
  /** The work order's status at the event (after the change, for status updates). */
  status: string;
}

/** One message of the stream, as the relay publishes it and as a replay reads it back. */
export interface LiveMessage extends Message {
  /** The stream number (the event id subscribers see, as a string). */
  seq: number;
  /** The outbox row's id. */
  eventId: string;
  facts: Facts;
}

/** An outbox row as the stream reads it. */
interface StreamRow extends OutboxRow {
  id: string;
  seq: string | number;
  visibilityWebhooks: boolean;
}

type Payload = {
  locationId?: number;
  supplierFacilityId: number | null;
  previousSupplierFacilityId?: number | null;
  status: string;
};

function factsOf(payload: Payload): Facts {
  const suppliers = [payload.supplierFacilityId, payload.previousSupplierFacilityId];
  return {
    locationId: payload.locationId ?? null,
    supplierFacilityIds: suppliers.filter((id): id is number => typeof id === "number"),
    status: payload.status,
  };
}

/** The row's messages numbered so that the last one is `lastSeq`. */
function numbered(row: Pick<OutboxRow, "id" | "payload">, messages: Message[], lastSeq: number): LiveMessage[] {
  const facts = factsOf(row.payload as Payload);
  const first = lastSeq - messages.length + 1;
  return messages.map((m, i) => ({ ...m, seq: first + i, eventId: String(row.id), facts }));
}

/** The suppliers a row's messages are addressed to. */
export const addressedSuppliers = (messages: Message[]) => [
  ...new Set(messages.flatMap((m) => ("supplierFacilityId" in m.to ? [m.to.supplierFacilityId] : []))),
];

/**
 * Numbers one relay round's messages (rows in id order) after the stream's head; called by the relay
 * in its transaction, holding the stream lock, so numbers follow commit order. Returns what to store
 * per row (its seq, or null when it sends nothing) and the messages to publish.
 */
export async function numberRound(
  sql: PoolClient,
  rounds: { row: OutboxRow; messages: Message[] }[],
): Promise<{ seqs: (number | null)[]; live: LiveMessage[] }> {
  // One stream for the whole service: relay rounds take turns (the lock is released at commit).
  await sql.query("SELECT pg_advisory_xact_lock(hashtext('live-stream'))");
  const { rows } = await sql.query<{ head: string }>(`SELECT coalesce(max(seq), 0) AS head FROM "OutboxEvent"`);
  let head = Number(rows[0].head);
  const live: LiveMessage[] = [];
  const seqs = rounds.map(({ row, messages }) => {
    if (messages.length === 0) return null;
    head += messages.length;
    live.push(...numbered(row, messages, head));
    return head;
  });
  return { seqs, live };
}

/** A row read back: the same messages, numbered as the relay numbered them. */
function rowMessages(row: StreamRow): LiveMessage[] {
  return numbered(row, messagesFor(row, { visibilityWebhooks: row.visibilityWebhooks }), Number(row.seq));
}

const COLUMNS = Prisma.sql`id::text AS id, "eventType", payload, seq, "visibilityWebhooks"`;

/**
 * The messages after `after` (and up to `upTo`) of the next `limit` rows, oldest first, and the seq of
 * the last row read (page on from it; undefined when there are no more rows). With an audience, only
 * rows with a message to it are read (through its index); the messages are every audience's.
 */
export async function readStream(
  db: Db,
  range: { after: number; upTo?: number; audience?: Audience; limit?: number },
): Promise<{ messages: LiveMessage[]; last?: number }> {
  const { after, upTo = Number.MAX_SAFE_INTEGER, audience, limit = 500 } = range;
  const tenant = !audience
    ? Prisma.empty
    : "buyerCompanyId" in audience
      ? Prisma.sql`AND "buyerCompanyId" = ${audience.buyerCompanyId}`
      : Prisma.sql`AND "supplierFacilityIds" @> ARRAY[${audience.supplierFacilityId}]::int[]`;
  const rows = await sqlRows<StreamRow>(
    db,
    Prisma.sql`SELECT ${COLUMNS} FROM "OutboxEvent" WHERE seq > ${after} ${tenant} ORDER BY seq LIMIT ${limit}`,
  );
  const messages = rows.flatMap(rowMessages).filter((m) => m.seq > after && m.seq <= upTo);
  const last = rows.length === limit ? Number(rows[rows.length - 1].seq) : undefined;
  return { messages, last: last !== undefined && last < upTo ? last : undefined };
}

/** The last number given so far (0 before the first message). */
export async function streamHead(db: Db): Promise<number> {
  const [row] = await sqlRows<{ head: string }>(
    db,
    Prisma.sql`SELECT coalesce(max(seq), 0) AS head FROM "OutboxEvent"`,
  );
  return Number(row.head);
}

/** When the message numbered `seq` was relayed; undefined when there is none (yet, or any more). */
export async function relayedAt(db: Db, seq: number): Promise<Date | undefined> {
  const [row] = await sqlRows<{ relayedAt: Date }>(
    db,
    Prisma.sql`SELECT "relayedAt" FROM "OutboxEvent" WHERE seq >= ${seq} ORDER BY seq LIMIT 1`,
  );
  return row?.relayedAt;
}
