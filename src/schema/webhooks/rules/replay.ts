// The webhook delivery log and its replay, written once for both callers: GraphQL (a buyer or supplier
// key, its own endpoints only) and the operator CLI (every endpoint, and `--force` past the three-hour
// rule). A replay makes the same delivery due again at once (same webhook-id and body, attempt log
// continued, retry schedule started afresh); docs/events.md ("Replay") gives the rules and why.
import { Prisma, type Db } from "../../../db.ts";
import { badInput, conflict, notFound, outOfScope } from "../../core/errors.ts";
import type { Audience } from "../../work-orders/public.ts";
import { DELIVERY_WINDOW_MS } from "./endpoints.ts";

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "expired"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Whose deliveries a caller may see and replay: an audience its own endpoints', the operator every one. */
type Reader = Audience | "operator";

export interface ReplayDeps {
  db: Db;
  now: () => Date;
}

export interface ReplayOptions {
  reader: Reader;
  /** Operator only: replay even when the change is more than three hours old. */
  force?: boolean;
}

const DEFAULT_LOG_LIMIT = 25;
const MAX_LOG_LIMIT = 100;
/** Most deliveries one redeliverFailures call hands back (the rest: call again). */
const MAX_REDELIVER_BATCH = 1000;

/** `where` over WebhookEndpoint for the endpoints a reader may see. */
function endpointWhere(reader: Reader): Prisma.WebhookEndpointWhereInput {
  if (reader === "operator") return {};
  return "buyerCompanyId" in reader
    ? { buyerCompanyId: reader.buyerCompanyId }
    : { supplierFacilityId: reader.supplierFacilityId };
}

/** `where` over WebhookDelivery for the deliveries a reader may see. */
function deliveryWhere(reader: Reader): Prisma.WebhookDeliveryWhereInput {
  return reader === "operator" ? {} : { endpoint: endpointWhere(reader) };
}

/** When the three-hour window of a delivery closes. */
export const windowClosesAt = (delivery: { eventAt: Date }) =>
  new Date(delivery.eventAt.getTime() + DELIVERY_WINDOW_MS);

export interface LogFilter {
  endpointId?: number | null;
  status?: DeliveryStatus | null;
  /** Deliveries of changes at or after this time. */
  since?: Date | null;
  limit?: number | null;
  offset?: number | null;
}

/** One page of the delivery log, newest first; filters are ANDed with the reader's scope. */
export async function listDeliveries<T = Prisma.WebhookDeliveryGetPayload<{ include: { attemptLog: true } }>>(
  db: Db,
  reader: Reader,
  filter: LogFilter,
  query: object = { include: { attemptLog: { orderBy: { attempt: "asc" } } } },
): Promise<{ data: T[]; count: number }> {
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw badInput("offset must not be negative");
  const limit = filter.limit ?? DEFAULT_LOG_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw badInput("limit must be at least 1");
  if (filter.status && !DELIVERY_STATUSES.includes(filter.status))
    throw badInput(`status must be one of ${DELIVERY_STATUSES.join(", ")}`);
  const where: Prisma.WebhookDeliveryWhereInput = {
    AND: [
      deliveryWhere(reader),
      filter.endpointId != null ? { endpointId: filter.endpointId } : {},
      filter.status ? { status: filter.status } : {},
      filter.since ? { eventAt: { gte: filter.since } } : {},
    ],
  };
  const [data, count] = await Promise.all([
    db.webhookDelivery.findMany({
      ...query,
      where,
      orderBy: [{ eventAt: "desc" }, { id: "desc" }],
      skip: offset,
      take: Math.min(limit, MAX_LOG_LIMIT),
    }),
    db.webhookDelivery.count({ where }),
  ]);
  return { data: data as T[], count };
}

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: { endpoint: true } }>;

/** Makes one delivery due again (see the file comment). The delivery is already in the caller's scope. */
async function replay(deps: ReplayDeps, delivery: DeliveryRow, force: boolean): Promise<void> {
  const now = deps.now();
  if (delivery.endpoint.disabledAt) throw badInput(`endpoint ${delivery.endpointId} is disabled`);
  if (!force && now.getTime() >= windowClosesAt(delivery).getTime()) {
    throw badInput(
      `delivery ${delivery.webhookId} is outside the three-hour window (the change was at ${delivery.eventAt.toISOString()}); ` +
        "reconcile by polling work orders filtered by statusChangedAt",
    );
  }
  // Due now, retry schedule afresh; held by an attempt right now: 409 (whatever happened since the read).
  const replayed = await deps.db.$executeRaw`
    UPDATE "WebhookDelivery"
       SET status = 'pending', "nextAttemptAt" = ${now}, "retriesFrom" = attempts ${force ? Prisma.sql`, "eventAt" = ${now}` : Prisma.empty}
     WHERE id = ${delivery.id} AND ("leaseUntil" IS NULL OR "leaseUntil" <= ${now})`;
  if (replayed === 0)
    throw conflict(`delivery ${delivery.webhookId} is being attempted right now; try again in a moment`);
}

async function findDelivery(db: Db, webhookId: string, reader: Reader): Promise<DeliveryRow> {
  const delivery = await db.webhookDelivery.findFirst({
    where: { AND: [{ webhookId }, deliveryWhere(reader)] },
    include: { endpoint: true },
  });
  if (delivery) return delivery;
  // Like every other record: "does not exist" is 404, "exists but not yours" is 400.
  throw reader !== "operator" && (await db.webhookDelivery.count({ where: { webhookId } })) > 0
    ? outOfScope()
    : notFound(`no webhook delivery ${webhookId}`);
}

/** Replays one delivery; returns it as it now is (pending, due now). */
export async function redeliverWebhook(deps: ReplayDeps, webhookId: string, options: ReplayOptions) {
  const delivery = await findDelivery(deps.db, webhookId, options.reader);
  await replay(deps, delivery, options.force === true);
  return deps.db.webhookDelivery.findUniqueOrThrow({
    where: { id: delivery.id },
    include: { attemptLog: { orderBy: { attempt: "asc" } } },
  });
}

export interface RedeliverFailuresResult {
  endpointId: number;
  /** webhook-ids handed over again. */
  redelivered: string[];
  /** Failures left alone, with the reason (outside the three-hour window, being attempted right now). */
  skipped: { webhookId: string; reason: string }[];
  /** More failures match than one call replays (MAX_REDELIVER_BATCH); call again. */
  more: boolean;
}

/**
 * Replays every failure of one endpoint for changes at or after `since`: given-up deliveries (failed,
 * expired) and deliveries still retrying after a failed attempt (which are retried at once).
 */
export async function redeliverFailures(
  deps: ReplayDeps,
  endpointId: number,
  since: Date,
  options: ReplayOptions,
): Promise<RedeliverFailuresResult> {
  if (Number.isNaN(since.getTime())) throw badInput("since must be an ISO 8601 time");
  const endpoint = await deps.db.webhookEndpoint.findFirst({
    where: { AND: [{ id: endpointId }, endpointWhere(options.reader)] },
  });
  if (!endpoint) {
    throw options.reader !== "operator" && (await deps.db.webhookEndpoint.count({ where: { id: endpointId } })) > 0
      ? outOfScope()
      : notFound(`no webhook endpoint ${endpointId}`);
  }
  const failures = await deps.db.webhookDelivery.findMany({
    where: {
      endpointId,
      eventAt: { gte: since },
      OR: [
        { status: { in: ["failed", "expired"] } },
        { status: "pending", attempts: { gt: 0 }, lastError: { not: null } },
      ],
    },
    include: { endpoint: true },
    orderBy: { id: "asc" },
    take: MAX_REDELIVER_BATCH + 1,
  });
  const result: RedeliverFailuresResult = {
    endpointId,
    redelivered: [],
    skipped: [],
    more: failures.length > MAX_REDELIVER_BATCH,
  };
  for (const delivery of failures.slice(0, MAX_REDELIVER_BATCH)) {
    try {
      await replay(deps, delivery, options.force === true);
      result.redelivered.push(delivery.webhookId);
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== 400 && status !== 409) throw error;
      result.skipped.push({ webhookId: delivery.webhookId, reason: (error as Error).message });
    }
  }
  return result;
}

/** A delivery as the operator CLI prints it (BigInt and dates made JSON-safe, body parsed). */
function deliveryJson(d: Prisma.WebhookDeliveryGetPayload<{ include: { attemptLog: true } }>) {
  return {
    webhookId: d.webhookId,
    endpointId: d.endpointId,
    eventId: d.eventId.toString(),
    eventType: d.eventType,
    status: d.status,
    eventAt: d.eventAt.toISOString(),
    replayableUntil: windowClosesAt(d).toISOString(),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    attemptCount: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    payload: JSON.parse(d.body) as unknown,
    attempts: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      error: a.error,
      at: a.at.toISOString(),
    })),
  };
}

// ---- the operator's delivery log and replay commands

export async function endpointDeliveries(
  db: Db,
  endpointId: number,
  filter: { status?: DeliveryStatus; since?: Date; limit?: number; offset?: number },
) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId } })))
    throw new Error(`no webhook endpoint ${endpointId}`);
  const page = await listDeliveries(db, "operator", { endpointId, ...filter });
  return { count: page.count, data: page.data.map(deliveryJson) };
}

export async function redeliver(db: Db, webhookId: string, force: boolean) {
  return deliveryJson(await redeliverWebhook({ db, now: () => new Date() }, webhookId, { reader: "operator", force }));
}

export async function redeliverEndpointFailures(db: Db, endpointId: number, since: Date, force: boolean) {
  return redeliverFailures({ db, now: () => new Date() }, endpointId, since, { reader: "operator", force });
}
