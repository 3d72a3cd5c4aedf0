// Receipts against a purchase order: each line adds the quantity received to the order line and to the
// stock location's on-hand (a negative quantity returns parts to the vendor and takes them away). In one
// transaction under the order's row lock: an order line never holds more than was ordered nor less than
// zero, on-hand never goes below zero, and a refused receipt writes nothing.
import type { Prisma } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import type { ListSpec } from "../../core/list.ts";
import { lockWritable } from "../../core/tenancy.ts";
import { inTransaction, joinable } from "../../core/transaction.ts";
import { quantityOf, quantityText, RETURNABLE_QUANTITY, textOf, TEXT_MAX } from "../../core/values.ts";
import { changeStock, refuseUnknown, teamScope, teamStockLocations, type StockChange } from "../../inventory/public.ts";
import { ORDER_STATES } from "./order-states.ts";

export const RECEIPT_LIST: ListSpec = {
  filters: { id: "int", receivedBy: "string" },
  sortable: ["id", "receivedAt", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

const MAX_RECEIPT_LINES = 200;

type OrderWithLines = Prisma.PurchaseOrderGetPayload<{ include: { lineItems: true } }>;

interface ReceiptLineInput {
  purchaseOrderLineItemId: number;
  quantityReceived: string;
  stockLocationId?: number | null;
}

export interface ReceiptInput {
  receivedAt?: Date | null;
  note?: string | null;
  lines: ReceiptLineInput[];
}

export async function recordReceipt(ctx: Context, orderId: number, input: ReceiptInput, query: object) {
  if (input.lines.length === 0) throw badInput("lines must hold at least one line");
  if (input.lines.length > MAX_RECEIPT_LINES) throw badInput(`lines may hold at most ${MAX_RECEIPT_LINES} lines`);
  const note = input.note != null ? textOf(input.note, "note", TEXT_MAX) : null;
  const lines = input.lines.map((l, i) => ({
    ...l,
    quantity: quantityOf(l.quantityReceived, `lines[${i}].quantityReceived`, RETURNABLE_QUANTITY),
  }));
  const locationIds = lines.flatMap((l) => (l.stockLocationId ? [l.stockLocationId] : []));
  const now = ctx.now();

  const receiptId = await inTransaction(ctx.db, async (tx) => {
    const order = await lockWritable<OrderWithLines>(
      tx,
      "PurchaseOrder",
      "purchase order",
      orderId,
      teamScope(ctx.viewer),
      { include: { lineItems: true } },
    );
    refuseUnknown(
      "lines[].stockLocationId",
      "stock location",
      locationIds,
      await teamStockLocations({ ...ctx, db: joinable(tx) }, locationIds),
    );
    // Refuses a draft or cancelled order before the lines are checked.
    ORDER_STATES.allowed("receive", "team", order.status);

    const orderLines = new Map(order.lineItems.map((l) => [l.id, l]));
    refuseUnknown(
      "lines[].purchaseOrderLineItemId",
      `line item of purchase order ${orderId}`,
      lines.map((l) => l.purchaseOrderLineItemId),
      orderLines,
    );
    const received = new Map(order.lineItems.map((l) => [l.id, l.quantityReceived]));
    const stock: StockChange[] = [];
    lines.forEach((line, i) => {
      const orderLine = orderLines.get(line.purchaseOrderLineItemId)!;
      if (orderLine.partId !== null) {
        if (!line.stockLocationId)
          throw badInput(`lines[${i}].stockLocationId is required: the order line is for part ${orderLine.partId}`);
        stock.push({ stockLocationId: line.stockLocationId, partId: orderLine.partId, delta: line.quantity });
      }
      received.set(orderLine.id, received.get(orderLine.id)!.plus(line.quantity));
    });
    for (const orderLine of order.lineItems) {
      const total = received.get(orderLine.id)!;
      if (total.greaterThan(orderLine.quantity)) {
        throw badInput(
          `line item ${orderLine.id} would be received ${quantityText(total)} of ${quantityText(orderLine.quantity)} ordered; receiving more than was ordered is refused`,
        );
      }
      if (total.isNegative()) {
        throw badInput(
          `line item ${orderLine.id} has ${quantityText(orderLine.quantityReceived)} received; more than that cannot be returned`,
        );
      }
    }

    await changeStock(tx, stock, now);
    const receipt = await tx.receipt.create({
      data: {
        purchaseOrderId: orderId,
        receivedAt: input.receivedAt ?? now,
        receivedBy: ctx.viewer.email,
        note,
        lines: {
          create: lines.map((l) => ({
            purchaseOrderLineItemId: l.purchaseOrderLineItemId,
            stockLocationId: l.stockLocationId ?? null,
            quantityReceived: l.quantity,
          })),
        },
      },
      select: { id: true },
    });
    for (const orderLine of order.lineItems) {
      const total = received.get(orderLine.id)!;
      if (!total.equals(orderLine.quantityReceived)) {
        await tx.purchaseOrderLineItem.update({ where: { id: orderLine.id }, data: { quantityReceived: total } });
      }
    }
    const all = order.lineItems.every((l) => received.get(l.id)!.equals(l.quantity));
    const none = order.lineItems.every((l) => received.get(l.id)!.isZero());
    const status = ORDER_STATES.next("receive", "team", order.status, {
      facts: { received: all ? "all" : none ? "none" : "some" },
    });
    if (status !== order.status) {
      await tx.purchaseOrder.update({
        where: { id: orderId },
        data: { status, statusChangedAt: now, receivedAt: status === "received" ? now : null },
      });
    }
    return receipt.id;
  });
  return ctx.db.receipt.findUniqueOrThrow({ ...query, where: { id: receiptId } });
}
