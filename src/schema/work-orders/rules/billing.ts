// What invoices do to a work order (the invoice-to-work-order status mapping): an invoice marked paid
// moves the work order to PaymentMade through the table's `invoice_paid` row (actor system), with its
// statusChanges entry and workorder.status_update event, in the invoice's transaction.
import type { Tx } from "../../../db.ts";
import { lockForChange } from "./scope.ts";
import { changeStatus, factsOf } from "./status.ts";
import type { Status } from "./state-machine.ts";

/**
 * Applies `invoice_paid` to work order `id`. A work order already PaymentMade (an earlier invoice was
 * paid) stays as it is; any status the table does not allow it from is the table's 400.
 */
export async function invoicePaid(tx: Tx, id: number, by: { name: string; email: string }, now: Date): Promise<Status> {
  const wo = await lockForChange(tx, id, { id });
  if (wo.status === "PaymentMade") return wo.status;
  return changeStatus(tx, wo, { action: "invoice_paid", actor: { kind: "system", ...by }, facts: factsOf(wo), now });
}
