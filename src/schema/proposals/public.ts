// What invoices share with proposals: the cost sections ("as in proposal"), their GraphQL fields, and
// the work order a supplier's billing write is for.
export { documentMoney, mismatchMessage, rate, rateText, rollUpCosts } from "./rules/costs.ts";
export { costFields, costInputFields } from "./types.ts";
export { assignedWorkOrder } from "./rules/proposals.ts";
