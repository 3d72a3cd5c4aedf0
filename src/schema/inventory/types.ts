// The internal teams' catalogs and stock as GraphQL types (envelope types Vendor, EquipmentType, Part,
// StockLocation, WorkOrderPart), their write bodies, and the work order's `parts` (GraphQL only).
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { teamScope } from "./rules/fields.ts";
import { masked } from "../core/masking.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { pageType } from "../core/list.ts";
import { Prisma } from "../../db.ts";
import { moneyText, quantityText } from "../core/values.ts";

export const VendorRef = builder.prismaNode("Vendor", {
  ...scopedNode(teamScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The vendor's id" }),
    name: t.exposeString("name", { description: "Display name of the vendor" }),
    email: t.exposeString("email", {
      nullable: true,
      description: "The vendor's own email address; null when unknown",
    }),
    phone: t.exposeString("phone", { nullable: true, description: "The vendor's phone number; null when unknown" }),
    address: t.exposeString("address", {
      nullable: true,
      description: "The vendor's postal address (free text); null when unknown",
    }),
    accountNumber: t.exposeString("accountNumber", {
      nullable: true,
      description: "The team's account number with the vendor; null when none",
    }),
    notes: t.exposeString("notes", {
      nullable: true,
      description: "The team's notes about the vendor; null when none",
    }),
    isActive: t.exposeBoolean("isActive", {
      description: "Whether the vendor takes new purchase orders (inactive vendors keep their existing orders)",
    }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) whose catalog holds the vendor",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the vendor was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the vendor was last changed" }),
  }),
  description: "A vendor an internal service team buys parts from",
});

export const EquipmentTypeRef = builder.prismaNode("EquipmentType", {
  ...scopedNode(teamScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The equipment type's id" }),
    name: t.exposeString("name", { description: "Display name of the equipment type" }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Longer description of the equipment type; null when none",
    }),
    manufacturer: t.exposeString("manufacturer", {
      nullable: true,
      description: "Manufacturer of the equipment; null when unknown",
    }),
    modelNumber: t.exposeString("modelNumber", {
      nullable: true,
      description: "The manufacturer's model number; null when unknown",
    }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) whose catalog holds the equipment type",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the equipment type was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the equipment type was last changed" }),
  }),
  description: "A kind of equipment in an internal service team's catalog, which parts may be for",
});

builder.prismaObject("StockLevel", {
  description: "On-hand quantity of one part at one stock location",
  fields: (t) => ({
    stockLocationId: t.exposeInt("stockLocationId", { description: "Id of the stock location holding the part" }),
    partId: t.exposeInt("partId", { description: "Id of the part held" }),
    quantity: t.string({ description: "Decimal string, 4 decimals", resolve: (l) => quantityText(l.onHand) }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description: "When the on-hand quantity last changed (receipt, consumption, return or stock count)",
    }),
  }),
});

// Parts reach buyer and supplier keys only through a work order's `parts` (GraphQL); a third-party
// supplier key does not see the team's costs and stock.
export const PartRef = builder.prismaNode("Part", {
  ...scopedNode(teamScope),
  extensions: masked({ thirdParty: ["unitCost", "onHand", "onHandTotal"] }),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The part's id" }),
    number: t.exposeString("number", { description: "The team's part number, unique in its catalog" }),
    name: t.exposeString("name", { description: "Display name of the part" }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Longer description of the part; null when none",
    }),
    unit: t.exposeString("unit", { description: "Unit of measure of the part's quantities (default each)" }),
    defaultVendorId: t.exposeInt("defaultVendorId", {
      nullable: true,
      description: "Id of the vendor the part is usually bought from; null when none",
    }),
    equipmentTypeId: t.exposeInt("equipmentTypeId", {
      nullable: true,
      description: "Id of the equipment type the part is for; null when none",
    }),
    unitCost: t.string({
      nullable: true,
      description: "Decimal string, 2 decimals",
      resolve: (p) => moneyText(p.unitCost),
    }),
    isActive: t.exposeBoolean("isActive", {
      description: "Whether the part is active in the team's catalog (default true)",
    }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) whose catalog holds the part",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the part was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the part was last changed" }),
    onHand: t.relation("stockLevels", {
      nullable: true,
      description: "On-hand per stock location holding the part",
      query: { orderBy: { stockLocationId: "asc" } },
    }),
    onHandTotal: t.string({
      nullable: true,
      description: "On-hand over every stock location",
      select: { stockLevels: { select: { onHand: true } } },
      resolve: (p) => quantityText(p.stockLevels.reduce((sum, l) => sum.plus(l.onHand), new Prisma.Decimal(0))),
    }),
    defaultVendor: t.relation("defaultVendor", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The vendor the part is usually bought from; null when none",
    }),
    equipmentType: t.relation("equipmentType", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The equipment type the part is for; null when none",
    }),
  }),
  description:
    "A part in an internal service team's catalog, with its stock; cost and stock are null for third-party supplier keys",
});

export const StockLocationRef = builder.prismaNode("StockLocation", {
  ...scopedNode(teamScope),
  extensions: masked({ thirdParty: ["onHand"] }),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The stock location's id" }),
    name: t.exposeString("name", { description: "Display name of the stock location" }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Longer description of the stock location; null when none",
    }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) that owns the stock location",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the stock location was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the stock location was last changed" }),
    onHand: t.relation("stockLevels", {
      nullable: true,
      description: "On-hand per part held here (parts never stocked here are absent)",
      query: { orderBy: { partId: "asc" } },
    }),
  }),
  description: "A place where an internal service team keeps parts (a warehouse, a van), with on-hand quantities",
});

export const WorkOrderPartRef = builder.prismaNode("WorkOrderPart", {
  ...scopedNode(teamScope),
  description:
    "A part taken from a stock location for a work order; a negative quantity returned unused parts to stock",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The work order part record's id" }),
    workOrderId: t.exposeInt("workOrderId", { description: "Id of the work order the part was used on" }),
    partId: t.exposeInt("partId", { description: "Id of the part used" }),
    stockLocationId: t.exposeInt("stockLocationId", {
      description: "Id of the stock location the part was taken from (or returned to)",
    }),
    quantity: t.string({
      description: "Decimal string, 4 decimals; negative for a return to stock",
      resolve: (p) => quantityText(p.quantity),
    }),
    note: t.exposeString("note", {
      nullable: true,
      description: "The technician's note about the use; null when none",
    }),
    consumedBy: t.exposeString("consumedBy", { description: "Email of the key's contact" }),
    consumedAt: t.expose("consumedAt", {
      type: "DateTime",
      description: "When the part was used (default: when it was recorded)",
    }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) that recorded the use",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the record was written" }),
    part: t.relation("part", { subGraphs: ["graphql"], description: "The part used" }),
    stockLocation: t.relation("stockLocation", {
      subGraphs: ["graphql"],
      description: "The stock location the part was taken from (or returned to)",
    }),
  }),
});

// The work order shows the parts consumed on it (GraphQL only, so the work order feature knows nothing of inventory).
builder.prismaObjectField("WorkOrder", "parts", (t) =>
  t.relatedConnection(
    "parts",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "Parts internal service teams recorded on this work order (and returns of them), oldest first",
      totalCount: true,
      // The work order's own records: whoever reads the work order reads them (costs and stock masked per type).
      query: { orderBy: { id: "asc" } },
    },
    ...connectionTypes("A page of the parts used on a work order", "A part used on the work order and its cursor"),
  ),
);

export const VendorPage = pageType("Vendor", VendorRef);
export const EquipmentTypePage = pageType("EquipmentType", EquipmentTypeRef);
export const PartPage = pageType("Part", PartRef);
export const StockLocationPage = pageType("StockLocation", StockLocationRef);
export const WorkOrderPartPage = pageType("WorkOrderPart", WorkOrderPartRef);

// ---- write bodies: one per catalog for create and PATCH (absent keeps, null clears; rules/fields.ts)

export const VendorInput = builder.inputType("VendorInput", {
  description: "Body of a vendor create, or of a vendor PATCH (absent keeps, null clears)",
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    email: t.string({ description: "The vendor's own email address" }),
    phone: t.string({ description: "The vendor's phone number" }),
    address: t.string({ description: "The vendor's postal address (free text)" }),
    accountNumber: t.string({ description: "The team's account number with the vendor" }),
    notes: t.string({ description: "The team's notes about the vendor" }),
    isActive: t.boolean({ description: "Default true; inactive vendors take no new purchase orders" }),
  }),
});

export const EquipmentTypeInput = builder.inputType("EquipmentTypeInput", {
  description: "Body of an equipment type create, or of an equipment type PATCH (absent keeps, null clears)",
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    description: t.string({ description: "Longer description of the equipment type" }),
    manufacturer: t.string({ description: "Manufacturer of the equipment" }),
    modelNumber: t.string({ description: "The manufacturer's model number" }),
  }),
});

export const PartInput = builder.inputType("PartInput", {
  description: "Body of a part create, or of a part PATCH (absent keeps, null clears)",
  fields: (t) => ({
    number: t.string({ description: "Required on create; unique in the team's catalog" }),
    name: t.string({ description: "Required on create" }),
    description: t.string({ description: "Longer description of the part" }),
    unit: t.string({ description: 'Unit of measure, default "each"' }),
    defaultVendorId: t.int({ description: "A vendor of the team" }),
    equipmentTypeId: t.int({ description: "An equipment type of the team" }),
    unitCost: t.string({ description: 'Decimal string, at most 2 decimals ("12.50")' }),
    isActive: t.boolean({ description: "Default true" }),
  }),
});

const StockCountInput = builder.inputType("StockCountInput", {
  description: "A counted on-hand quantity of one part at the stock location",
  fields: (t) => ({
    partId: t.int({ required: true, description: "A part of the team's catalog" }),
    quantity: t.string({
      required: true,
      description: "Counted on-hand: decimal string, not negative, at most 4 decimals",
    }),
  }),
});

export const StockLocationInput = builder.inputType("StockLocationInput", {
  description: "Body of a stock location create, or of a stock location PATCH (absent keeps, null clears)",
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    description: t.string({ description: "Longer description of the stock location" }),
    onHand: t.field({
      type: [StockCountInput],
      description: "A stock count: sets these parts' on-hand here (absolute); other parts keep theirs",
    }),
  }),
});

export const WorkOrderPartInput = builder.inputType("WorkOrderPartInput", {
  description: "Body recording a part used on a work order (or returned to stock)",
  fields: (t) => ({
    workOrderId: t.int({ required: true, description: "A work order the team serves" }),
    partId: t.int({ required: true, description: "A part of the team's catalog" }),
    stockLocationId: t.int({
      required: true,
      description: "A stock location of the team the part is taken from (or returned to)",
    }),
    quantity: t.string({
      required: true,
      description: "Decimal string, at most 4 decimals; negative returns unused parts of this work order to stock",
    }),
    note: t.string({ description: "The technician's note about the use" }),
    consumedAt: t.field({ type: "DateTime", description: "Default: now" }),
  }),
});
