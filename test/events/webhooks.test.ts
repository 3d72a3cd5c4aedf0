// Webhook delivery from the outbox, end to end: relay → BullMQ → signed POST to a real local receiver.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import crypto from "node:crypto";
import { startTestApp, type TestApp } from "../support/app.ts";
import { writeEvent, type WorkOrderEventContext } from "../../src/events/outbox.ts";

interface Received { headers: http.IncomingHttpHeaders; body: string }

let t: TestApp;
let receiver: http.Server;
let received: Received[] = [];
let failuresLeft = 0;
let receiverUrl = "";
let workOrderId = 0;

const waitFor = async <T>(probe: () => Promise<T | null | undefined> | T | null | undefined, ms = 10_000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
};

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
      buyerCompanyId: refs.acme, buyerFacilityId: refs["acme-hq"], locationId: refs["store-1"], problemTypeId: refs.hvac,
      title: "Leaking unit", status: "PendingConfirmationByServiceProvider", createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"], statusChangedAt: new Date(),
    },
  });
  workOrderId = wo.id;
});
afterAll(async () => {
  await t?.close();
  receiver?.close();
});

function context(overrides: Partial<WorkOrderEventContext> = {}): WorkOrderEventContext {
  return {
    workOrderId, buyerCompanyId: t.fixture.refs.acme, customer: "Acme Foods", location: "Store 1 Portland",
    supplierFacilityId: t.fixture.refs["coolco-pdx"], visibleToSupplierFacilityIds: [], status: "ConfirmedByServiceProvider", ...overrides,
  };
}

const statusEvent = (changedAt: Date) => ({
  oldStatus: "PendingConfirmationByServiceProvider" as const, newStatus: "ConfirmedByServiceProvider" as const,
  changedBy: "Bob Tech", changedAt: changedAt.toISOString(), action: "confirm",
});

describe("webhook delivery", () => {
  it("delivers a committed event to the buyer's and the supplier's endpoints, signed both ways", async () => {
    received = [];
    const at = new Date();
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.status_update", context(), statusEvent(at)));
    await waitFor(() => received.length >= 2 || undefined);
    const secrets = await t.db.webhookEndpoint.findMany({ orderBy: { id: "asc" } });
    const buyerHook = secrets.find((e) => e.buyerCompanyId === t.fixture.refs.acme)!;
    const byBody = received.map((r) => ({ ...r, json: JSON.parse(r.body) }));
    const buyer = byBody.find((r) => r.json.data.customer === undefined)!;
    const supplier = byBody.find((r) => r.json.data.customer === "Acme Foods")!;
    expect(Object.keys(buyer.json).sort()).toEqual(["data", "event_type"]);
    expect(buyer.json).toEqual({
      event_type: "workorder.status_update",
      data: { workOrderId, location: "Store 1 Portland", oldStatus: "PendingConfirmationByServiceProvider", newStatus: "ConfirmedByServiceProvider", changedBy: "Bob Tech", changedAt: at.toISOString() },
    });
    expect(supplier.json.data.newStatus).toBe("ConfirmedByServiceProvider");
    // X-Signature-256 over the raw bytes
    const expected = `sha256=${crypto.createHmac("sha256", Buffer.from(buyerHook.secret.slice(6), "base64")).update(buyer.body).digest("hex")}`;
    expect(buyer.headers["x-signature-256"]).toBe(expected);
    // Standard Webhooks, verified with its own library as a receiver would
    const verified = new Webhook(buyerHook.secret).verify(buyer.body, buyer.headers as Record<string, string>);
    expect(verified).toEqual(buyer.json);
    expect(() => new Webhook(buyerHook.secret).verify(buyer.body.replace("Bob", "Eve"), buyer.headers as Record<string, string>)).toThrow();
  });

  it("retries a failed delivery with the same webhook-id and records every attempt", async () => {
    received = [];
    failuresLeft = 2;
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.status_update", context({ supplierFacilityId: null }), statusEvent(new Date())));
    const got = await waitFor(() => received[0]);
    const webhookId = got.headers["webhook-id"] as string;
    const delivery = await waitFor(() => t.db.webhookDelivery.findFirst({ where: { webhookId, status: "delivered" }, include: { attemptLog: { orderBy: { attempt: "asc" } } } }));
    expect(delivery.attempts).toBe(3);
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 204]);
    expect(delivery.attemptLog.every((a) => a.latencyMs >= 0)).toBe(true);
    expect(received.filter((r) => r.headers["webhook-id"] === webhookId)).toHaveLength(1);
  });

  it("never sends an event older than three hours", async () => {
    received = [];
    // A change three hours and a second ago (backdated before commit, so the relay only ever sees it old).
    const event = await t.db.$transaction(async (tx) => {
      await writeEvent(tx, "workorder.status_update", context({ supplierFacilityId: null }), statusEvent(new Date()));
      const row = await tx.outboxEvent.findFirstOrThrow({ orderBy: { id: "desc" } });
      return tx.outboxEvent.update({ where: { id: row.id }, data: { createdAt: new Date(Date.now() - 3 * 3600_000 - 1000) } });
    });
    const delivery = await waitFor(() => t.db.webhookDelivery.findFirst({ where: { eventId: event.id, status: "expired" } }));
    expect(delivery.attempts).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(received.filter((r) => r.headers["webhook-id"] === delivery.webhookId)).toHaveLength(0);
  });
});

describe("secret rotation and URL rules at delivery", () => {
  it("signs with both the new and the previous secret for 24 hours after a rotation", async () => {
    received = [];
    const { rotateEndpointSecret } = await import("../../src/operator/webhooks.ts");
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const rotated = await rotateEndpointSecret(t.db, endpoint.id);
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.status_update", context({ supplierFacilityId: null }), statusEvent(new Date())));
    const got = await waitFor(() => received[0]);
    const headers = got.headers as Record<string, string>;
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(headers["x-signature-256"].split(", ")).toHaveLength(2);
    // A receiver holding either secret verifies the same delivery.
    expect(new Webhook(rotated.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(new Webhook(endpoint.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    // Once the overlap has passed, only the new secret signs.
    await t.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1000) } });
    received = [];
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.status_update", context({ supplierFacilityId: null }), statusEvent(new Date())));
    const later = await waitFor(() => received[0]);
    expect((later.headers["webhook-signature"] as string).split(" ")).toHaveLength(1);
    expect(() => new Webhook(endpoint.secret).verify(later.body, later.headers as Record<string, string>)).toThrow();
  });
});

describe("endpoint URL rules", () => {
  it("refuses plain http and private addresses unless insecure URLs are allowed", async () => {
    const { deliverOnce, deliveryStore } = await import("../../src/events/delivery.ts");
    const endpoint = await t.db.webhookEndpoint.findFirstOrThrow({ where: { buyerCompanyId: t.fixture.refs.acme } });
    const delivery = await t.db.webhookDelivery.create({
      // Marked as handed over already, so this file's running worker leaves it to the test.
      data: { eventId: 999_999n, endpointId: endpoint.id, webhookId: "msg_rules_test", eventType: "workorder.status_update", body: "{}", eventAt: new Date(), enqueuedAt: new Date() },
    });
    const strict = { db: t.db, now: () => new Date(), allowInsecureUrls: false, store: deliveryStore(t.db) };
    expect(await deliverOnce(strict, delivery.webhookId)).toBe("retry");
    const attempt = await t.db.webhookAttempt.findFirstOrThrow({ where: { deliveryId: delivery.id, attempt: 1 } });
    expect(attempt.error).toContain("https");
    expect(attempt.statusCode).toBeNull();
    await t.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { url: "https://127.0.0.1:1/hook" } });
    try {
      expect(await deliverOnce(strict, delivery.webhookId)).toBe("retry");
      const second = await t.db.webhookAttempt.findFirstOrThrow({ where: { deliveryId: delivery.id, attempt: 2 } });
      expect(second.error).toContain("private");
    } finally {
      await t.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { url: receiverUrl } });
    }
  });
});
