// What purchasing uses of inventory: the team scope and value rules, the catalogs' references, stock changes.
export {
  teamOf, teamScope, QUANTITY, RETURNABLE_QUANTITY, MONEY, quantityOf, quantityText, moneyText, textOf, NAME_MAX, TEXT_MAX, checkReferences,
} from "./rules/values.ts";
export { changeStock, type StockChange } from "./rules/stock.ts";
export { checkServedWorkOrder } from "./rules/work-order-parts.ts";
export { activeVendor, refuseUnknown, teamParts, teamStockLocations } from "./rules/lookups.ts";
