import { readRoutes } from "../core/read-routes.ts";
import { InvoicePage, InvoiceRef } from "./types.ts";
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
