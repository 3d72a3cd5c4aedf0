// Webhook endpoints (docs/decisions.md#webhooks): registered, rotated, listed, disabled, enabled and deleted by the
// operator; their URL rules, signing secrets, retry schedule and the three-hour window.
import net from "node:net";
import type { Db, Tx } from "../../../db.ts";
import { inTransaction } from "../../core/transaction.ts";
import { EVENT_TYPES, type EventType } from "../../work-orders/public.ts";

/** Rotated-out secrets keep signing (next to the new one) this long. */
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) return true;
  if (net.isIPv4(h)) {
    const [a, b] = h.split(".").map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (net.isIPv6(h))
    return (
      h === "::1" ||
      h === "::" ||
      h.startsWith("fc") ||
      h.startsWith("fd") ||
      h.startsWith("fe80") ||
      h.startsWith("::ffff:")
    );
  return false;
}

/** Why a URL may not be a webhook endpoint, or null when it may. */
export function endpointUrlProblem(url: string, allowInsecure: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL";
  }
  if (parsed.protocol !== "https:" && !(allowInsecure && parsed.protocol === "http:")) {
    return allowInsecure
      ? "must be http or https"
      : "must be https (set WEBHOOK_ALLOW_INSECURE_URLS=true for development)";
  }
  if (!allowInsecure && isPrivateAddress(parsed.hostname)) return "must not point at a private or local address";
  return null;
}

/** Signing secrets in the Standard Webhooks form. */
export function newSigningSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

/** Retry delays after the 1st, 2nd, … failed attempt; then hourly (docs/decisions.md#webhooks). */
const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
const HOUR = 3_600_000;

export function retryDelayMs(failedAttempts: number): number {
  return RETRY_DELAYS_MS[failedAttempts - 1] ?? HOUR;
}

/** An event not handed over within three hours of the change is expired and never sent. */
export const DELIVERY_WINDOW_MS = 3 * HOUR;

/** A delivery attempt times out after 10 s. */
export const DELIVERY_TIMEOUT_MS = 10_000;

// ---- the operator's endpoint commands

export async function addEndpoint(
  db: Db,
  options: {
    buyerCompanyId?: number;
    supplierFacilityId?: number;
    url: string;
    events: string[];
    mode: "test" | "production";
    allowInsecure: boolean;
  },
) {
  if (!options.buyerCompanyId === !options.supplierFacilityId)
    throw new Error("give exactly one of --buyer-company or --supplier-facility");
  const problem = endpointUrlProblem(options.url, options.allowInsecure);
  if (problem) throw new Error(`url ${problem}`);
  const owner = options.buyerCompanyId
    ? await db.buyerCompany.findUnique({ where: { id: options.buyerCompanyId } })
    : await db.supplierFacility.findUnique({ where: { id: options.supplierFacilityId! } });
  if (!owner)
    throw new Error(
      options.buyerCompanyId
        ? `no buyer company ${options.buyerCompanyId}`
        : `no supplier facility ${options.supplierFacilityId}`,
    );
  const unknown = options.events.filter((e) => !EVENT_TYPES.includes(e as EventType));
  if (unknown.length || options.events.length === 0)
    throw new Error(`events must be some of ${EVENT_TYPES.join(", ")}`);
  const row = await db.webhookEndpoint.create({
    data: {
      url: options.url,
      events: options.events,
      mode: options.mode,
      secret: newSigningSecret(),
      buyerCompanyId: options.buyerCompanyId ?? null,
      supplierFacilityId: options.supplierFacilityId ?? null,
    },
  });
  return { id: row.id, secret: row.secret };
}

/** A new secret; the old one keeps signing next to it for 24 hours so receivers can switch over. */
export async function rotateEndpointSecret(db: Db, id: number, now = new Date()) {
  const row = await db.webhookEndpoint.findUnique({ where: { id } });
  if (!row) throw new Error(`no webhook endpoint ${id}`);
  const updated = await db.webhookEndpoint.update({
    where: { id },
    data: {
      secret: newSigningSecret(),
      previousSecret: row.secret,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
    },
  });
  return { id, secret: updated.secret, previousSecretExpiresAt: updated.previousSecretExpiresAt!.toISOString() };
}

export async function listEndpoints(db: Db, filter: { buyerCompanyId?: number; supplierFacilityId?: number }) {
  const rows = await db.webhookEndpoint.findMany({ where: filter, orderBy: { id: "asc" } });
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    events: r.events,
    mode: r.mode,
    buyerCompanyId: r.buyerCompanyId,
    supplierFacilityId: r.supplierFacilityId,
    rotating: r.previousSecretExpiresAt !== null && r.previousSecretExpiresAt > new Date(),
    disabledAt: r.disabledAt?.toISOString() ?? null,
  }));
}

async function endpointOrFail(db: Db | Tx, id: number) {
  const row = await db.webhookEndpoint.findUnique({ where: { id } });
  if (!row) throw new Error(`no webhook endpoint ${id}`);
  return row;
}

/** Why the operator stopped the deliveries that were still pending when an endpoint was disabled. */
const DISABLED_ERROR = "endpoint disabled by the operator";

/**
 * Disabling stops everything at once: the relay creates no deliveries for the endpoint, and the ones
 * still pending (waiting for a first attempt or a retry) become `failed`, so the worker skips them.
 * After enabling, `redeliver-failures` sends them again. Disabling twice keeps the first time.
 */
export async function disableEndpoint(db: Db, id: number, now = new Date()) {
  return inTransaction(db, async (tx) => {
    const row = await endpointOrFail(tx, id);
    const disabledAt = row.disabledAt ?? now;
    if (!row.disabledAt) await tx.webhookEndpoint.update({ where: { id }, data: { disabledAt } });
    const stopped = await tx.webhookDelivery.updateMany({
      where: { endpointId: id, status: "pending" },
      data: { status: "failed", lastError: DISABLED_ERROR, nextAttemptAt: null, leaseUntil: null },
    });
    return { id, disabledAt: disabledAt.toISOString(), pendingDeliveriesStopped: stopped.count };
  });
}

/** Events relayed from now on are delivered again; earlier ones are not (see disableEndpoint). */
export async function enableEndpoint(db: Db, id: number) {
  await endpointOrFail(db, id);
  await db.webhookEndpoint.update({ where: { id }, data: { disabledAt: null } });
  return { id, disabledAt: null };
}

/** Deletes an endpoint with its delivery log (attempts included); a worker holding one finds nothing to send. */
export async function deleteEndpoint(db: Db, id: number) {
  return inTransaction(db, async (tx) => {
    await endpointOrFail(tx, id);
    const deliveries = await tx.webhookDelivery.deleteMany({ where: { endpointId: id } });
    await tx.webhookEndpoint.delete({ where: { id } });
    return { id, deleted: true, deliveriesDeleted: deliveries.count };
  });
}
