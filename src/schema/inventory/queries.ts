// Reads of the team's catalogs and consumed parts: list, count_by and one each (partner keys only).
import { readRoutes } from "../core/read-routes.ts";
import {
  EquipmentTypePage,
  EquipmentTypeRef,
  PartPage,
  PartRef,
  StockLocationPage,
  StockLocationRef,
  VendorPage,
  VendorRef,
  WorkOrderPartPage,
  WorkOrderPartRef,
} from "./types.ts";
import { EQUIPMENT_TYPES, PARTS, STOCK_LOCATIONS, VENDORS, type Catalog } from "./rules/catalogs.ts";
import { WORK_ORDER_PART_LIST } from "./rules/work-order-parts.ts";
import { teamScope } from "./rules/fields.ts";

const catalogRoutes = (
  catalog: Catalog,
  path: string,
  type: string,
  fields: { list: string; countBy: string; one: string },
  page: unknown,
  item: unknown,
) =>
  readRoutes({
    interfaces: ["partners"],
    path,
    type,
    fields,
    page,
    item,
    table: (ctx) => catalog.table(ctx.db),
    scope: teamScope,
    spec: catalog.list,
    description: `The team's ${catalog.noun}s`,
  });

catalogRoutes(
  VENDORS,
  "/purchasing/vendors",
  "Vendor",
  { list: "vendors", countBy: "vendorsCountBy", one: "vendor" },
  VendorPage,
  VendorRef,
);
catalogRoutes(
  PARTS,
  "/inventory/parts",
  "Part",
  { list: "parts", countBy: "partsCountBy", one: "part" },
  PartPage,
  PartRef,
);
catalogRoutes(
  EQUIPMENT_TYPES,
  "/inventory/equipment_types",
  "EquipmentType",
  { list: "equipmentTypes", countBy: "equipmentTypesCountBy", one: "equipmentType" },
  EquipmentTypePage,
  EquipmentTypeRef,
);
catalogRoutes(
  STOCK_LOCATIONS,
  "/inventory/stock_locations",
  "StockLocation",
  { list: "stockLocations", countBy: "stockLocationsCountBy", one: "stockLocation" },
  StockLocationPage,
  StockLocationRef,
);

readRoutes({
  interfaces: ["partners"],
  path: "/inventory/work_order_parts",
  type: "WorkOrderPart",
  fields: { list: "workOrderParts", countBy: "workOrderPartsCountBy", one: "workOrderPart" },
  page: WorkOrderPartPage,
  item: WorkOrderPartRef,
  table: (ctx) => ctx.db.workOrderPart,
  scope: teamScope,
  spec: WORK_ORDER_PART_LIST,
  description: "Parts the team recorded on work orders (returns have negative quantities), newest first",
});
