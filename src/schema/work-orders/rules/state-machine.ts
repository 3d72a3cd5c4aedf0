// The work order lifecycle as data (docs/decisions.md#work-order-lifecycle). Every status change (REST, GraphQL, job)
// goes through `transitionFor`, so no path can leave this table.
import type { WorkOrderStatus } from "../../../generated/prisma/client.ts";

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

export interface Transition {
  action: string;
  actor: ActorKind;
  from: readonly Status[];
  /** Every status the action can lead to (published), and the rule that picks one. */
  to: readonly Status[];
  pick: (facts: TransitionFacts) => Status;
}

const one = (status: Status) => ({ to: [status], pick: () => status });

export const TRANSITIONS: readonly Transition[] = [
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
  { action: "reassign", actor: "buyer", from: BEFORE_WORK, ...one("PendingConfirmationByServiceProvider") },
  {
    action: "confirm",
    actor: "supplier",
    from: ["PendingConfirmationByServiceProvider"],
    ...one("ConfirmedByServiceProvider"),
  },
  {
    action: "decline",
    actor: "supplier",
    from: ["PendingConfirmationByServiceProvider"],
    to: ["PendingApproval", "PendingConfirmationByServiceProvider"],
    pick: (f) => (f.nextSupplierFound ? "PendingConfirmationByServiceProvider" : "PendingApproval"),
  },
  { action: "assign_tech", actor: "supplier", from: TECH_READY, ...one("TechAssigned") },
  {
    action: "schedule",
    actor: "supplier",
    from: ["TechAssigned", "WorkIncompleteWithReason", "WorkUnsatisfactory"],
    ...one("TechScheduled"),
  },
  { action: "reschedule", actor: "supplier", from: ["TechScheduled", "TechRescheduled"], ...one("TechRescheduled") },
  {
    action: "en_route",
    actor: "supplier",
    from: ["TechAssigned", "TechScheduled", "TechRescheduled"],
    ...one("TechEnRoute"),
  },
  { action: "arrive", actor: "supplier", from: ["TechEnRoute"], ...one("TechWaitingOnSite") },
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
    ...one("TechWorkingOnSite"),
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
    ...one("WorkReviewedAndCompleted"),
  },
  { action: "work_unsatisfactory", actor: "buyer", from: ["WaitingForReview"], ...one("WorkUnsatisfactory") },
  { action: "cancel", actor: "buyer", from: STATUSES.filter((s) => !FINAL.includes(s)), ...one("CancelledWithReason") },
  { action: "invoice_paid", actor: "system", from: ["WorkReviewedAndCompleted"], ...one("PaymentMade") },
];

export class TransitionRefused extends Error {}

/** The row for (action, actor) allowed from `current`; refuses with the current status in the message. */
export function transitionFor(action: string, actor: ActorKind, current: Status): Transition {
  const row = TRANSITIONS.find((t) => t.action === action && t.actor === actor);
  if (!row) throw new TransitionRefused(`${actor} cannot ${action} a work order`);
  if (!row.from.includes(current)) {
    throw new TransitionRefused(
      `cannot ${action} a work order in status ${current}; allowed from ${row.from.join(", ")}`,
    );
  }
  return row;
}

/** Initial status of a new work order (docs/decisions.md#work-order-lifecycle, create rows). */
export function initialStatus(input: { actor: ActorKind; needsApproval: boolean; hasSupplier: boolean }): Status {
  if (input.actor === "supplier") return "SupplierInitiatedPendingApproval";
  if (input.needsApproval) return "PendingApproval";
  return input.hasSupplier ? "PendingConfirmationByServiceProvider" : "Unassigned";
}

export interface TransitionRow {
  action: string;
  actor: ActorKind;
  from: readonly Status[];
  to: readonly Status[];
}

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
