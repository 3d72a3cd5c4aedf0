// The invoice type (buyer-private fields masked for third-party supplier keys, declared once here), its
// tax lines and single PDF entry (declared in SQL beside their resolvers for the statement answers:
// core/statement-answers.ts), and the write bodies.
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope } from "../core/relations.ts";
import type { WorkOrder } from "../../generated/prisma/client.ts";
import { workOrderScope } from "../work-orders/public.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { costFields, costInputFields } from "../proposals/public.ts";
import { filesUrl, fileUrl } from "../files/public.ts";
import { Prisma } from "../../db.ts";
import type { Context } from "../core/context.ts";
import { answeredColumn, answeredValue } from "../core/statement-answers.ts";
import { INVOICE_STATUSES } from "./rules/state-machine.ts";
import { INVOICE_TOTALS, invoiceScope } from "./rules/scope.ts";
import type { TaxLine } from "./rules/taxes.ts";
import { describedValues } from "../core/enums.ts";

export const InvoiceStatusEnum = builder.enumType("InvoiceStatus", {
  description: "Where an invoice is in its lifecycle (docs/commerce.md)",
  values: describedValues(INVOICE_STATUSES, {
    draft: "Being written by the supplier; invisible to the buyer",
    pending: "Published, waiting for the buyer's approval",
    approved: "Approved by the buyer",
    processing: "The buyer is processing the payment",
    paid: "Marked paid by the buyer (markedPaidAt); the work order moves to PaymentMade",
    disputed: "Disputed by the buyer (disputeNotes); the supplier revises or publishes it again",
  }),
});

const TaxLineRef = builder.objectRef<TaxLine>("TaxLine").implement({
  description: "A sales tax of a CAD invoice",
  fields: (t) => ({
    type: t.exposeString("type", { description: "GST, HST or PST" }),
    rate: t.exposeString("rate", { nullable: true, description: "Percent, when given" }),
    amount: t.exposeString("amount", { description: "Amount of the tax, a decimal string with two decimals" }),
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
    url: t.exposeString("url", {
      description:
        "Where the PDF is read: the supplier's link, or the uploaded file's URL (read with the caller's key)",
    }),
    fileId: t.exposeInt("fileId", {
      nullable: true,
      description: "Id of the uploaded file; null when the PDF is a link",
    }),
    name: t.exposeString("name", {
      nullable: true,
      description: "File name of the uploaded PDF; null when the PDF is a link",
    }),
    contentType: t.exposeString("contentType", {
      nullable: true,
      description: "Content type of the uploaded PDF; null when the PDF is a link",
    }),
    size: t.exposeInt("size", {
      nullable: true,
      description: "Size of the uploaded PDF in bytes; null when the PDF is a link",
    }),
  }),
});

const sql = Prisma.sql;

/**
 * `pdf` below in SQL over the invoice row at `row`, for the statement answers: `entry` of the PDF's URL
 * and its file row (an alias whose columns are null for a link), or null without a PDF (an empty link
 * is none).
 */
function pdfSql(row: string, ctx: Context, entry: (url: Prisma.Sql, file: Prisma.Sql) => Prisma.Sql): Prisma.Sql {
  const invoice = Prisma.raw(row);
  const file = Prisma.raw(`${row}_pdf`);
  return sql`(SELECT CASE WHEN ${file}.id IS NOT NULL THEN ${entry(sql`${filesUrl(ctx)} || ${file}.id`, file)}
                          WHEN ${invoice}."pdfUrl" <> '' THEN ${entry(sql`${invoice}."pdfUrl"`, file)} END
                FROM (SELECT NULL) one LEFT JOIN "StoredFile" ${file} ON ${file}.id = ${invoice}."pdfFileId")`;
}

export const InvoiceRef = builder.prismaNode("Invoice", {
  ...scopedNode(invoiceScope),
  description: "A supplier's invoice for a work order",
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking): buyer approval/processing notes, GL coding.
  extensions: masked({ thirdParty: ["approvalNotes", "processingNotes", "glCode"] }),
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declarative field list, one described field after another
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
      id: t.exposeInt("id", { description: "The invoice's id" }),
      workOrderId: t.exposeInt("workOrderId", { description: "Id of the work order invoiced" }),
      supplierFacilityId: t.exposeInt("supplierFacilityId", {
        description: "Id of the supplier facility that issued the invoice",
      }),
      status: t.expose("status", {
        type: InvoiceStatusEnum,
        description: "Where the invoice is in its lifecycle",
      }),
      invoiceNumber: t.exposeString("invoiceNumber", {
        nullable: true,
        description: "The supplier's invoice number, unique per supplier facility; null when not given",
      }),
      dateOfInvoice: t.expose("dateOfInvoice", {
        type: "DateTime",
        description: "Date of the invoice (default: when it was created)",
      }),
      poNumber: t.exposeString("poNumber", {
        nullable: true,
        description: "The buyer's purchase order number (default: the work order's); null when none",
      }),
      serviceCallIds: t.exposeIntList("serviceCallIds", {
        description: "Ids of the work order's service calls the invoice covers",
      }),
      currency: t.exposeString("currency", { description: "The work order's pricing currency" }),
      ...(costFields(t, INVOICE_TOTALS) as {}),
      taxLineItems: t.field({
        type: [TaxLineRef],
        resolve: (i) => i.taxLineItems as unknown as TaxLine[],
        description: "Sales tax lines (CAD invoices only: GST, HST, PST); empty when none",
        extensions: answeredColumn("taxLineItems"),
      }),
      invoicePDFLink: t.string({
        nullable: true,
        description: "URL of the invoice's single PDF",
        select: { pdfFile: true },
        resolve: (i, _args, ctx) => pdf(i, ctx)?.url ?? null,
        extensions: answeredValue((row, ctx) => pdfSql(row, ctx, (url) => url)),
      }),
      invoicePdf: t.field({
        description: "The invoice's single PDF; null when there is none yet",
        type: PdfEntryRef,
        nullable: true,
        select: { pdfFile: true },
        resolve: (i, _args, ctx) => pdf(i, ctx),
        extensions: answeredValue((row, ctx) =>
          pdfSql(
            row,
            ctx,
            (url, file) =>
              sql`json_build_object('url', ${url}, 'fileId', ${file}.id, 'name', ${file}.name, 'contentType', ${file}."contentType", 'size', ${file}.size)`,
          ),
        ),
      }),
      autoPublishOnApproval: t.exposeBoolean("autoPublishOnApproval", {
        description: "Whether this draft is published automatically once the work order is in display status Completed",
      }),
      publishedAt: t.expose("publishedAt", {
        type: "DateTime",
        nullable: true,
        description: "When the invoice was published (became visible to the buyer as pending); null while a draft",
      }),
      approvedAt: t.expose("approvedAt", {
        type: "DateTime",
        nullable: true,
        description: "When the buyer approved the invoice; null until then",
      }),
      processedAt: t.expose("processedAt", {
        type: "DateTime",
        nullable: true,
        description: "When the buyer started processing the payment; null until then",
      }),
      markedPaidAt: t.expose("markedPaidAt", {
        type: "DateTime",
        nullable: true,
        description: "When the buyer marked the invoice paid; null until then",
      }),
      disputedAt: t.expose("disputedAt", {
        type: "DateTime",
        nullable: true,
        description: "When the buyer disputed the invoice; null unless disputed",
      }),
      disputeNotes: t.exposeString("disputeNotes", {
        nullable: true,
        description: "The buyer's reasons for the dispute",
      }),
      approvalNotes: t.exposeString("approvalNotes", {
        nullable: true,
        description: "The buyer's approval notes; null when none, or masked for third-party supplier keys",
      }),
      processingNotes: t.exposeString("processingNotes", {
        nullable: true,
        description: "The buyer's processing notes; null when none, or masked for third-party supplier keys",
      }),
      glCode: t.exposeString("glCode", {
        nullable: true,
        description: "GL coding, set by the buyer on approval (default: the work order's)",
      }),
      statusChangedAt: t.expose("statusChangedAt", { type: "DateTime", description: "When the status last changed" }),
      locationId: t.exposeInt("locationId", { description: "Id of the work order's location (derived)" }),
      buyerFacilityId: t.exposeInt("buyerFacilityId", {
        description: "Id of the work order's buyer facility (derived)",
      }),
      buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the work order's buyer company (derived)" }),
      spendCategoryId: t.exposeInt("spendCategoryId", {
        nullable: true,
        description: "Id of the work order's spend category (derived); null when it has none",
      }),
      problemTypeId: t.exposeInt("problemTypeId", { description: "Id of the work order's problem type (derived)" }),
      createdAt: t.expose("createdAt", { type: "DateTime", description: "When the invoice was created" }),
      updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the invoice was last written" }),
      workOrder: t.prismaField({
        type: "WorkOrder",
        nullable: true,
        subGraphs: ["graphql"],
        description: "The work order; null when the key may not read it (any more)",
        resolve: (query, row, _args, ctx) =>
          rowsInScope<WorkOrder>(ctx, "WorkOrder", workOrderScope, query).load(row.workOrderId),
      }),
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
  description: "Body of a buyer's invoice step (approve, process, mark_paid, dispute)",
  fields: (t) => ({
    id: t.int({ required: true, description: "The invoice" }),
    notes: t.string({
      description: "approve: approval notes; process: processing notes; dispute: the reasons (required)",
    }),
    glCode: t.string({ description: "approve: GL coding (default: the invoice's, else the work order's)" }),
  }),
});

// The dashboard graph (GraphQL only): a work order's invoices, within the key's invoice scope.
builder.prismaObjectField("WorkOrder", "invoices", (t) =>
  t.relatedConnection(
    "invoices",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "The work order's invoices that the key may read, by id",
      totalCount: true,
      query: relationQuery(invoiceScope, { id: "asc" as const }),
    },
    ...connectionTypes("A page of a work order's invoices", "An invoice and its cursor"),
  ),
);
