// Reads of the team's catalogs and consumed parts: list, count_by and one each (partner keys only).
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
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
import type { Context } from "../core/context.ts";

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

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
const PARTNERS = ["partners"] as const;
const NAME_ORDER = { id: "Id", name: "Name", createdAt: "Creation time", updatedAt: "Last change" };
const BY_NAME = [{ field: "name", direction: "asc" }] as const;
const teamScopeOf = (ctx: Context) => teamScope(ctx.viewer);

listConnection("vendorsConnection", {
  type: VendorRef,
  typeName: "Vendor",
  description: "The team's vendors.",
  interfaces: PARTNERS,
  table: (ctx) => VENDORS.table(ctx.db),
  scope: teamScopeOf,
  filter: defineFilter("VendorFilter", "Vendor", "Vendors", {
    ids: match.ids("id", "Vendor ids"),
    isActive: match.flag("isActive", "Active vendors (true) or inactive ones (false)"),
    search: match.text(["name", "email", "accountNumber"], "Text in the name, email or account number (any case)"),
  }),
  order: defineOrder("Vendor", "Vendor", NAME_ORDER, BY_NAME),
});

listConnection("partsConnection", {
  type: PartRef,
  typeName: "Part",
  description: "The team's parts catalog.",
  interfaces: PARTNERS,
  table: (ctx) => PARTS.table(ctx.db),
  scope: teamScopeOf,
  filter: defineFilter("PartFilter", "Part", "Parts", {
    ids: match.ids("id", "Part ids"),
    defaultVendorIds: match.ids("defaultVendorId", "Default vendor ids"),
    equipmentTypeIds: match.ids("equipmentTypeId", "Equipment type ids"),
    isActive: match.flag("isActive", "Active parts (true) or inactive ones (false)"),
    search: match.text(["number", "name", "description"], "Text in the part number, name or description (any case)"),
  }),
  order: defineOrder("Part", "Part", { ...NAME_ORDER, number: "Part number", unit: "Unit" }, BY_NAME),
});

listConnection("equipmentTypesConnection", {
  type: EquipmentTypeRef,
  typeName: "EquipmentType",
  description: "The team's equipment types.",
  interfaces: PARTNERS,
  table: (ctx) => EQUIPMENT_TYPES.table(ctx.db),
  scope: teamScopeOf,
  filter: defineFilter("EquipmentTypeFilter", "EquipmentType", "Equipment types", {
    ids: match.ids("id", "Equipment type ids"),
    search: match.text(["name", "manufacturer", "modelNumber"], "Text in the name, manufacturer or model number"),
  }),
  order: defineOrder("EquipmentType", "EquipmentType", NAME_ORDER, BY_NAME),
});

listConnection("stockLocationsConnection", {
  type: StockLocationRef,
  typeName: "StockLocation",
  description: "The team's stock locations.",
  interfaces: PARTNERS,
  table: (ctx) => STOCK_LOCATIONS.table(ctx.db),
  scope: teamScopeOf,
  filter: defineFilter("StockLocationFilter", "StockLocation", "Stock locations", {
    ids: match.ids("id", "Stock location ids"),
    search: match.text(["name", "description"], "Text in the name or description (any case)"),
  }),
  order: defineOrder("StockLocation", "StockLocation", NAME_ORDER, BY_NAME),
});

listConnection("workOrderPartsConnection", {
  type: WorkOrderPartRef,
  typeName: "WorkOrderPart",
  description: "Parts the team recorded on work orders (returns have negative quantities).",
  interfaces: PARTNERS,
  table: (ctx) => ctx.db.workOrderPart,
  scope: teamScopeOf,
  filter: defineFilter("WorkOrderPartFilter", "WorkOrderPart", "Consumed parts", {
    ids: match.ids("id", "Record ids"),
    workOrderIds: match.ids("workOrderId", "Work order ids"),
    partIds: match.ids("partId", "Part ids"),
    stockLocationIds: match.ids("stockLocationId", "Stock location ids"),
    consumedAt: match.range("consumedAt", "Consumed in this range"),
    search: match.text(["consumedBy", "note"], "Text in who consumed it or the note (any case)"),
  }),
  order: defineOrder(
    "WorkOrderPart",
    "WorkOrderPart",
    { id: "Record id", consumedAt: "When consumed", workOrderId: "Work order id", partId: "Part id" },
    [{ field: "id", direction: "desc" }],
  ),
});
