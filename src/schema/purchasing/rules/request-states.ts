// The purchase request lifecycle (docs/decisions.md#purchasing): draft → submitted → approved | rejected → ordered.
import type { PurchaseRequestStatus } from "../../../generated/prisma/client.ts";
import { stateTable } from "../../core/state-table.ts";

export type RequestStatus = PurchaseRequestStatus;
export const REQUEST_STATUSES: readonly RequestStatus[] = ["draft", "submitted", "approved", "rejected", "ordered"];

/** A team member (purchasing.write), an approver (purchasing.approve), or the service itself. */
export const REQUEST_STATES = stateTable<RequestStatus, "team" | "approver" | "system">(
  "purchase request",
  [
    { action: "create", actor: "team", from: [], to: ["draft"] },
    { action: "submit", actor: "team", from: ["draft"], to: ["submitted"] },
    { action: "approve", actor: "approver", from: ["submitted"], to: ["approved"] },
    { action: "reject", actor: "approver", from: ["submitted"], to: ["rejected"] },
    // Once every line is on a purchase order that has been ordered (mark_ordered).
    { action: "order", actor: "system", from: ["approved"], to: ["ordered"] },
    // A purchase order holding some of its lines was cancelled: the lines are free to order again.
    { action: "reopen", actor: "system", from: ["ordered"], to: ["approved"] },
  ],
  { spacedActions: true },
);
