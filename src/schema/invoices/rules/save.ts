// The supplier's invoice save: create a draft, or update a draft / revise a disputed invoice, with
// everything derived from the work order. See docs/commerce.md "Invoices".
import type { Prisma } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { badInput, notAcceptable } from "../../core/errors.ts";
import { lockWritable } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { isHttpUrl } from "../../core/url.ts";
import { assignedWorkOrder, mismatchMessage, rollUpCosts } from "../../proposals/public.ts";
import { INVOICE_STATES } from "./state-machine.ts";
import { INVOICE_TOTALS, invoiceScope } from "./scope.ts";
import { taxLineProblems, taxLines, taxLinesTotal, type TaxLine } from "./taxes.ts";
import { autoPublish } from "./status.ts";

type Invoice = Prisma.InvoiceGetPayload<object>;

export interface InvoiceInput extends Record<string, unknown> {
  id?: number | null;
  workOrderId: number;
  invoiceNumber?: string | null;
  dateOfInvoice?: Date | null;
  poNumber?: string | null;
  serviceCallIds?: number[] | null;
  taxLineItems?: unknown;
  invoicePDFLink?: string | null;
  autoPublishOnApproval?: boolean | null;
}

const text = (value: string | null | undefined, field: string, max: number) => {
  const trimmed = value?.trim();
  if (trimmed && trimmed.length > max) throw badInput(`${field} is longer than ${max} characters`);
  return trimmed || null;
};

/** POST /invoice/invoices: a new draft, or with `id` an update of the facility's own draft (or disputed) invoice. */
export async function saveInvoice(ctx: Context, input: InvoiceInput, query: object) {
  const viewer = ctx.viewer;
  const scope = invoiceScope(viewer);
  if (input.invoicePDFLink != null && !isHttpUrl(input.invoicePDFLink))
    throw badInput("invoicePDFLink must be a valid http(s) URL");
  const invoiceNumber = text(input.invoiceNumber, "invoiceNumber", 100);
  const poNumber = text(input.poNumber, "poNumber", 100);
  const sentTaxLines = input.taxLineItems == null ? undefined : taxLines(input.taxLineItems);
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    let stored: Invoice | null = null;
    let revised: Invoice["status"] | null = null;
    if (input.id != null) {
      stored = await lockWritable<Invoice>(tx, "Invoice", "invoice", input.id, scope);
      revised = INVOICE_STATES.next("revise", "supplier", stored.status, { id: stored.id, refuse: notAcceptable });
      if (stored.workOrderId !== input.workOrderId)
        throw badInput(`workOrderId cannot change: invoice ${stored.id} is for work order ${stored.workOrderId}`);
    }
    const wo = await assignedWorkOrder(tx, viewer, input.workOrderId);
    const calls = await tx.serviceCall.findMany({
      where: { workOrderId: wo.id },
      select: { id: true },
      orderBy: { id: "asc" },
    });
    const serviceCallIds = input.serviceCallIds?.length ? [...new Set(input.serviceCallIds)] : calls.map((c) => c.id);
    const stray = serviceCallIds.filter((id) => !calls.some((c) => c.id === id));
    if (stray.length) throw badInput(`serviceCallIds ${stray.join(", ")} are not service calls of work order ${wo.id}`);

    // Save-level validation (406): the currency's tax lines, the totals, the invoice number.
    const currency = wo.currencyId ?? wo.location.currency;
    const lines =
      sentTaxLines ?? (input.taxLineItems === null || !stored ? [] : (stored.taxLineItems as unknown as TaxLine[]));
    const costs = rollUpCosts(input, stored, INVOICE_TOTALS, taxLinesTotal(lines));
    const problems = [
      ...taxLineProblems(lines, currency, costs.beforeTax),
      ...(costs.mismatches.length ? [mismatchMessage(costs.mismatches)] : []),
    ];
    if (invoiceNumber) {
      const taken = await tx.invoice.findFirst({
        where: { supplierFacilityId: viewer.supplierFacilityId!, invoiceNumber, id: { not: stored?.id ?? -1 } },
        select: { id: true },
      });
      if (taken)
        problems.push(`invoiceNumber ${invoiceNumber} is already used by invoice ${taken.id} of this facility`);
    }
    if (problems.length) throw notAcceptable(problems.join("; "));

    const keep = <T>(sent: T | null | undefined, field: keyof Invoice, fallback: T) =>
      sent !== undefined ? (sent ?? fallback) : stored ? (stored[field] as T) : fallback;
    const data = {
      ...costs.data,
      taxLineItems: lines as unknown as Prisma.InputJsonValue,
      currency,
      invoiceNumber: input.invoiceNumber === undefined && stored ? stored.invoiceNumber : invoiceNumber,
      dateOfInvoice: keep(input.dateOfInvoice, "dateOfInvoice", now),
      poNumber: poNumber ?? (input.poNumber === undefined && stored ? stored.poNumber : wo.poNumber),
      serviceCallIds,
      autoPublishOnApproval: keep(input.autoPublishOnApproval, "autoPublishOnApproval", false),
      // A link given becomes the single PDF entry (replacing an uploaded one); null removes the PDF.
      ...(input.invoicePDFLink !== undefined ? { pdfUrl: input.invoicePDFLink, pdfFileId: null } : {}),
      workOrderId: wo.id,
      buyerCompanyId: wo.buyerCompanyId,
      buyerFacilityId: wo.buyerFacilityId,
      locationId: wo.locationId,
      problemTypeId: wo.problemTypeId,
      spendCategoryId: wo.spendCategoryId,
      // revise: a draft stays a draft, a disputed invoice goes back to draft.
      ...(stored && revised !== stored.status ? { status: revised, statusChangedAt: now } : {}),
    } as Prisma.InvoiceUncheckedCreateInput;
    const id = stored
      ? (await tx.invoice.update({ where: { id: stored.id }, data, select: { id: true } })).id
      : (
          await tx.invoice.create({
            data: {
              ...data,
              supplierFacilityId: viewer.supplierFacilityId!,
              createdById: viewer.contactId,
              statusChangedAt: now,
            },
            select: { id: true },
          })
        ).id;
    // Already Completed: the flag publishes the draft at once (otherwise the worker does when it gets there).
    if (data.autoPublishOnApproval) await autoPublish(tx, id, now);
    return tx.invoice.findUniqueOrThrow({ ...query, where: { id } });
  });
}
