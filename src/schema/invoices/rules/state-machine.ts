// The invoice lifecycle as one table (the contract's Invoice status table, plus the disputed state and
// what happens after it, which the contract leaves open): every status change — the supplier's publish,
// the auto-publish job, the buyer's progress — goes through this table (core/state-table.ts).
import type { InvoiceStatus } from "../../../generated/prisma/client.ts";
import { stateTable } from "../../core/state-table.ts";

export const INVOICE_STATUSES: readonly InvoiceStatus[] = [
  "draft",
  "pending",
  "approved",
  "processing",
  "paid",
  "disputed",
];

export type InvoiceActorKind = "supplier" | "buyer" | "system";

export const INVOICE_STATES = stateTable<InvoiceStatus, InvoiceActorKind>("invoice", [
  // A save with `id`: drafts stay drafts; a disputed invoice goes back to draft to be corrected.
  { action: "revise", actor: "supplier", from: ["draft", "disputed"], to: ["draft"] },
  // upload_and_publish (also answers a dispute with a corrected PDF).
  { action: "publish", actor: "supplier", from: ["draft", "disputed"], to: ["pending"] },
  // autoPublishOnApproval, once the work order is in display status Completed.
  { action: "auto_publish", actor: "system", from: ["draft"], to: ["pending"] },
  { action: "approve", actor: "buyer", from: ["pending"], to: ["approved"] },
  { action: "process", actor: "buyer", from: ["approved"], to: ["processing"] },
  { action: "mark_paid", actor: "buyer", from: ["processing"], to: ["paid"] },
  { action: "dispute", actor: "buyer", from: ["pending", "approved", "processing"], to: ["disputed"] },
]);

/** The buyer's steps, each a root field of its own (mutations.ts). */
export type BuyerAction = "approve" | "process" | "mark_paid" | "dispute";

/** The timestamp each status sets when an invoice enters it. */
export const ENTERED_AT: Partial<
  Record<InvoiceStatus, "publishedAt" | "approvedAt" | "processedAt" | "markedPaidAt" | "disputedAt">
> = {
  pending: "publishedAt",
  approved: "approvedAt",
  processing: "processedAt",
  paid: "markedPaidAt",
  disputed: "disputedAt",
};
