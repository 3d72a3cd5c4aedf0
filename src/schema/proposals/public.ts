// What invoices share with proposals: the cost sections ("as in proposal"), their GraphQL fields, and
// the work order and row helpers of a supplier's billing write.
export { mismatchMessage, money, moneyText, rate, rollUpCosts } from "./rules/costs.ts";
export { costFields, costInputFields } from "./types.ts";
export { assignedWorkOrder, lockRow } from "./rules/proposals.ts";
