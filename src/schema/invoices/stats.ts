// invoiceStats (graphql only; docs/dashboards.md, "Charts"): invoice counts and exact sums by status
// and/or month of the invoice date (dateOfInvoice), per currency (the invoice's own), in the invoice
// list's scope (rules/scope.ts: a buyer never counts drafts).
import { Prisma } from "../../db.ts";
import { builder } from "../core/builder.ts";
import { type TotalsSource, totalsArgs, totalsRowType, totalsRows } from "../core/totals.ts";
import { invoiceScopeSql } from "./rules/scope.ts";
import { InvoiceStatusEnum } from "./types.ts";

const sql = Prisma.sql;

const INVOICES: TotalsSource = {
  field: "invoiceStats",
  from: sql`"Invoice" i`,
  scope: invoiceScopeSql,
  status: sql`i.status`,
  dated: sql`i."dateOfInvoice"`,
  currency: { key: sql`i.currency` },
  locationId: sql`i."locationId"`,
  supplierFacilityId: sql`i."supplierFacilityId"`,
  beforeTax: sql`i."invoiceTotalBeforeTax"`,
  tax: sql`i."invoiceTax"`,
  afterTax: sql`i."invoiceTotalAfterTax"`,
};

const InvoiceStatsRowRef = totalsRowType("InvoiceStatsRow", "invoice", InvoiceStatusEnum);

builder.queryField("invoiceStats", (t) =>
  t.field({
    subGraphs: ["graphql"],
    nullable: true,
    description:
      "Invoices in the key's scope (supplier: its facility's, drafts included; buyer: its company's published ones) counted and summed by status and/or month of the invoice date, per currency. See docs/dashboards.md.",
    type: [InvoiceStatsRowRef],
    args: totalsArgs(
      t,
      InvoiceStatusEnum,
      "Only invoices dated (dateOfInvoice) in this range (from inclusive, to exclusive)",
    ),
    resolve: (_root, args, ctx) => totalsRows(ctx, INVOICES, args),
  }),
);
