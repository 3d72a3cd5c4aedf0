// The purchase order lifecycle (docs/decisions.md#purchasing): draft → ordered → partially_received → received, or
// cancelled from draft or ordered. A receipt (or return) moves the order by what has been received.
import type { PurchaseOrderStatus } from "../../../generated/prisma/client.ts";
import { stateTable } from "../../core/state-table.ts";

export type OrderStatus = PurchaseOrderStatus;
export const ORDER_STATUSES: readonly OrderStatus[] = [
  "draft",
  "ordered",
  "partially_received",
  "received",
  "cancelled",
];

/** How much of the order has been received (net of returns) after a receipt. */
export interface ReceiptFacts {
  received: "none" | "some" | "all";
}

/** Every action on an order is a team member's (purchasing.write). */
export const ORDER_STATES = stateTable<OrderStatus, "team", ReceiptFacts>(
  "purchase order",
  [
    { action: "create", actor: "team", from: [], to: ["draft"] },
    { action: "mark_ordered", actor: "team", from: ["draft"], to: ["ordered"] },
    { action: "cancel", actor: "team", from: ["draft", "ordered"], to: ["cancelled"] },
    {
      action: "receive",
      actor: "team",
      from: ["ordered", "partially_received", "received"],
      to: ["ordered", "partially_received", "received"],
      pick: (f) => (f.received === "all" ? "received" : f.received === "some" ? "partially_received" : "ordered"),
    },
  ],
  { spacedActions: true },
);

/** Statuses of an order that counts as ordered for its request lines. */
export const ORDERED: readonly OrderStatus[] = ["ordered", "partially_received", "received"];
