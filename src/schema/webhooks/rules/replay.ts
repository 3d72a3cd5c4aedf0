// The webhook delivery log and its replay, written once for both callers: GraphQL (a buyer or supplier
// key, its own endpoints only) and the operator CLI (every endpoint, and `--force` past the three-hour
// rule). A replay hands the same delivery over again (same webhook-id and body, attempt log continued)
// through the relay; docs/events.md ("Replay") gives the rules and why.
import type { Db, Prisma } from "../../../db.ts";
import { badInput, conflict, notFound, outOfScope } from "../../core/errors.ts";
import type { Audience } from "../../work-orders/public.ts";
import { DELIVERY_WINDOW_MS } from "./endpoints.ts";

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "expired"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Whose deliveries a caller may see and replay: an audience its own endpoints', the operator every one. */
type Reader = Audience | "operator";

/** The part of a BullMQ queue a replay needs. */
export interface JobRemover {
  remove(jobId: string): Promise<number>;
}

export interface ReplayDeps {
  db: Db;
  queue: JobRemover;
  now: () => Date;
}

export interface ReplayOptions {
  reader: Reader;
  /** Operator only: replay even when the change is more than three hours old. */
  force?: boolean;
}

export const DEFAULT_LOG_LIMIT = 25;
export const MAX_LOG_LIMIT = 100;
/** Most deliveries one redeliverFailures call hands back (the rest: call again). */
export const MAX_REDELIVER_BATCH = 1000;

/** `where` over WebhookEndpoint for the endpoints a reader may see. */
export function endpointWhere(reader: Reader): Prisma.WebhookEndpointWhereInput {
  if (reader === "operator") return {};
  return "buyerCompanyId" in reader ? { buyerCompanyId: reader.buyerCompanyId } : { supplierFacilityId: reader.supplierFacilityId };
}

/** `where` over WebhookDelivery for the deliveries a reader may see. */
export function deliveryWhere(reader: Reader): Prisma.WebhookDeliveryWhereInput {
  return reader === "operator" ? {} : { endpoint: endpointWhere(reader) };
}

/** When the three-hour window of a delivery closes. */
export const windowClosesAt = (delivery: { eventAt: Date }) => new Date(delivery.eventAt.getTime() + DELIVERY_WINDOW_MS);

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
  if (filter.status && !DELIVERY_STATUSES.includes(filter.status)) throw badInput(`status must be one of ${DELIVERY_STATUSES.join(", ")}`);
  const where: Prisma.WebhookDeliveryWhereInput = {
    AND: [
      deliveryWhere(reader),
      filter.endpointId != null ? { endpointId: filter.endpointId } : {},
      filter.status ? { status: filter.status } : {},
      filter.since ? { eventAt: { gte: filter.since } } : {},
    ],
  };
  const [data, count] = await Promise.all([
    db.webhookDelivery.findMany({ ...query, where, orderBy: [{ eventAt: "desc" }, { id: "desc" }], skip: offset, take: Math.min(limit, MAX_LOG_LIMIT) }),
    db.webhookDelivery.count({ where }),
  ]);
  return { data: data as T[], count };
}

/** Removes the delivery's old BullMQ job (if any); a job being attempted right now is waited for briefly. */
async function removeOldJob(queue: JobRemover, webhookId: string): Promise<void> {
  for (let tries = 0; tries < 20; tries++) {
    if ((await withTimeout(queue.remove(webhookId), 5_000, "the queue (Redis) did not answer")) === 1) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw conflict(`delivery ${webhookId} is being attempted right now; try again in a moment`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: { endpoint: true } }>;

/** Hands one delivery over again (see the file comment). The delivery is already in the caller's scope. */
async function replay(deps: ReplayDeps, delivery: DeliveryRow, force: boolean): Promise<void> {
  const now = deps.now();
  if (delivery.endpoint.disabledAt) throw badInput(`endpoint ${delivery.endpointId} is disabled`);
  if (!force && now.getTime() >= windowClosesAt(delivery).getTime()) {
    throw badInput(
      `delivery ${delivery.webhookId} is outside the three-hour window (the change was at ${delivery.eventAt.toISOString()}); ` +
        "reconcile by polling work orders filtered by statusChangedAt",
    );
  }
  const freshWindow = force ? { eventAt: now } : {};
  if (delivery.status === "pending" && delivery.enqueuedAt === null) {
    // Not handed over yet: the relay will do so; nothing to remove (and removing could race its hand-over).
    if (force) await deps.db.webhookDelivery.update({ where: { id: delivery.id }, data: freshWindow });
    return;
  }
  await removeOldJob(deps.queue, delivery.webhookId);
  // Unconditional: whatever happened since the read, no job is left, so the relay must hand it over again.
  await deps.db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: "pending", enqueuedAt: null, ...freshWindow } });
}

async function findDelivery(db: Db, webhookId: string, reader: Reader): Promise<DeliveryRow> {
  const delivery = await db.webhookDelivery.findFirst({ where: { AND: [{ webhookId }, deliveryWhere(reader)] }, include: { endpoint: true } });
  if (delivery) return delivery;
  // Like every other record: "does not exist" is 404, "exists but not yours" is 400.
  throw reader !== "operator" && (await db.webhookDelivery.count({ where: { webhookId } })) > 0 ? outOfScope() : notFound(`no webhook delivery ${webhookId}`);
}

/** Replays one delivery; returns it as it now is (pending, about to be handed over). */
export async function redeliverWebhook(deps: ReplayDeps, webhookId: string, options: ReplayOptions) {
  const delivery = await findDelivery(deps.db, webhookId, options.reader);
  await replay(deps, delivery, options.force === true);
  return deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptLog: { orderBy: { attempt: "asc" } } } });
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
export async function redeliverFailures(deps: ReplayDeps, endpointId: number, since: Date, options: ReplayOptions): Promise<RedeliverFailuresResult> {
  if (Number.isNaN(since.getTime())) throw badInput("since must be an ISO 8601 time");
  const endpoint = await deps.db.webhookEndpoint.findFirst({ where: { AND: [{ id: endpointId }, endpointWhere(options.reader)] } });
  if (!endpoint) {
    throw options.reader !== "operator" && (await deps.db.webhookEndpoint.count({ where: { id: endpointId } })) > 0
      ? outOfScope()
      : notFound(`no webhook endpoint ${endpointId}`);
  }
  const failures = await deps.db.webhookDelivery.findMany({
    where: {
      endpointId,
      eventAt: { gte: since },
      OR: [{ status: { in: ["failed", "expired"] } }, { status: "pending", attempts: { gt: 0 }, lastError: { not: null } }],
    },
    include: { endpoint: true },
    orderBy: { id: "asc" },
    take: MAX_REDELIVER_BATCH + 1,
  });
  const result: RedeliverFailuresResult = { endpointId, redelivered: [], skipped: [], more: failures.length > MAX_REDELIVER_BATCH };
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
export function deliveryJson(d: Prisma.WebhookDeliveryGetPayload<{ include: { attemptLog: true } }>) {
  return {
    webhookId: d.webhookId,
    endpointId: d.endpointId,
    eventId: d.eventId.toString(),
    eventType: d.eventType,
    status: d.status,
    eventAt: d.eventAt.toISOString(),
    replayableUntil: windowClosesAt(d).toISOString(),
    enqueuedAt: d.enqueuedAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    attemptCount: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    payload: JSON.parse(d.body) as unknown,
    attempts: d.attemptLog.map((a) => ({ attempt: a.attempt, statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error, at: a.at.toISOString() })),
  };
}

// ---- the operator's delivery log and replay commands

export async function endpointDeliveries(db: Db, endpointId: number, filter: { status?: DeliveryStatus; since?: Date; limit?: number; offset?: number }) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId } }))) throw new Error(`no webhook endpoint ${endpointId}`);
  const page = await listDeliveries(db, "operator", { endpointId, ...filter });
  return { count: page.count, data: page.data.map(deliveryJson) };
}

export async function redeliver(db: Db, queue: JobRemover, webhookId: string, force: boolean) {
  return deliveryJson(await redeliverWebhook({ db, queue, now: () => new Date() }, webhookId, { reader: "operator", force }));
}

export async function redeliverEndpointFailures(db: Db, queue: JobRemover, endpointId: number, since: Date, force: boolean) {
  return redeliverFailures({ db, queue, now: () => new Date() }, endpointId, since, { reader: "operator", force });
}
