// Parts consumed on work orders: taken from a stock location of the team for a work order the team
// serves; a negative quantity returns unused parts of that work order to stock.
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import type { ListSpec } from "../../core/list.ts";
import { inTransaction } from "../../core/transaction.ts";
import { workOrderScope } from "../../work-orders/public.ts";
import { changeStock } from "./stock.ts";
import { quantityOf, quantityText, RETURNABLE_QUANTITY, textOf, TEXT_MAX } from "../../core/values.ts";
import { checkReferences, teamOf, teamScope } from "./fields.ts";

export const WORK_ORDER_PART_LIST: ListSpec = {
  filters: { id: "int", workOrderId: "int", partId: "int", stockLocationId: "int", consumedBy: "string" },
  sortable: ["id", "consumedAt", "workOrderId", "partId"],
  defaultSort: { field: "id", order: "desc" },
};

export interface WorkOrderPartInput {
  workOrderId: number;
  partId: number;
  stockLocationId: number;
  quantity: string;
  note?: string | null;
  consumedAt?: Date | null;
}

/** Work orders the key's team serves: its facility is assigned or on the visibility list (the work orders' own scope). */
async function checkServedWorkOrder(ctx: Context, workOrderId: number, field: string) {
  const served = await ctx.db.workOrder.count({ where: { AND: [{ id: workOrderId }, workOrderScope(ctx.viewer)] } });
  if (served === 0) throw badInput(`${field} ${workOrderId} is not a work order this team serves`);
}

/**
 * Records the part and changes on-hand in one transaction. A return (negative quantity) may not give
 * back more of the part than the work order has net consumed; returns of one work order are serialised
 * by an advisory lock so two of them cannot both pass that check.
 */
export async function recordWorkOrderPart(ctx: Context, input: WorkOrderPartInput, query: object) {
  const supplierCompanyId = teamOf(ctx.viewer);
  const quantity = quantityOf(input.quantity, "quantity", RETURNABLE_QUANTITY);
  const note = input.note ? textOf(input.note, "note", TEXT_MAX) : null;
  await checkServedWorkOrder(ctx, input.workOrderId, "workOrderId");
  await checkReferences(ctx.viewer, input as unknown as Record<string, unknown>, {
    partId: { noun: "part", table: ctx.db.part },
    stockLocationId: { noun: "stock location", table: ctx.db.stockLocation },
  });
  const now = ctx.now();
  const id = await inTransaction(ctx.db, async (tx) => {
    if (quantity.isNegative()) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('WorkOrderPart'), ${input.workOrderId}::int)`;
      const consumed = await tx.workOrderPart.aggregate({
        where: { workOrderId: input.workOrderId, partId: input.partId, ...teamScope(ctx.viewer) },
        _sum: { quantity: true },
      });
      const net = consumed._sum.quantity;
      if (!net || net.lessThan(quantity.negated())) {
        throw badInput(
          `cannot return ${quantityText(quantity.negated())} of part ${input.partId}: work order ${input.workOrderId} has ${net ? quantityText(net) : "0.0000"} of it`,
        );
      }
    }
    await changeStock(
      tx,
      [{ stockLocationId: input.stockLocationId, partId: input.partId, delta: quantity.negated() }],
      now,
    );
    const row = await tx.workOrderPart.create({
      data: {
        supplierCompanyId,
        workOrderId: input.workOrderId,
        partId: input.partId,
        stockLocationId: input.stockLocationId,
        quantity,
        note,
        consumedBy: ctx.viewer.email,
        consumedAt: input.consumedAt ?? now,
      },
      select: { id: true },
    });
    return row.id;
  });
  return ctx.db.workOrderPart.findUniqueOrThrow({ ...query, where: { id } });
}
