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
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    email: t.exposeString("email", { nullable: true }),
    phone: t.exposeString("phone", { nullable: true }),
    address: t.exposeString("address", { nullable: true }),
    accountNumber: t.exposeString("accountNumber", { nullable: true }),
    notes: t.exposeString("notes", { nullable: true }),
    isActive: t.exposeBoolean("isActive"),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

export const EquipmentTypeRef = builder.prismaNode("EquipmentType", {
  ...scopedNode(teamScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    manufacturer: t.exposeString("manufacturer", { nullable: true }),
    modelNumber: t.exposeString("modelNumber", { nullable: true }),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("StockLevel", {
  description: "On-hand quantity of one part at one stock location",
  fields: (t) => ({
    stockLocationId: t.exposeInt("stockLocationId"),
    partId: t.exposeInt("partId"),
    quantity: t.string({ description: "Decimal string, 4 decimals", resolve: (l) => quantityText(l.onHand) }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

// Parts reach buyer and supplier keys only through a work order's `parts` (GraphQL); a third-party
// supplier key does not see the team's costs and stock.
export const PartRef = builder.prismaNode("Part", {
  ...scopedNode(teamScope),
  extensions: masked({ thirdParty: ["unitCost", "onHand", "onHandTotal"] }),
  fields: (t) => ({
    id: t.exposeInt("id"),
    number: t.exposeString("number"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    unit: t.exposeString("unit"),
    defaultVendorId: t.exposeInt("defaultVendorId", { nullable: true }),
    equipmentTypeId: t.exposeInt("equipmentTypeId", { nullable: true }),
    unitCost: t.string({
      nullable: true,
      description: "Decimal string, 2 decimals",
      resolve: (p) => moneyText(p.unitCost),
    }),
    isActive: t.exposeBoolean("isActive"),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
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
    defaultVendor: t.relation("defaultVendor", { nullable: true, subGraphs: ["graphql"] }),
    equipmentType: t.relation("equipmentType", { nullable: true, subGraphs: ["graphql"] }),
  }),
});

export const StockLocationRef = builder.prismaNode("StockLocation", {
  ...scopedNode(teamScope),
  extensions: masked({ thirdParty: ["onHand"] }),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    onHand: t.relation("stockLevels", {
      nullable: true,
      description: "On-hand per part held here (parts never stocked here are absent)",
      query: { orderBy: { partId: "asc" } },
    }),
  }),
});

export const WorkOrderPartRef = builder.prismaNode("WorkOrderPart", {
  ...scopedNode(teamScope),
  description:
    "A part taken from a stock location for a work order; a negative quantity returned unused parts to stock",
  fields: (t) => ({
    id: t.exposeInt("id"),
    workOrderId: t.exposeInt("workOrderId"),
    partId: t.exposeInt("partId"),
    stockLocationId: t.exposeInt("stockLocationId"),
    quantity: t.string({
      description: "Decimal string, 4 decimals; negative for a return to stock",
      resolve: (p) => quantityText(p.quantity),
    }),
    note: t.exposeString("note", { nullable: true }),
    consumedBy: t.exposeString("consumedBy", { description: "Email of the key's contact" }),
    consumedAt: t.expose("consumedAt", { type: "DateTime" }),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    part: t.relation("part", { subGraphs: ["graphql"] }),
    stockLocation: t.relation("stockLocation", { subGraphs: ["graphql"] }),
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
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    email: t.string(),
    phone: t.string(),
    address: t.string(),
    accountNumber: t.string({ description: "The team's account number with the vendor" }),
    notes: t.string(),
    isActive: t.boolean({ description: "Default true; inactive vendors take no new purchase orders" }),
  }),
});

export const EquipmentTypeInput = builder.inputType("EquipmentTypeInput", {
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    description: t.string(),
    manufacturer: t.string(),
    modelNumber: t.string(),
  }),
});

export const PartInput = builder.inputType("PartInput", {
  fields: (t) => ({
    number: t.string({ description: "Required on create; unique in the team's catalog" }),
    name: t.string({ description: "Required on create" }),
    description: t.string(),
    unit: t.string({ description: 'Unit of measure, default "each"' }),
    defaultVendorId: t.int({ description: "A vendor of the team" }),
    equipmentTypeId: t.int({ description: "An equipment type of the team" }),
    unitCost: t.string({ description: 'Decimal string, at most 2 decimals ("12.50")' }),
    isActive: t.boolean({ description: "Default true" }),
  }),
});

const StockCountInput = builder.inputType("StockCountInput", {
  fields: (t) => ({
    partId: t.int({ required: true }),
    quantity: t.string({
      required: true,
      description: "Counted on-hand: decimal string, not negative, at most 4 decimals",
    }),
  }),
});

export const StockLocationInput = builder.inputType("StockLocationInput", {
  fields: (t) => ({
    name: t.string({ description: "Required on create" }),
    description: t.string(),
    onHand: t.field({
      type: [StockCountInput],
      description: "A stock count: sets these parts' on-hand here (absolute); other parts keep theirs",
    }),
  }),
});

export const WorkOrderPartInput = builder.inputType("WorkOrderPartInput", {
  fields: (t) => ({
    workOrderId: t.int({ required: true, description: "A work order the team serves" }),
    partId: t.int({ required: true }),
    stockLocationId: t.int({ required: true }),
    quantity: t.string({
      required: true,
      description: "Decimal string, at most 4 decimals; negative returns unused parts of this work order to stock",
    }),
    note: t.string(),
    consumedAt: t.field({ type: "DateTime", description: "Default: now" }),
  }),
});
