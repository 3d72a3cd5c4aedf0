// Every lifecycle as data, read by this one engine. A feature declares its table — rows of (action,
// actor, from, to) — and changes a status only through the table's `next`, so no path can leave it:
// work orders (work-orders/rules/state-machine.ts), purchase requests and orders
// (purchasing/rules/request-states.ts, order-states.ts), proposals and invoices (their
// rules/state-machine.ts). A refused action is the contract's 400 naming the current status.
import { ApiError } from "./errors.ts";

export interface Transition<S extends string, A extends string, F = void> {
  action: string;
  /** Who takes the action, in the feature's words (buyer/supplier/system, team/approver/system). */
  actor: A;
  /** The statuses the action is allowed from; empty for a create row (published, never taken). */
  from: readonly S[];
  /** Every status the action can lead to (published); with several, `pick` chooses from the facts. */
  to: readonly S[];
  pick?: (facts: F) => S;
}

/** The table's refusal: a 400 invalidInputDataException, as `badInput` answers. */
export class TransitionRefused extends ApiError {
  constructor(message: string) {
    super(400, "invalidInputDataException", message);
  }
}

interface TableOptions {
  /** Refusals write `mark_ordered` as "mark ordered" (purchasing's wording); otherwise as written. */
  spacedActions?: boolean;
}

interface StepOptions<F> {
  /** What decides between several targets of the action. */
  facts?: F;
  /** Names the record in a refusal ("invoice 5"); without it the refusal says "a <noun>". */
  id?: number;
  /** Another error for a refusal than TransitionRefused (an invoice save's 406). */
  refuse?: (message: string) => ApiError;
}

export interface StateTable<S extends string, A extends string, F = void> {
  noun: string;
  rows: readonly Transition<S, A, F>[];
  /** The row for (action, actor) allowed from `current`; otherwise refused, naming `current`. */
  allowed(action: string, actor: A, current: S, options?: StepOptions<F>): Transition<S, A, F>;
  /** The status (action, actor) leads to from `current`; refused as `allowed` refuses. */
  next(action: string, actor: A, current: S, options?: StepOptions<F>): S;
}

export function stateTable<S extends string, A extends string, F = void>(
  noun: string,
  rows: readonly Transition<S, A, F>[],
  { spacedActions = false }: TableOptions = {},
): StateTable<S, A, F> {
  // A row taken with several targets and nothing to choose between them would always lead to the first.
  const unpicked = rows.find((r) => r.from.length > 0 && r.to.length > 1 && !r.pick);
  if (unpicked) throw new Error(`${noun} table: ${unpicked.action} leads to several statuses without a pick`);
  const allowed = (action: string, actor: A, current: S, options: StepOptions<F> = {}) => {
    const refuse = options.refuse ?? ((message: string) => new TransitionRefused(message));
    const row = rows.find((r) => r.action === action && r.actor === actor);
    if (!row) throw refuse(`${actor} cannot ${action} a ${noun}`);
    if (!row.from.includes(current)) {
      const verb = spacedActions ? action.replace(/_/g, " ") : action;
      const subject = options.id === undefined ? `a ${noun}` : `${noun} ${options.id}`;
      throw refuse(`cannot ${verb} ${subject} in status ${current}; allowed from ${row.from.join(", ")}`);
    }
    return row;
  };
  return {
    noun,
    rows,
    allowed,
    next(action, actor, current, options = {}) {
      const row = allowed(action, actor, current, options);
      return row.pick ? row.pick(options.facts as F) : row.to[0];
    },
  };
}
