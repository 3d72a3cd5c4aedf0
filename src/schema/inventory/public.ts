// What purchasing uses of inventory: the team scope and value rules, lookups of the team's catalogs, stock changes.
export {
  teamOf,
  teamScope,
  RETURNABLE_QUANTITY,
  MONEY,
  quantityOf,
  quantityText,
  moneyText,
  textOf,
  TEXT_MAX,
} from "./rules/values.ts";
export { changeStock, type StockChange } from "./rules/stock.ts";
export { activeVendor, refuseUnknown, teamParts, teamStockLocations } from "./rules/lookups.ts";
