// Webhook delivery from the outbox, end to end: relay → BullMQ → signed POST to a real local receiver.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import crypto from "node:crypto";
import { startTestApp, type TestApp } from "../support/app.ts";
import { waitFor } from "../support/wait.ts";
import { context } from "../support/work-order-events.ts";
import { writeEvent, type WorkOrderEventContext } from "../../src/schema/work-orders/events.ts";
import type { ClaimedDelivery } from "../../src/schema/webhooks/jobs/delivery.ts";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let receiver: http.Server;
let received: Received[] = [];
let failuresLeft = 0;
let receiverUrl = "";
let workOrderId = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503).end();
        return;
      }
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  t = await startTestApp({
    configure: (c) => {
      c.roles.worker = true;
      c.webhookAllowInsecureUrls = true;
      c.webhookRetryScale = 0.002; // 5 s → 10 ms, 30 s → 60 ms, …
      c.relayIntervalMs = 20;
    },
  });
  await t.db.webhookEndpoint.updateMany({ data: { url: receiverUrl } });
  const { refs } = t.fixture;
  const wo = await t.db.workOrder.create({
    data: {
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      title: "Leaking unit",
      status: "PendingConfirmationByServiceProvider",
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
      statusChangedAt: new Date(),
    },
  });
  workOrderId = wo.id;
});
afterAll(async () => {
  await t?.close();
  receiver?.close();
});

const eventContext = (overrides: Partial<WorkOrderEventContext> = {}) => context(t, workOrderId, overrides);

const statusEvent = (changedAt: Date) => ({
  oldStatus: "PendingConfirmationByServiceProvider" as const,
  newStatus: "ConfirmedByServiceProvider" as const,
  changedBy: "Bob Tech",
  changedAt: changedAt.toISOString(),
  action: "confirm",
});

describe("webhook delivery", () => {
  it("delivers a committed event to the buyer's and the supplier's endpoints, signed both ways", async () => {
    received = [];
    const at = new Date();
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.status_update", eventContext(), statusEvent(at)));
    await waitFor(() => received.length >= 2 || undefined);
    const secrets = await t.db.webhookEndpoint.findMany({ orderBy: { id: "asc" } });
    const buyerHook = secrets.find((e) => e.buyerCompanyId === t.fixture.refs.acme)!;
    const byBody = received.map((r) => ({ ...r, json: JSON.parse(r.body) }));
    const buyer = byBody.find((r) => r.json.data.customer === undefined)!;
    const supplier = byBody.find((r) => r.json.data.customer === "Acme Foods")!;
    expect(Object.keys(buyer.json).sort()).toEqual(["data", "event_type"]);
    expect(buyer.json).toEqual({
      event_type: "workorder.status_update",
      data: {
        workOrderId,
        location: "Store 1 Portland",
        oldStatus: "PendingConfirmationByServiceProvider",
        newStatus: "ConfirmedByServiceProvider",
        changedBy: "Bob Tech",
        changedAt: at.toISOString(),
      },
    });
    expect(supplier.json.data.newStatus).toBe("ConfirmedByServiceProvider");
    // X-Signature-256 over the raw bytes
    const expected = `sha256=${crypto
      .createHmac("sha256", Buffer.from(buyerHook.secret.slice(6), "base64"))
      .update(buyer.body)
      .digest("hex")}`;
    expect(buyer.headers["x-signature-256"]).toBe(expected);
    // Standard Webhooks, verified with its own library as a receiver would
    const verified = new Webhook(buyerHook.secret).verify(buyer.body, buyer.headers as Record<string, string>);
    expect(verified).toEqual(buyer.json);
    expect(() =>
      new Webhook(buyerHook.secret).verify(buyer.body.replace("Bob", "Eve"), buyer.headers as Record<string, string>),
    ).toThrow();
  });

  it("retries a failed delivery with the same webhook-id and records every attempt", async () => {
    received = [];
    failuresLeft = 2;
    await t.db.$transaction((tx) =>
      writeEvent(tx, "workorder.status_update", eventContext({ supplierFacilityId: null }), statusEvent(new Date())),
    );
    const got = await waitFor(() => received[0]);
    const webhookId = got.headers["webhook-id"] as string;
    const delivery = await waitFor(() =>
      t.db.webhookDelivery.findFirst({
        where: { webhookId, status: "delivered" },
        include: { attemptLog: { orderBy: { attempt: "asc" } } },
      }),
    );
    expect(delivery.attempts).toBe(3);
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 204]);
    expect(delivery.attemptLog.every((a) => a.latencyMs >= 0)).toBe(true);
    expect(received.filter((r) => r.headers["webhook-id"] === webhookId)).toHaveLength(1);
  });

  it("never sends an event older than three hours", async () => {
    received = [];
    // A change three hours and a second ago (backdated before commit, so the relay only ever sees it old).
    const event = await t.db.$transaction(async (tx) => {
      await writeEvent(
        tx,
        "workorder.status_update",
        eventContext({ supplierFacilityId: null }),
        statusEvent(new Date()),
      );
      const row = await tx.outboxEvent.findFirstOrThrow({ orderBy: { id: "desc" } });
      return tx.outboxEvent.update({
        where: { id: row.id },
        data: { createdAt: new Date(Date.now() - 3 * 3600_000 - 1000) },
      });
    });
    const delivery = await waitFor(() =>
      t.db.webhookDelivery.findFirst({ where: { eventId: event.id, status: "expired" } }),
    );
    expect(delivery.attempts).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(received.filter((r) => r.headers["webhook-id"] === delivery.webhookId)).toHaveLength(0);
  });
});

describe("secret rotation and URL rules at delivery", () => {
  it("signs with both the new and the previous secret for 24 hours after a rotation", async () => {
    received = [];
    const { rotateEndpointSecret } = await import("../../src/schema/webhooks/rules/endpoints.ts");
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const rotated = await rotateEndpointSecret(t.db, endpoint.id);
    await t.db.$transaction((tx) =>
      writeEvent(tx, "workorder.status_update", eventContext({ supplierFacilityId: null }), statusEvent(new Date())),
    );
    const got = await waitFor(() => received[0]);
    const headers = got.headers as Record<string, string>;
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(headers["x-signature-256"].split(", ")).toHaveLength(2);
    // A receiver holding either secret verifies the same delivery.
    expect(new Webhook(rotated.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(new Webhook(endpoint.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    // Once the overlap has passed, only the new secret signs.
    await t.db.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    received = [];
    await t.db.$transaction((tx) =>
      writeEvent(tx, "workorder.status_update", eventContext({ supplierFacilityId: null }), statusEvent(new Date())),
    );
    const later = await waitFor(() => received[0]);
    expect((later.headers["webhook-signature"] as string).split(" ")).toHaveLength(1);
    expect(() => new Webhook(endpoint.secret).verify(later.body, later.headers as Record<string, string>)).toThrow();
  });
});

describe("endpoint URL rules and the attempt timeout", () => {
  let eventId = 999_000n;
  /** A delivery due only in an hour, so this file's running worker leaves it to the test. */
  async function ownDelivery(webhookId: string) {
    eventId++;
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const delivery = await t.db.webhookDelivery.create({
      data: {
        eventId,
        endpointId: endpoint.id,
        webhookId,
        eventType: "workorder.status_update",
        body: "{}",
        eventAt: new Date(),
        nextAttemptAt: new Date(Date.now() + 3_600_000),
      },
    });
    const attempt = (n: number) =>
      t.db.webhookAttempt.findFirstOrThrow({ where: { deliveryId: delivery.id, attempt: n } });
    return { endpoint, attempt };
  }
  /** Claims that delivery for the test's own deliverer, as the dispatcher would once it is due. */
  async function take(webhookId: string): Promise<ClaimedDelivery> {
    const [row] = await t.db.$queryRaw<ClaimedDelivery[]>`
      UPDATE "WebhookDelivery" d SET "leaseUntil" = now() + interval '1 minute' FROM "WebhookEndpoint" e
       WHERE d."webhookId" = ${webhookId} AND e.id = d."endpointId"
       RETURNING d.id, d."webhookId", d.body, d."eventAt", d.attempts, d."retriesFrom", d."leaseUntil",
                 e.url, e.mode::text AS mode, e.secret, e."previousSecret", e."previousSecretExpiresAt"`;
    return row;
  }
  /** Retries an hour and more away: the running worker never reaches them during this file. */
  const LATE = 1_000;
  async function withEndpointUrl(endpointId: number, url: string, body: () => Promise<void>) {
    await t.db.webhookEndpoint.update({ where: { id: endpointId }, data: { url } });
    try {
      await body();
    } finally {
      await t.db.webhookEndpoint.update({ where: { id: endpointId }, data: { url: receiverUrl } });
    }
  }

  it("refuses plain http and private addresses unless insecure URLs are allowed", async () => {
    const { createDeliverer } = await import("../../src/schema/webhooks/jobs/delivery.ts");
    const { endpoint, attempt } = await ownDelivery("msg_rules_test");
    const strict = createDeliverer({ db: t.db, now: () => new Date(), allowInsecureUrls: false, retryScale: LATE });
    try {
      expect(await strict.attempt(await take("msg_rules_test"))).toBe("retry");
      expect((await attempt(1)).error).toContain("https");
      expect((await attempt(1)).statusCode).toBeNull();
      await withEndpointUrl(endpoint.id, "https://127.0.0.1:1/hook", async () => {
        expect(await strict.attempt(await take("msg_rules_test"))).toBe("retry");
        expect((await attempt(2)).error).toContain("private");
      });
    } finally {
      await strict.close();
    }
  });

  it("refuses a host name that resolves to a private address, checked when connecting", async () => {
    const { createDeliverer } = await import("../../src/schema/webhooks/jobs/delivery.ts");
    const { endpoint, attempt } = await ownDelivery("msg_dns_test");
    const resolved: string[] = [];
    // hooks.example.com looks public; its DNS answer points inside the network.
    const lookup = ((
      hostname: string,
      _options: unknown,
      callback: (e: null, a: { address: string; family: number }[]) => void,
    ) => {
      resolved.push(hostname);
      callback(null, [{ address: "10.1.2.3", family: 4 }]);
    }) as unknown as typeof import("node:dns").lookup;
    const strict = createDeliverer({
      db: t.db,
      now: () => new Date(),
      allowInsecureUrls: false,
      lookup,
      retryScale: LATE,
    });
    try {
      await withEndpointUrl(endpoint.id, "https://hooks.example.com/hook", async () => {
        expect(await strict.attempt(await take("msg_dns_test"))).toBe("retry");
        const failed = await attempt(1);
        expect(failed.error).toContain("private address");
        expect(failed.statusCode).toBeNull();
        expect(resolved).toEqual(["hooks.example.com"]);
      });
    } finally {
      await strict.close();
    }
  });

  it("gives up an attempt that gets no answer within the timeout and records it", async () => {
    const { createDeliverer } = await import("../../src/schema/webhooks/jobs/delivery.ts");
    const { endpoint, attempt } = await ownDelivery("msg_timeout_test");
    // Accepts the request and never answers.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const deliverer = createDeliverer({
      db: t.db,
      now: () => new Date(),
      allowInsecureUrls: true,
      timeoutMs: 300,
      retryScale: LATE,
    });
    try {
      await withEndpointUrl(
        endpoint.id,
        `http://127.0.0.1:${(silent.address() as { port: number }).port}/hook`,
        async () => {
          const started = Date.now();
          expect(await deliverer.attempt(await take("msg_timeout_test"))).toBe("retry");
          expect(Date.now() - started).toBeGreaterThanOrEqual(300);
          const timedOut = await attempt(1);
          expect(timedOut.error).toBe("timed out after 0.3 s");
          expect(timedOut.statusCode).toBeNull();
          expect(timedOut.latencyMs).toBeGreaterThanOrEqual(290);
        },
      );
    } finally {
      await deliverer.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
