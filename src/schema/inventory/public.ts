// What purchasing uses of inventory: the team scope, lookups of the team's catalogs, stock changes.
export { teamOf, teamScope } from "./rules/fields.ts";
export { changeStock, type StockChange } from "./rules/stock.ts";
export { activeVendor, refuseUnknown, teamParts, teamStockLocations } from "./rules/lookups.ts";
