// Purchase requests: what the team asks to buy (lines of parts or free text, optionally for a work
// order), created as drafts, submitted, and approved or rejected. Ordering is orders.ts's business.
import type { Context } from "../../core/context.ts";
import { enumFilter, type ListSpec } from "../../core/list.ts";
import { decimalOf, MONEY, textOf, TEXT_MAX } from "../../core/values.ts";
import { lockWritable } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { teamOf, teamScope } from "../../inventory/public.ts";
import { badInput } from "../../core/errors.ts";
import { workOrderScope } from "../../work-orders/public.ts";
import { readLines, type LineInput } from "./records.ts";
import { REQUEST_STATES, REQUEST_STATUSES, type RequestStatus } from "./request-states.ts";

export const REQUEST_LIST: ListSpec = {
  filters: { id: "int", status: "string", requestedBy: "string", approvedBy: "string", rejectedBy: "string" },
  sortable: ["id", "status", "createdAt", "updatedAt", "statusChangedAt", "neededBy"],
  defaultSort: { field: "id", order: "desc" },
};
export const checkRequestFilter = enumFilter("status", REQUEST_STATUSES);

export const REQUEST_LINE_LIST: ListSpec = {
  filters: { id: "int", partId: "int", workOrderId: "int", purchaseOrderLineItemId: "int" },
  sortable: ["id", "quantity"],
  defaultSort: { field: "id", order: "asc" },
};

export const requestScope = teamScope;

interface RequestLineInput extends LineInput {
  estimatedUnitCost?: string | null;
  workOrderId?: number | null;
}

export interface RequestInput {
  description?: string | null;
  neededBy?: Date | null;
  lineItems: RequestLineInput[];
}

/** A draft request of the key's team; an estimated unit cost defaults to the part's unit cost. */
export async function createRequest(ctx: Context, input: RequestInput, query: object) {
  const supplierCompanyId = teamOf(ctx.viewer);
  const { lines, parts } = await readLines(ctx, input.lineItems);
  const workOrderIds = [...new Set(lines.flatMap((l) => (l.line.workOrderId ? [l.line.workOrderId] : [])))];
  const served = workOrderIds.length
    ? await ctx.db.workOrder.findMany({
        where: { AND: [{ id: { in: workOrderIds } }, workOrderScope(ctx.viewer)] },
        select: { id: true },
      })
    : [];
  const unserved = workOrderIds.filter((id) => !served.some((w) => w.id === id));
  if (unserved.length)
    throw badInput(`lineItems[].workOrderId ${unserved.join(", ")}: not a work order this team serves`);
  const now = ctx.now();
  return ctx.db.purchaseRequest.create({
    ...query,
    data: {
      supplierCompanyId,
      status: REQUEST_STATES.rows[0].to[0],
      description: input.description != null ? textOf(input.description, "description", TEXT_MAX) : null,
      neededBy: input.neededBy ?? null,
      requestedBy: ctx.viewer.email,
      statusChangedAt: now,
      lineItems: {
        create: lines.map(({ line, partId, description, quantity }, i) => ({
          partId,
          description,
          quantity,
          workOrderId: line.workOrderId ?? null,
          estimatedUnitCost:
            line.estimatedUnitCost != null
              ? decimalOf(line.estimatedUnitCost, `lineItems[${i}].estimatedUnitCost`, MONEY)
              : partId !== null
                ? parts.get(partId)!.unitCost
                : null,
        })),
      },
    },
  });
}

export type RequestAction = "submit" | "approve" | "reject";

/** submit, approve or reject (with a reason), through the request transition table. */
export async function changeRequest(
  ctx: Context,
  action: RequestAction,
  id: number,
  reason: string | null | undefined,
  query: object,
) {
  const why = action === "reject" ? textOf(reason ?? "", "reason", TEXT_MAX, true) : null;
  const now = ctx.now();
  await inTransaction(ctx.db, async (tx) => {
    const request = await lockWritable<{ status: RequestStatus }>(
      tx,
      "PurchaseRequest",
      "purchase request",
      id,
      teamScope(ctx.viewer),
      { select: { status: true } },
    );
    const status = REQUEST_STATES.next(action, action === "submit" ? "team" : "approver", request.status);
    const stamp = {
      submit: { submittedAt: now },
      approve: { approvedAt: now, approvedBy: ctx.viewer.email },
      reject: { rejectedAt: now, rejectedBy: ctx.viewer.email, rejectionReason: why },
    }[action];
    await tx.purchaseRequest.update({ where: { id }, data: { status, statusChangedAt: now, ...stamp } });
  });
  return ctx.db.purchaseRequest.findUniqueOrThrow({ ...query, where: { id } });
}
