import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { InvoicePage, InvoiceRef, InvoiceStatusEnum } from "./types.ts";
import { checkInvoiceFilter, INVOICE_LIST, invoiceScope } from "./rules/scope.ts";

// Supplier: the facility's invoices (masked for third parties); buyer: its company's published ones.
readRoutes({
  interfaces: ["buyer", "supplier"],
  errors: { "403": "Internal service team keys may not use invoices" },
  path: "/invoice/invoices",
  type: "Invoice",
  fields: { list: "invoices", countBy: "invoicesCountBy", one: "invoice" },
  page: InvoicePage,
  item: InvoiceRef,
  table: (ctx) => ctx.db.invoice,
  scope: invoiceScope,
  spec: INVOICE_LIST,
  checkFilter: checkInvoiceFilter,
  description:
    "Invoices: a supplier key's own (drafts included), a buyer key's published ones. Filters: id, workOrderId, status, invoiceNumber, poNumber, locationId, supplierFacilityId, currency.",
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("invoicesConnection", {
  type: InvoiceRef,
  typeName: "Invoice",
  description: "Invoices: a supplier key's own (drafts included), a buyer key's published ones.",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.invoice,
  scope: (ctx) => invoiceScope(ctx.viewer),
  filter: defineFilter("InvoiceFilter", "Invoice", "Invoices", {
    ids: match.ids("id", "Invoice ids"),
    status: match.oneOf("status", InvoiceStatusEnum, "Statuses"),
    workOrderIds: match.ids("workOrderId", "Work order ids"),
    locationIds: match.ids("locationId", "Location ids"),
    supplierFacilityIds: match.ids("supplierFacilityId", "Supplier facility ids"),
    dateOfInvoice: match.range("dateOfInvoice", "Invoice date in this range"),
    createdAt: match.range("createdAt", "Created in this range"),
    search: match.text(["invoiceNumber", "poNumber"], "Text in the invoice number or PO number (any case)"),
  }),
  order: defineOrder(
    "Invoice",
    "Invoice",
    {
      id: "Invoice id",
      createdAt: "Creation time",
      updatedAt: "Last change",
      dateOfInvoice: "Invoice date",
      statusChangedAt: "Last status change",
      invoiceTotalAfterTax: "Total after tax",
    },
    [{ field: "id", direction: "desc" }],
  ),
});
