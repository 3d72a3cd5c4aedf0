// The invoice type (buyer-private fields masked for third-party supplier keys, declared once here), its
// tax lines and single PDF entry, and the write bodies.
import { builder } from "../core/builder.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { costFields, costInputFields } from "../proposals/public.ts";
import { fileUrl } from "../files/public.ts";
import { INVOICE_STATUSES } from "./rules/state-machine.ts";
import { INVOICE_TOTALS } from "./rules/scope.ts";
import type { TaxLine } from "./rules/taxes.ts";

export const InvoiceStatusEnum = builder.enumType("InvoiceStatus", { values: INVOICE_STATUSES });

const TaxLineRef = builder.objectRef<TaxLine>("TaxLine").implement({
  description: "A sales tax of a CAD invoice",
  fields: (t) => ({
    type: t.exposeString("type", { description: "GST, HST or PST" }),
    rate: t.exposeString("rate", { nullable: true, description: "Percent, when given" }),
    amount: t.exposeString("amount"),
  }),
});

interface PdfEntry {
  url: string;
  fileId: number | null;
  name: string | null;
  contentType: string | null;
  size: number | null;
}

const PdfEntryRef = builder.objectRef<PdfEntry>("InvoicePdf").implement({
  description: "The invoice's single PDF: a link the supplier gave, or a file uploaded by upload_and_publish",
  fields: (t) => ({
    url: t.exposeString("url"),
    fileId: t.exposeInt("fileId", { nullable: true }),
    name: t.exposeString("name", { nullable: true }),
    contentType: t.exposeString("contentType", { nullable: true }),
    size: t.exposeInt("size", { nullable: true }),
  }),
});

export const InvoiceRef = builder.prismaObject("Invoice", {
  description: "A supplier's invoice for a work order",
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking): buyer approval/processing notes, GL coding.
  extensions: masked({ thirdParty: ["approvalNotes", "processingNotes", "glCode"] }),
  fields: (t) => {
    const pdf = (
      i: { pdfUrl: string | null; pdfFile: { id: number; name: string; contentType: string; size: number } | null },
      ctx: Parameters<typeof fileUrl>[0],
    ): PdfEntry | null => {
      if (i.pdfFile)
        return {
          url: fileUrl(ctx, i.pdfFile.id),
          fileId: i.pdfFile.id,
          name: i.pdfFile.name,
          contentType: i.pdfFile.contentType,
          size: i.pdfFile.size,
        };
      return i.pdfUrl ? { url: i.pdfUrl, fileId: null, name: null, contentType: null, size: null } : null;
    };
    return {
      id: t.exposeInt("id"),
      workOrderId: t.exposeInt("workOrderId"),
      supplierFacilityId: t.exposeInt("supplierFacilityId"),
      status: t.field({ type: InvoiceStatusEnum, resolve: (i) => i.status }),
      invoiceNumber: t.exposeString("invoiceNumber", { nullable: true }),
      dateOfInvoice: t.expose("dateOfInvoice", { type: "DateTime" }),
      poNumber: t.exposeString("poNumber", { nullable: true }),
      serviceCallIds: t.exposeIntList("serviceCallIds"),
      currency: t.exposeString("currency", { description: "The work order's pricing currency" }),
      ...(costFields(t, INVOICE_TOTALS) as {}),
      taxLineItems: t.field({ type: [TaxLineRef], resolve: (i) => i.taxLineItems as unknown as TaxLine[] }),
      invoicePDFLink: t.string({
        nullable: true,
        description: "URL of the invoice's single PDF",
        select: { pdfFile: true },
        resolve: (i, _args, ctx) => pdf(i, ctx)?.url ?? null,
      }),
      invoicePdf: t.field({
        type: PdfEntryRef,
        nullable: true,
        select: { pdfFile: true },
        resolve: (i, _args, ctx) => pdf(i, ctx),
      }),
      autoPublishOnApproval: t.exposeBoolean("autoPublishOnApproval"),
      publishedAt: t.expose("publishedAt", { type: "DateTime", nullable: true }),
      approvedAt: t.expose("approvedAt", { type: "DateTime", nullable: true }),
      processedAt: t.expose("processedAt", { type: "DateTime", nullable: true }),
      markedPaidAt: t.expose("markedPaidAt", { type: "DateTime", nullable: true }),
      disputedAt: t.expose("disputedAt", { type: "DateTime", nullable: true }),
      disputeNotes: t.exposeString("disputeNotes", {
        nullable: true,
        description: "The buyer's reasons for the dispute",
      }),
      approvalNotes: t.exposeString("approvalNotes", { nullable: true }),
      processingNotes: t.exposeString("processingNotes", { nullable: true }),
      glCode: t.exposeString("glCode", {
        nullable: true,
        description: "GL coding, set by the buyer on approval (default: the work order's)",
      }),
      statusChangedAt: t.expose("statusChangedAt", { type: "DateTime" }),
      locationId: t.exposeInt("locationId"),
      buyerFacilityId: t.exposeInt("buyerFacilityId"),
      buyerCompanyId: t.exposeInt("buyerCompanyId"),
      spendCategoryId: t.exposeInt("spendCategoryId", { nullable: true }),
      problemTypeId: t.exposeInt("problemTypeId"),
      createdAt: t.expose("createdAt", { type: "DateTime" }),
      updatedAt: t.expose("updatedAt", { type: "DateTime" }),
      workOrder: t.relation("workOrder", { subGraphs: ["graphql"] }),
    };
  },
});

export const InvoicePage = pageType("Invoice", InvoiceRef);

export const InvoiceInput = builder.inputType("InvoiceInput", {
  description:
    "locationId, buyerFacilityId, buyerCompanyId, spendCategoryId and problemTypeId come from the work order; sending them has no effect.",
  fields: (t) => ({
    id: t.int({
      description:
        "Updates this draft (or revises this disputed invoice, which returns it to draft) of the key's facility",
    }),
    workOrderId: t.int({ required: true, description: "A work order assigned to the key's facility" }),
    invoiceNumber: t.string({ description: "Unique per supplier facility" }),
    dateOfInvoice: t.field({ type: "DateTime", description: "Default: when the invoice was created" }),
    poNumber: t.string({ description: "Default: the work order's PO number" }),
    serviceCallIds: t.intList({ description: "Service calls of the work order; omitted or empty: all of them" }),
    ...(costInputFields(t, INVOICE_TOTALS) as {}),
    invoiceTotalAfterTax: t.string({
      description: "Must equal invoiceTotalBeforeTax + invoiceTax; computed when omitted",
    }),
    taxLineItems: t.field({ type: "JSON", description: "CAD invoices only: [{type: GST | HST | PST, amount, rate?}]" }),
    invoicePDFLink: t.string({
      description: "A valid http(s) URL; becomes the invoice's single PDF entry (null removes it)",
    }),
    autoPublishOnApproval: t.boolean({
      description: "Publish this draft once the work order is in display status Completed",
    }),
  }),
});

export const InvoiceActionInput = builder.inputType("InvoiceActionInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The invoice" }),
    notes: t.string({
      description: "approve: approval notes; process: processing notes; dispute: the reasons (required)",
    }),
    glCode: t.string({ description: "approve: GL coding (default: the invoice's, else the work order's)" }),
  }),
});
