// The shape of a transition table (one per record kind: request-states.ts, order-states.ts), the work
// order lifecycle's pattern: every status change of the record goes through `next`, so no path can
// leave its table. A refused action is a 400 with the current status; nothing is written.
import { badInput } from "../../core/errors.ts";

/** Who takes an action: a team member (purchasing.write), an approver (purchasing.approve), or the service itself. */
type Actor = "team" | "approver" | "system";

export interface Transition<S extends string, F> {
  action: string;
  actor: Actor;
  /** Empty for create. */
  from: readonly S[];
  /** Every status the action can lead to; `pick` chooses among several from the facts. */
  to: readonly S[];
  pick?: (facts: F) => S;
}

export function transitionTable<S extends string, F = never>(noun: string, rows: readonly Transition<S, F>[]) {
  return {
    noun,
    rows,
    /** The status `action` leads to from `current`. */
    next(action: string, current: S, facts?: F): S {
      const row = rows.find((r) => r.action === action);
      if (!row) throw new Error(`no transition ${action} for a ${noun}`);
      if (!row.from.includes(current)) {
        throw badInput(
          `cannot ${action.replace(/_/g, " ")} a ${noun} in status ${current}; allowed from ${row.from.join(", ")}`,
        );
      }
      return row.pick ? row.pick(facts as F) : row.to[0];
    },
  };
}
