// Who sees which invoice (one scope for every invoice path), the list's filters and the totals' names.
import { Prisma } from "../../../db.ts";
import type { Viewer } from "../../core/viewer.ts";
import { enumFilter, type ListSpec } from "../../core/list.ts";
import { refuseInternalTeams } from "../../core/permissions.ts";
import { INVOICE_STATUSES } from "./state-machine.ts";

export const INVOICE_TOTALS = {
  beforeTax: "invoiceTotalBeforeTax",
  taxRate: "invoiceTaxRate",
  tax: "invoiceTax",
  afterTax: "invoiceTotalAfterTax",
};

/**
 * Supplier keys see their facility's invoices; buyer keys their company's once published (a draft is
 * invisible to the buyer). Internal service team keys: 403 on every invoice path.
 */
export function invoiceScope(viewer: Viewer): Prisma.InvoiceWhereInput {
  refuseInternalTeams(viewer, "invoices");
  if (viewer.kind === "buyer") return { buyerCompanyId: viewer.buyerCompanyId ?? -1, status: { not: "draft" } };
  return { supplierFacilityId: viewer.supplierFacilityId ?? -1 };
}

/** The same scope as SQL over `"Invoice" i` (invoiceStats). */
export function invoiceScopeSql(viewer: Viewer): Prisma.Sql {
  refuseInternalTeams(viewer, "invoices");
  if (viewer.kind === "buyer")
    return Prisma.sql`i."buyerCompanyId" = ${viewer.buyerCompanyId ?? -1} AND i.status <> 'draft'`;
  return Prisma.sql`i."supplierFacilityId" = ${viewer.supplierFacilityId ?? -1}`;
}

export const INVOICE_LIST: ListSpec = {
  filters: {
    id: "int",
    workOrderId: "int",
    status: "string",
    invoiceNumber: "string",
    poNumber: "string",
    locationId: "int",
    supplierFacilityId: "int",
    currency: "string",
  },
  sortable: ["id", "createdAt", "updatedAt", "dateOfInvoice", "statusChangedAt", "invoiceTotalAfterTax"],
  defaultSort: { field: "id", order: "desc" },
};
export const checkInvoiceFilter = enumFilter("status", INVOICE_STATUSES);
