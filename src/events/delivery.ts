// One delivery attempt of one webhook message: sign the stored body, POST it with a 10 s timeout,
// record the attempt, and say whether to retry. Any 2xx acknowledges. A message not handed over within
// three hours of the change is expired and never sent.
import dns from "node:dns/promises";
import DataLoader from "dataloader";
import type { Db } from "../db.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { signatureHeaders } from "./signing.ts";
import { DELIVERY_TIMEOUT_MS, DELIVERY_WINDOW_MS, endpointUrlProblem, isPrivateAddress, retryDelayMs } from "../schema/webhooks/rules.ts";

export interface DeliveryDeps {
  db: Db;
  now: () => Date;
  allowInsecureUrls: boolean;
  /** Batches the reads and writes of deliveries attempted at the same moment (see deliveryStore). */
  store: DeliveryStore;
}

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: { endpoint: true } }>;

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

export type DeliveryStore = ReturnType<typeof deliveryStore>;

/**
 * A worker runs many deliveries at once; each needs its row and then records its attempt. DataLoader
 * turns the concurrent ones into one SELECT and one INSERT+UPDATE statement, instead of two round
 * trips per delivery.
 */
export function deliveryStore(db: Db) {
  const rows = new DataLoader<string, DeliveryRow | undefined>(
    async (ids) => {
      const found = await db.webhookDelivery.findMany({ where: { webhookId: { in: [...ids] } }, include: { endpoint: true } });
      const byId = new Map(found.map((d) => [d.webhookId, d]));
      return ids.map((id) => byId.get(id));
    },
    { cache: false },
  );
  const attempts = new DataLoader<AttemptRecord, undefined>(
    async (records) => {
      const column = <K extends keyof AttemptRecord>(key: K) => records.map((r) => r[key]);
      await db.$executeRaw`
        WITH v AS (
          SELECT * FROM unnest(${column("deliveryId")}::int[], ${column("attempt")}::int[], ${column("statusCode")}::int[],
                               ${column("latencyMs")}::int[], ${column("error")}::text[], ${column("at")}::timestamptz[],
                               ${column("status")}::text[], ${column("deliveredAt")}::timestamptz[])
            AS v(id, attempt, code, latency, error, at, status, delivered)),
        logged AS (
          INSERT INTO "WebhookAttempt" ("deliveryId", attempt, "statusCode", "latencyMs", error, at)
          SELECT id, attempt, code, latency, error, at FROM v)
        UPDATE "WebhookDelivery" d
           SET attempts = v.attempt, "lastStatusCode" = v.code, "lastError" = v.error,
               status = v.status::"DeliveryStatus", "deliveredAt" = v.delivered
          FROM v WHERE d.id = v.id`;
      return records.map(() => undefined);
    },
    { cache: false },
  );
  return { load: (webhookId: string) => rows.load(webhookId), record: (r: AttemptRecord) => attempts.load(r) };
}

export type Outcome = "delivered" | "retry" | "expired" | "skipped";

/** Refuses URLs that resolve to private addresses (unless allowed): the check runs at send time, so DNS cannot be used to slip past it. */
async function urlProblem(url: string, allowInsecure: boolean): Promise<string | null> {
  const problem = endpointUrlProblem(url, allowInsecure);
  if (problem || allowInsecure) return problem;
  const addresses = await dns.lookup(new URL(url).hostname, { all: true }).catch(() => []);
  if (addresses.length === 0) return "host does not resolve";
  return addresses.some((a) => isPrivateAddress(a.address)) ? "resolves to a private address" : null;
}

export async function deliverOnce(deps: DeliveryDeps, webhookId: string): Promise<Outcome> {
  const delivery = await deps.store.load(webhookId);
  if (!delivery || delivery.status !== "pending") return "skipped";
  const started = deps.now();
  if (started.getTime() - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS) {
    await deps.db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: "expired" } });
    return "expired";
  }
  const endpoint = delivery.endpoint;
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > started) secrets.push(endpoint.previousSecret);
  const attempt = delivery.attempts + 1;
  const clock = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  const refused = await urlProblem(endpoint.url, deps.allowInsecureUrls);
  if (refused) error = `endpoint URL ${refused}`;
  else {
    try {
      const response = await fetch(endpoint.url, {
        method: "POST",
        body: delivery.body,
        redirect: "manual",
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          "content-type": "application/json",
          "user-agent": "wo-service-webhooks/1",
          "x-webhook-mode": endpoint.mode,
          ...signatureHeaders(delivery.body, { webhookId, timestamp: Math.floor(started.getTime() / 1000), secrets }),
        },
      });
      statusCode = response.status;
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (e) {
      error = (e as Error).name === "TimeoutError" ? `timed out after ${DELIVERY_TIMEOUT_MS / 1000} s` : (e as Error).message;
    }
  }
  const latencyMs = Math.round(performance.now() - clock);
  const ok = error === null;
  // Would the next attempt still fall inside the three-hour window?
  const nextAt = started.getTime() + retryDelayMs(attempt);
  const expired = !ok && nextAt - delivery.eventAt.getTime() > DELIVERY_WINDOW_MS;
  await deps.store.record({
    deliveryId: delivery.id, attempt, statusCode, latencyMs, error, at: started,
    status: ok ? "delivered" : expired ? "expired" : "pending", deliveredAt: ok ? deps.now() : null,
  });
  return ok ? "delivered" : expired ? "expired" : "retry";
}
