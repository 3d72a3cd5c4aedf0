// `operator webhooks add|rotate|list`: endpoints are registered by the operator on request.
import type { Db } from "../db.ts";
import { endpointUrlProblem, newSigningSecret, SECRET_OVERLAP_MS, WEBHOOK_EVENTS, type WebhookEvent } from "../schema/webhooks/rules.ts";
// Delivery log and replay (`operator webhooks deliveries|redeliver|redeliver-failures`): src/events/replay.ts.
import { deliveryJson, listDeliveries, redeliverFailures, redeliverWebhook, type DeliveryStatus, type JobRemover } from "../events/replay.ts";

export async function addEndpoint(
  db: Db,
  options: { buyerCompanyId?: number; supplierFacilityId?: number; url: string; events: string[]; mode: "test" | "production"; allowInsecure: boolean },
) {
  if (!options.buyerCompanyId === !options.supplierFacilityId) throw new Error("give exactly one of --buyer-company or --supplier-facility");
  const problem = endpointUrlProblem(options.url, options.allowInsecure);
  if (problem) throw new Error(`url ${problem}`);
  const owner = options.buyerCompanyId
    ? await db.buyerCompany.findUnique({ where: { id: options.buyerCompanyId } })
    : await db.supplierFacility.findUnique({ where: { id: options.supplierFacilityId! } });
  if (!owner) throw new Error(options.buyerCompanyId ? `no buyer company ${options.buyerCompanyId}` : `no supplier facility ${options.supplierFacilityId}`);
  const unknown = options.events.filter((e) => !WEBHOOK_EVENTS.includes(e as WebhookEvent));
  if (unknown.length || options.events.length === 0) throw new Error(`events must be some of ${WEBHOOK_EVENTS.join(", ")}`);
  const row = await db.webhookEndpoint.create({
    data: {
      url: options.url, events: options.events, mode: options.mode, secret: newSigningSecret(),
      buyerCompanyId: options.buyerCompanyId ?? null, supplierFacilityId: options.supplierFacilityId ?? null,
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
    data: { secret: newSigningSecret(), previousSecret: row.secret, previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS) },
  });
  return { id, secret: updated.secret, previousSecretExpiresAt: updated.previousSecretExpiresAt!.toISOString() };
}

export async function listEndpoints(db: Db, filter: { buyerCompanyId?: number; supplierFacilityId?: number }) {
  const rows = await db.webhookEndpoint.findMany({ where: filter, orderBy: { id: "asc" } });
  return rows.map((r) => ({
    id: r.id, url: r.url, events: r.events, mode: r.mode,
    buyerCompanyId: r.buyerCompanyId, supplierFacilityId: r.supplierFacilityId,
    rotating: r.previousSecretExpiresAt !== null && r.previousSecretExpiresAt > new Date(),
  }));
}

// ---- delivery log and replay (the rules are in src/events/replay.ts, shared with GraphQL) ----

export async function endpointDeliveries(db: Db, endpointId: number, filter: { status?: DeliveryStatus; since?: Date; limit?: number; offset?: number }) {
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId } }))) throw new Error(`no webhook endpoint ${endpointId}`);
  const page = await listDeliveries(db, "operator", { endpointId, ...filter });
  return { count: page.count, data: page.data.map(deliveryJson) };
}

export async function redeliver(db: Db, queue: JobRemover, webhookId: string, force: boolean) {
  return deliveryJson(await redeliverWebhook({ db, queue, now: () => new Date() }, webhookId, { owner: "operator", force }));
}

export async function redeliverEndpointFailures(db: Db, queue: JobRemover, endpointId: number, since: Date, force: boolean) {
  return redeliverFailures({ db, queue, now: () => new Date() }, endpointId, since, { owner: "operator", force });
}
