// 200 concurrent changes of one part's on-hand at one stock location, through the API: receipts and
// returns on four purchase orders, parts taken for a work order and returned from it. On-hand is kept
// low so that many changes must be refused. Afterwards the on-hand equals the start plus the sum of the
// accepted changes (no lost update, never below zero), and a refused change wrote nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../src/db.ts";
import type { TestApp } from "../support/app.ts";
import { sleep } from "../support/wait.ts";
import { catalog, create, ok, onHand, PARTNERS, servedWorkOrder, startPurchasingApp, TEAM } from "./helpers.ts";

let t: TestApp;
beforeAll(async () => (t = await startPurchasingApp()));
afterAll(() => t?.close());

const call = (method: string, path: string, body?: unknown) => t.call(TEAM, method, `${PARTNERS}${path}`, body);

interface Change {
  kind: "receipt" | "vendor return" | "consumption" | "work order return";
  /** Change of on-hand if accepted. */
  delta: number;
  send: () => Promise<{ status: number; body: any; headers: Headers }>;
}

describe("on-hand under concurrency", () => {
  it("200 concurrent receipts, returns and consumptions: final on-hand = start + accepted changes; refused ones write nothing", async () => {
    const { vendor, part, location } = await catalog(t);
    const wo = await servedWorkOrder(t);
    const orders: { id: number; lineItems: { id: number }[] }[] = [];
    for (let i = 0; i < 4; i++) {
      const order = await create(t, "/purchasing/purchase_orders", {
        vendorId: vendor.id,
        lineItems: [{ partId: part.id, quantity: "1000" }],
      });
      await ok(call("PATCH", `/purchasing/purchase_orders/${order.id}/mark_ordered`));
      // Enough received on each line that a return is never refused for the line's sake, only for on-hand.
      await ok(
        call("POST", `/purchasing/purchase_orders/${order.id}/receipts`, {
          lines: [
            { purchaseOrderLineItemId: order.lineItems[0].id, quantityReceived: "50", stockLocationId: location.id },
          ],
        }),
      );
      orders.push(order);
    }
    // Enough consumed on the work order that returns from it are never refused.
    await ok(
      call("POST", "/inventory/work_order_parts", {
        workOrderId: wo.id,
        partId: part.id,
        stockLocationId: location.id,
        quantity: "200",
      }),
    );
    await ok(
      call("PATCH", `/inventory/stock_locations/${location.id}`, { onHand: [{ partId: part.id, quantity: "5" }] }),
    );
    const start = new Prisma.Decimal((await onHand(t, location.id, part.id))!);
    const rowsBefore = {
      receiptLines: await t.db.receiptLine.count(),
      workOrderParts: await t.db.workOrderPart.count(),
    };
    const receivedBefore = await t.db.purchaseOrderLineItem.aggregate({
      where: { partId: part.id },
      _sum: { quantityReceived: true },
    });

    // Supply: 60 × +1 received, 40 × +1 returned from the work order. Demand: 40 × −1 back to vendors,
    // 60 × −2 taken. Starting at 5, at least 55 units must be refused.
    const changes: Change[] = [];
    const receipt = (i: number, quantity: string) => () =>
      call("POST", `/purchasing/purchase_orders/${orders[i % 4].id}/receipts`, {
        lines: [
          {
            purchaseOrderLineItemId: orders[i % 4].lineItems[0].id,
            quantityReceived: quantity,
            stockLocationId: location.id,
          },
        ],
      });
    const taken = (quantity: string) => () =>
      call("POST", "/inventory/work_order_parts", {
        workOrderId: wo.id,
        partId: part.id,
        stockLocationId: location.id,
        quantity,
      });
    for (let i = 0; i < 60; i++) changes.push({ kind: "receipt", delta: 1, send: receipt(i, "1") });
    for (let i = 0; i < 40; i++) changes.push({ kind: "vendor return", delta: -1, send: receipt(i, "-1") });
    for (let i = 0; i < 60; i++) changes.push({ kind: "consumption", delta: -2, send: taken("2") });
    for (let i = 0; i < 40; i++) changes.push({ kind: "work order return", delta: 1, send: taken("-1") });
    // Interleave the kinds (a fixed shuffle, so a failure can be replayed).
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = changes.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [changes[i], changes[j]] = [changes[j], changes[i]];
    }

    // As an integrator's client would: a 503 "busy" (the connection pool stayed full for its bounded wait;
    // the request did nothing) is sent again after its Retry-After, so every change gets its real answer.
    const answered = async (change: Change) => {
      for (let attempt = 1; ; attempt++) {
        const reply = await change.send();
        if (reply.status !== 503 || attempt === 20) return reply;
        expect(reply.body.message).toMatch(/^the service is busy right now/);
        await sleep(Number(reply.headers.get("retry-after")) * 1000);
      }
    };
    const replies = await Promise.all(changes.map(answered));

    const accepted = changes.filter((_, i) => replies[i].status === 200);
    const refused = changes.filter((_, i) => replies[i].status !== 200);
    for (const [i, reply] of replies.entries()) {
      if (reply.status === 200) continue;
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.message).toMatch(/would go below zero/);
      expect(changes[i].delta).toBeLessThan(0);
    }
    expect(refused.reduce((units, c) => units - c.delta, 0)).toBeGreaterThanOrEqual(55);
    expect(accepted.length).toBeGreaterThan(0);

    const sum = accepted.reduce((total, c) => total + c.delta, 0);
    const final = new Prisma.Decimal((await onHand(t, location.id, part.id))!);
    expect(final.toFixed(4)).toBe(start.plus(sum).toFixed(4));
    expect(final.isNegative()).toBe(false);

    // Refused changes wrote nothing: exactly one row per accepted change, and the order lines moved by the accepted receipts only.
    const acceptedReceipts = accepted.filter((c) => c.kind === "receipt" || c.kind === "vendor return");
    expect(await t.db.receiptLine.count()).toBe(rowsBefore.receiptLines + acceptedReceipts.length);
    expect(await t.db.workOrderPart.count()).toBe(
      rowsBefore.workOrderParts + accepted.length - acceptedReceipts.length,
    );
    const receivedAfter = await t.db.purchaseOrderLineItem.aggregate({
      where: { partId: part.id },
      _sum: { quantityReceived: true },
    });
    expect(receivedAfter._sum.quantityReceived!.minus(receivedBefore._sum.quantityReceived!).toNumber()).toBe(
      acceptedReceipts.reduce((s, c) => s + c.delta, 0),
    );
    // The ledger agrees: the stock count, then every receipt line and work order part recorded after it.
    const ledger = await t.db.$queryRaw<{ net: Prisma.Decimal }[]>`
      SELECT (SELECT COALESCE(SUM(l."quantityReceived"), 0) FROM "ReceiptLine" l WHERE l.id > (SELECT MAX(id) FROM "ReceiptLine") - ${acceptedReceipts.length})
           - (SELECT COALESCE(SUM(p.quantity), 0) FROM "WorkOrderPart" p WHERE p.id > (SELECT MAX(id) FROM "WorkOrderPart") - ${accepted.length - acceptedReceipts.length}) AS net`;
    expect(new Prisma.Decimal(ledger[0].net).toNumber()).toBe(sum);
  }, 120_000);
});
