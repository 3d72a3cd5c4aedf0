// What other features may use of the supplier network: the ranking (work-orders' decline auto-pick
// picks from exactly the list the ranking endpoint shows).
export { nextRankedSupplier } from "./rules/ranking.ts";
