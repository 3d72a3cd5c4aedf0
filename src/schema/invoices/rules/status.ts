// Invoice status changes. `applyTransition` is the one place a status changes: a row of the table in
// state-machine.ts, the timestamp of the status entered, and the invoice-to-work-order status mapping
// (paid → the work order's `invoice_paid`, which writes its workorder.status_update event). On top of
// it: the publish preconditions, upload_and_publish, the buyer's progress actions and the auto-publish.
import { Prisma, type Db, type Tx } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import { findWritable, lockWritable } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { COMPLETED_STATUSES, invoicePaid, type Status } from "../../work-orders/public.ts";
import { withUploadedFile } from "../../files/public.ts";
import { ENTERED_AT, INVOICE_STATES, type BuyerAction, type InvoiceActorKind } from "./state-machine.ts";
import { invoiceScope } from "./scope.ts";

type Invoice = Prisma.InvoiceGetPayload<object>;
type Reader = Pick<Tx, "invoice" | "$queryRaw">;

/** Limit of upload_and_publish (the contract's 512 MB). */
export const INVOICE_PDF_MAX_BYTES = 512 * 1024 * 1024;

async function applyTransition(
  tx: Tx,
  invoice: Invoice,
  action: string,
  actor: InvoiceActorKind,
  now: Date,
  data: Prisma.InvoiceUncheckedUpdateInput = {},
  by?: { name: string; email: string },
): Promise<void> {
  const status = INVOICE_STATES.next(action, actor, invoice.status, { id: invoice.id });
  const stamp = ENTERED_AT[status];
  await tx.invoice.update({
    where: { id: invoice.id },
    data: { ...data, status, statusChangedAt: now, ...(stamp ? { [stamp]: now } : {}) },
  });
  if (status === "paid") await invoicePaid(tx, invoice.workOrderId, by ?? { name: "system", email: "" }, now);
}

/**
 * Why an invoice cannot be published now (the contract's preconditions beyond ownership), or null. The
 * work order row is share-locked, so it cannot leave Completed before the publish commits.
 */
async function publishRefusal(db: Reader, invoice: Invoice): Promise<string | null> {
  const [wo] = await db.$queryRaw<{ status: Status; company: string; supplierInvoiceEditing: boolean }[]>`
    SELECT w.status::text AS status, c.name AS company, c."supplierInvoiceEditing"
      FROM "WorkOrder" w JOIN "BuyerCompany" c ON c.id = w."buyerCompanyId"
     WHERE w.id = ${invoice.workOrderId} FOR SHARE OF w`;
  if (!COMPLETED_STATUSES.includes(wo.status)) {
    return `work order ${invoice.workOrderId} is ${wo.status}, not in display status Completed (${COMPLETED_STATUSES.join(", ")})`;
  }
  if (!wo.supplierInvoiceEditing) return `the configuration of ${wo.company} does not allow supplier invoice editing`;
  return null;
}

/** The contract's 400 unless the key's facility may publish `invoice` now. */
async function refuseUnpublishable(db: Reader, invoice: Invoice): Promise<void> {
  INVOICE_STATES.allowed("publish", "supplier", invoice.status, { id: invoice.id });
  const refusal = await publishRefusal(db, invoice);
  if (refusal) throw badInput(`invoice ${invoice.id} cannot be published: ${refusal}`);
}

/**
 * POST /invoice/file/upload_and_publish/{invoiceId}: the preconditions are checked before the body is
 * read (a refused publish does not receive 512 MB first) and again, under lock, before the commit.
 */
export async function uploadAndPublish(ctx: Context, invoiceId: number, query: object) {
  const scope = invoiceScope(ctx.viewer);
  await refuseUnpublishable(ctx.db, await findWritable<Invoice>(ctx.db.invoice, "invoice", invoiceId, scope));
  return withUploadedFile(ctx, { pdf: true }, async (tx, file) => {
    const invoice = await lockWritable<Invoice>(tx, "Invoice", "invoice", invoiceId, scope);
    await refuseUnpublishable(tx, invoice);
    await applyTransition(tx, invoice, "publish", "supplier", ctx.now(), { pdfFileId: file.id, pdfUrl: null });
    return tx.invoice.findUniqueOrThrow({ ...query, where: { id: invoiceId } });
  });
}

export interface InvoiceActionInput {
  id: number;
  notes?: string | null;
  glCode?: string | null;
}

/** PATCH /invoice/invoices/{approve|process|mark_paid|dispute}: the buyer's progress through the table. */
export function runInvoiceAction(ctx: Context, action: BuyerAction, input: InvoiceActionInput, query: object) {
  const scope = invoiceScope(ctx.viewer);
  const notes = input.notes?.trim() || null;
  if (action === "dispute" && !notes)
    throw badInput("notes is required to dispute an invoice: the reason the supplier will read");
  return inTransaction(ctx.db, async (tx) => {
    const invoice = await lockWritable<Invoice>(tx, "Invoice", "invoice", input.id, scope);
    let data: Prisma.InvoiceUncheckedUpdateInput = {};
    if (action === "approve") {
      const wo = await tx.workOrder.findUniqueOrThrow({ where: { id: invoice.workOrderId }, select: { glCode: true } });
      data = { approvalNotes: notes, glCode: input.glCode?.trim() || invoice.glCode || wo.glCode };
    } else if (action === "process") data = { processingNotes: notes };
    else if (action === "dispute") data = { disputeNotes: notes };
    await applyTransition(tx, invoice, action, "buyer", ctx.now(), data, {
      name: ctx.viewer.displayName,
      email: ctx.viewer.email,
    });
    return tx.invoice.findUniqueOrThrow({ ...query, where: { id: invoice.id } });
  });
}

/**
 * autoPublishOnApproval: publishes draft `id` if its work order is in display status Completed and the
 * buyer allows supplier invoice editing. Skips a row another transaction holds (it is looked at again
 * in the next round). True when it published.
 */
export async function autoPublish(tx: Tx, id: number, now: Date): Promise<boolean> {
  const locked = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM "Invoice" WHERE id = ${id} FOR UPDATE SKIP LOCKED`;
  if (!locked.length) return false;
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id } });
  if (invoice.status !== "draft" || !invoice.autoPublishOnApproval || (await publishRefusal(tx, invoice))) return false;
  await applyTransition(tx, invoice, "auto_publish", "system", now);
  return true;
}

/** One round of the auto-publish loop: the drafts waiting for it whose work order got to Completed. */
export async function autoPublishRound(db: Db, now: Date, batch = 100): Promise<number> {
  const candidates = await db.$queryRaw<{ id: number }[]>`
    SELECT i.id FROM "Invoice" i
      JOIN "WorkOrder" w ON w.id = i."workOrderId"
      JOIN "BuyerCompany" c ON c.id = i."buyerCompanyId"
     WHERE i.status = 'draft' AND i."autoPublishOnApproval" AND c."supplierInvoiceEditing"
       AND w.status::text IN (${Prisma.join([...COMPLETED_STATUSES])})
     ORDER BY i.id LIMIT ${batch}`;
  let published = 0;
  for (const { id } of candidates) {
    if (await inTransaction(db, (tx) => autoPublish(tx, id, now))) published++;
  }
  return published;
}
