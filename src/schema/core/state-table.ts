// A small lifecycle as data: rows of (action, actor, from-set, to). Features with a status of their own
// (proposals, invoices) declare one table and change status only through `transitionOf`, so no path can
// leave it. (The work order's richer table, with facts that pick a target, is work-orders/rules/state-machine.ts.)
import { ApiError, badInput } from "./errors.ts";

export interface StateRow<S extends string> {
  action: string;
  actor: "buyer" | "supplier" | "system";
  from: readonly S[];
  to: S;
}

/**
 * The row for (action, actor) allowed from `current`; otherwise the contract's 400 naming the current
 * status (or `refuse`'s error, e.g. an invoice save's 406).
 */
export function transitionOf<S extends string>(
  table: readonly StateRow<S>[],
  noun: string,
  id: number,
  action: string,
  actor: StateRow<S>["actor"],
  current: S,
  refuse: (message: string) => ApiError = badInput,
): StateRow<S> {
  const row = table.find((r) => r.action === action && r.actor === actor);
  if (!row) throw refuse(`${actor} cannot ${action} a ${noun}`);
  if (!row.from.includes(current))
    throw refuse(`cannot ${action} ${noun} ${id} in status ${current}; allowed from ${row.from.join(", ")}`);
  return row;
}
