// The work order lifecycle as data (docs/decisions.md#work-order-lifecycle), read by core/state-table.ts.
// Every status change — REST, GraphQL or a job — goes through WORK_ORDER_STATES, so no path can leave
// this table.
import type { WorkOrderStatus } from "../../../generated/prisma/client.ts";
import { stateTable, type Transition } from "../../core/state-table.ts";

export type Status = WorkOrderStatus;
export type ActorKind = "buyer" | "supplier" | "system";

export const STATUSES: readonly Status[] = [
  "Unassigned",
  "PendingApproval",
  "PendingConfirmationByServiceProvider",
  "SupplierInitiatedPendingApproval",
  "ConfirmedByServiceProvider",
  "TechAssigned",
  "TechScheduled",
  "TechRescheduled",
  "TechEnRoute",
  "TechWaitingOnSite",
  "TechWorkingOnSite",
  "WorkIncompleteWithReason",
  "WaitingForReview",
  "WorkUnsatisfactory",
  "WorkReviewedAndCompleted",
  "CancelledWithReason",
  "PaymentMade",
  "Rejected",
];

/** Display status `Completed` (docs/decisions.md#work-order-lifecycle): the invoice publish precondition. */
export const COMPLETED_STATUSES: readonly Status[] = ["WaitingForReview", "WorkReviewedAndCompleted", "PaymentMade"];

const BEFORE_WORK: readonly Status[] = [
  "Unassigned",
  "PendingApproval",
  "PendingConfirmationByServiceProvider",
  "SupplierInitiatedPendingApproval",
  "ConfirmedByServiceProvider",
  "TechAssigned",
  "TechScheduled",
  "TechRescheduled",
  "TechEnRoute",
  "TechWaitingOnSite",
];
const TECH_READY: readonly Status[] = ["ConfirmedByServiceProvider", "WorkIncompleteWithReason", "WorkUnsatisfactory"];
const FINAL: readonly Status[] = ["WorkReviewedAndCompleted", "CancelledWithReason", "PaymentMade"];

/** What decides between several targets of one action. */
export interface TransitionFacts {
  hasSupplier: boolean;
  supplierInitiated: boolean;
  /** check_out's outcome. */
  outcome?: "completed" | "incomplete";
  /** decline with auto-pick: the next supplier by rank was found. */
  nextSupplierFound?: boolean;
}

export const TRANSITIONS: readonly Transition<Status, ActorKind, TransitionFacts>[] = [
  {
    action: "approve",
    actor: "buyer",
    from: ["PendingApproval", "SupplierInitiatedPendingApproval"],
    to: ["PendingConfirmationByServiceProvider", "ConfirmedByServiceProvider", "Unassigned"],
    pick: (f) =>
      f.supplierInitiated
        ? "ConfirmedByServiceProvider"
        : f.hasSupplier
          ? "PendingConfirmationByServiceProvider"
          : "Unassigned",
  },
  { action: "reassign", actor: "buyer", from: BEFORE_WORK, to: ["PendingConfirmationByServiceProvider"] },
  {
    action: "confirm",
    actor: "supplier",
    from: ["PendingConfirmationByServiceProvider"],
    to: ["ConfirmedByServiceProvider"],
  },
  {
    action: "decline",
    actor: "supplier",
    from: ["PendingConfirmationByServiceProvider"],
    to: ["PendingApproval", "PendingConfirmationByServiceProvider"],
    pick: (f) => (f.nextSupplierFound ? "PendingConfirmationByServiceProvider" : "PendingApproval"),
  },
  { action: "assign_tech", actor: "supplier", from: TECH_READY, to: ["TechAssigned"] },
  {
    action: "schedule",
    actor: "supplier",
    from: ["TechAssigned", "WorkIncompleteWithReason", "WorkUnsatisfactory"],
    to: ["TechScheduled"],
  },
  { action: "reschedule", actor: "supplier", from: ["TechScheduled", "TechRescheduled"], to: ["TechRescheduled"] },
  {
    action: "en_route",
    actor: "supplier",
    from: ["TechAssigned", "TechScheduled", "TechRescheduled"],
    to: ["TechEnRoute"],
  },
  { action: "arrive", actor: "supplier", from: ["TechEnRoute"], to: ["TechWaitingOnSite"] },
  {
    action: "check_in",
    actor: "supplier",
    from: [
      "ConfirmedByServiceProvider",
      "TechAssigned",
      "TechScheduled",
      "TechRescheduled",
      "TechEnRoute",
      "TechWaitingOnSite",
      "WorkIncompleteWithReason",
      "WorkUnsatisfactory",
    ],
    to: ["TechWorkingOnSite"],
  },
  {
    action: "check_out",
    actor: "supplier",
    from: ["TechWorkingOnSite"],
    to: ["WaitingForReview", "WorkIncompleteWithReason"],
    pick: (f) => (f.outcome === "incomplete" ? "WorkIncompleteWithReason" : "WaitingForReview"),
  },
  {
    action: "work_reviewed_and_completed",
    actor: "buyer",
    from: ["WaitingForReview"],
    to: ["WorkReviewedAndCompleted"],
  },
  { action: "work_unsatisfactory", actor: "buyer", from: ["WaitingForReview"], to: ["WorkUnsatisfactory"] },
  { action: "cancel", actor: "buyer", from: STATUSES.filter((s) => !FINAL.includes(s)), to: ["CancelledWithReason"] },
  { action: "invoice_paid", actor: "system", from: ["WorkReviewedAndCompleted"], to: ["PaymentMade"] },
];

export const WORK_ORDER_STATES = stateTable("work order", TRANSITIONS);

/** Initial status of a new work order (docs/decisions.md#work-order-lifecycle, create rows). */
export function initialStatus(input: { actor: ActorKind; needsApproval: boolean; hasSupplier: boolean }): Status {
  if (input.actor === "supplier") return "SupplierInitiatedPendingApproval";
  if (input.needsApproval) return "PendingApproval";
  return input.hasSupplier ? "PendingConfirmationByServiceProvider" : "Unassigned";
}

/** A row as published (workOrderTransitions): the table's rows without their pick rule. */
export type TransitionRow = Omit<Transition<Status, ActorKind>, "pick">;

/** The create rows, derived from initialStatus over every combination of its facts. */
const createRow = (actor: ActorKind): TransitionRow => {
  const to = [true, false].flatMap((needsApproval) =>
    [true, false].map((hasSupplier) => initialStatus({ actor, needsApproval, hasSupplier })),
  );
  return { action: "create", actor, from: [], to: [...new Set(to)] };
};

export const TRANSITION_ROWS: readonly TransitionRow[] = [
  createRow("buyer"),
  createRow("supplier"),
  ...TRANSITIONS.map(({ action, actor, from, to }) => ({ action, actor, from, to })),
];
