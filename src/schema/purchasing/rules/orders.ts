// Purchase orders: one vendor, lines of parts or free text; approved request lines are associated with
// order lines while the order is a draft; marking it ordered orders the requests whose every line is
// now on an ordered purchase order; cancelling frees the lines again.
import { Prisma, type Tx } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import { enumFilter, type ListSpec } from "../../core/list.ts";
import { decimalOf, MONEY, quantityText, textOf, TEXT_MAX } from "../../core/values.ts";
import { lockWritable } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { activeVendor, teamOf, teamScope } from "../../inventory/public.ts";
import { readLines, type LineInput } from "./records.ts";
import { ORDER_STATES, ORDER_STATUSES, ORDERED, type OrderStatus } from "./order-states.ts";
import { REQUEST_STATES } from "./request-states.ts";

export const ORDER_LIST: ListSpec = {
  filters: { id: "int", status: "string", vendorId: "int", createdBy: "string" },
  sortable: ["id", "status", "vendorId", "createdAt", "updatedAt", "statusChangedAt", "orderedAt", "expectedAt"],
  defaultSort: { field: "id", order: "desc" },
};
export const checkOrderFilter = enumFilter("status", ORDER_STATUSES);

export const ORDER_LINE_LIST: ListSpec = {
  filters: { id: "int", partId: "int" },
  sortable: ["id", "quantity", "quantityReceived"],
  defaultSort: { field: "id", order: "asc" },
};

export const orderScope = teamScope;

interface OrderLineInput extends LineInput {
  unitCost?: string | null;
}

export interface OrderInput {
  vendorId: number;
  notes?: string | null;
  expectedAt?: Date | null;
  lineItems: OrderLineInput[];
}

/** A draft order of the key's team for one active vendor; a unit cost defaults to the part's. */
export async function createOrder(ctx: Context, input: OrderInput, query: object) {
  const supplierCompanyId = teamOf(ctx.viewer);
  await activeVendor(ctx, input.vendorId, "vendorId");
  const { lines, parts } = await readLines(ctx, input.lineItems);
  const now = ctx.now();
  return ctx.db.purchaseOrder.create({
    ...query,
    data: {
      supplierCompanyId,
      vendorId: input.vendorId,
      status: ORDER_STATES.rows[0].to[0],
      notes: input.notes != null ? textOf(input.notes, "notes", TEXT_MAX) : null,
      expectedAt: input.expectedAt ?? null,
      createdBy: ctx.viewer.email,
      statusChangedAt: now,
      lineItems: {
        create: lines.map(({ line, partId, description, quantity }, i) => {
          const unitCost =
            line.unitCost != null
              ? decimalOf(line.unitCost, `lineItems[${i}].unitCost`, MONEY)
              : partId !== null
                ? parts.get(partId)!.unitCost
                : null;
          if (unitCost === null)
            throw badInput(`lineItems[${i}].unitCost is required (the line names no part with a unit cost)`);
          return { partId, description, quantity, unitCost };
        }),
      },
    },
  });
}

/** Locks the order and reads what a change needs. */
async function lockOrder(tx: Tx, ctx: Context, id: number) {
  return lockWritable<{ id: number; status: OrderStatus }>(
    tx,
    "PurchaseOrder",
    "purchase order",
    id,
    teamScope(ctx.viewer),
    { select: { id: true, status: true } },
  );
}

/** Ids of the requests with lines on the order, locked in id order (no deadlock between two orders). */
async function lockRequestsOf(tx: Tx, orderId: number): Promise<number[]> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT r.id FROM "PurchaseRequest" r
     WHERE r.id IN (SELECT l."purchaseRequestId" FROM "PurchaseRequestLineItem" l
                      JOIN "PurchaseOrderLineItem" o ON o.id = l."purchaseOrderLineItemId"
                     WHERE o."purchaseOrderId" = ${orderId})
     ORDER BY r.id FOR UPDATE OF r`;
  return rows.map((r) => r.id);
}

/** mark_ordered: the order is sent; every request whose lines are now all on ordered orders becomes ordered. */
export async function markOrdered(ctx: Context, id: number, query: object) {
  const now = ctx.now();
  await inTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, ctx, id);
    const status = ORDER_STATES.next("mark_ordered", "team", order.status);
    await tx.purchaseOrder.update({ where: { id }, data: { status, orderedAt: now, statusChangedAt: now } });
    const requestIds = await lockRequestsOf(tx, id);
    if (requestIds.length === 0) return;
    // Requests still waiting: approved ones with a line not on an ordered order (read after the locks).
    const waiting = await tx.purchaseRequest.findMany({
      where: {
        id: { in: requestIds },
        lineItems: {
          some: {
            OR: [
              { purchaseOrderLineItemId: null },
              { purchaseOrderLineItem: { purchaseOrder: { status: { notIn: [...ORDERED] } } } },
            ],
          },
        },
      },
      select: { id: true },
    });
    const complete = await tx.purchaseRequest.findMany({
      where: { id: { in: requestIds, notIn: waiting.map((r) => r.id) }, status: "approved" },
      select: { id: true, status: true },
    });
    for (const request of complete) {
      await tx.purchaseRequest.update({
        where: { id: request.id },
        data: { status: REQUEST_STATES.next("order", "system", request.status), orderedAt: now, statusChangedAt: now },
      });
    }
  });
  return ctx.db.purchaseOrder.findUniqueOrThrow({ ...query, where: { id } });
}

/** cancel (draft or ordered): the order's request lines are freed, and ordered requests among them reopen. */
export async function cancelOrder(ctx: Context, id: number, reason: string | null | undefined, query: object) {
  const why = reason != null ? textOf(reason, "reason", TEXT_MAX) : null;
  const now = ctx.now();
  await inTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, ctx, id);
    const status = ORDER_STATES.next("cancel", "team", order.status);
    await tx.purchaseOrder.update({
      where: { id },
      data: { status, cancelledAt: now, cancellationReason: why, statusChangedAt: now },
    });
    const requestIds = await lockRequestsOf(tx, id);
    await tx.purchaseRequestLineItem.updateMany({
      where: { purchaseOrderLineItem: { purchaseOrderId: id } },
      data: { purchaseOrderLineItemId: null },
    });
    const reopened = await tx.purchaseRequest.findMany({
      where: { id: { in: requestIds }, status: "ordered" },
      select: { id: true, status: true },
    });
    for (const request of reopened) {
      await tx.purchaseRequest.update({
        where: { id: request.id },
        data: {
          status: REQUEST_STATES.next("reopen", "system", request.status),
          orderedAt: null,
          statusChangedAt: now,
        },
      });
    }
  });
  return ctx.db.purchaseOrder.findUniqueOrThrow({ ...query, where: { id } });
}

/** Most request lines one order line may take. */
const MAX_ASSOCIATED = 500;

function requestLineIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) throw badInput("ids is required and must be an array of purchase request line item ids");
  if (ids.length > MAX_ASSOCIATED) throw badInput(`ids may hold at most ${MAX_ASSOCIATED} ids`);
  const bad = ids.filter((id) => !Number.isSafeInteger(id));
  if (bad.length) throw badInput(`ids must be whole numbers; got ${bad.map((id) => JSON.stringify(id)).join(", ")}`);
  return [...new Set(ids as number[])];
}

/**
 * PUT …/line_items/{lineItemId}/purchase_request_line_items: the full set of request lines the order
 * line covers ([] clears). Only while the order is a draft; each line must be of an approved request of
 * the team, not on another order line, for the order line's part (free-text request lines fit any
 * line), and together need no more than the order line's quantity. Returns the lines now associated.
 */
export async function associateRequestLines(
  ctx: Context,
  orderId: number,
  lineItemId: number,
  rawIds: unknown,
  query: object,
) {
  const ids = requestLineIds(rawIds);
  await inTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, ctx, orderId);
    if (order.status !== "draft")
      throw badInput(`request lines can be associated only while the purchase order is a draft; it is ${order.status}`);
    const orderLine = await tx.purchaseOrderLineItem.findFirst({ where: { id: lineItemId, purchaseOrderId: orderId } });
    if (!orderLine) throw badInput(`purchase order ${orderId} has no line item ${lineItemId}`);
    if (ids.length)
      await tx.$queryRaw`SELECT id FROM "PurchaseRequestLineItem" WHERE id IN (${Prisma.join(ids)}) ORDER BY id FOR UPDATE`;
    const lines = await tx.purchaseRequestLineItem.findMany({
      where: { id: { in: ids }, purchaseRequest: teamScope(ctx.viewer) },
      include: { purchaseRequest: { select: { id: true, status: true } } },
      orderBy: { id: "asc" },
    });
    const unknown = ids.filter((id) => !lines.some((l) => l.id === id));
    if (unknown.length) throw badInput(`ids ${unknown.join(", ")}: not purchase request line items of this team`);
    for (const line of lines) {
      const request = line.purchaseRequest;
      if (request.status !== "approved") {
        throw badInput(
          `line item ${line.id} belongs to purchase request ${request.id} in status ${request.status}; only lines of approved requests can be ordered`,
        );
      }
      if (line.purchaseOrderLineItemId !== null && line.purchaseOrderLineItemId !== lineItemId) {
        throw badInput(`line item ${line.id} is already on purchase order line item ${line.purchaseOrderLineItemId}`);
      }
      if (line.partId !== null && line.partId !== orderLine.partId) {
        throw badInput(
          `line item ${line.id} is for part ${line.partId}; purchase order line item ${lineItemId} is ${orderLine.partId === null ? "free text" : `for part ${orderLine.partId}`}`,
        );
      }
    }
    const needed = lines.reduce((sum, l) => sum.plus(l.quantity), new Prisma.Decimal(0));
    if (needed.greaterThan(orderLine.quantity)) {
      throw badInput(
        `the request lines need ${quantityText(needed)}, more than the ${quantityText(orderLine.quantity)} of purchase order line item ${lineItemId}`,
      );
    }
    await tx.purchaseRequestLineItem.updateMany({
      where: { purchaseOrderLineItemId: lineItemId, id: { notIn: ids } },
      data: { purchaseOrderLineItemId: null },
    });
    if (ids.length)
      await tx.purchaseRequestLineItem.updateMany({
        where: { id: { in: ids } },
        data: { purchaseOrderLineItemId: lineItemId },
      });
  });
  const data = await ctx.db.purchaseRequestLineItem.findMany({
    ...query,
    where: { purchaseOrderLineItemId: lineItemId },
    orderBy: { id: "asc" },
  });
  return { data, count: data.length };
}
