// Purchasing as GraphQL types, named as their envelope types: SupplierPurchaseRequest(LineItem),
// SupplierPurchaseOrder(LineItem), SupplierReceipt; the published transition tables; the write bodies.
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { requestScope } from "./rules/requests.ts";
import { orderScope } from "./rules/orders.ts";
import { pageType } from "../core/list.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { Prisma } from "../../db.ts";
import { moneyText, quantityText } from "../core/values.ts";
import { REQUEST_STATES, REQUEST_STATUSES } from "./rules/request-states.ts";
import { ORDER_STATES, ORDER_STATUSES } from "./rules/order-states.ts";

export const RequestStatusEnum = builder.enumType("PurchaseRequestStatus", { values: REQUEST_STATUSES });
export const OrderStatusEnum = builder.enumType("PurchaseOrderStatus", { values: ORDER_STATUSES });

type Money = Prisma.Decimal;
/** quantity × unit cost, rounded half up to cents. */
const lineTotal = (quantity: Money, unitCost: Money) =>
  quantity.times(unitCost).toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
const sum = (values: Money[]) => values.reduce((a, b) => a.plus(b), new Prisma.Decimal(0));

const RequestLineItemRef = builder.prismaObject("PurchaseRequestLineItem", {
  name: "SupplierPurchaseRequestLineItem",
  fields: (t) => ({
    id: t.exposeInt("id"),
    purchaseRequestId: t.exposeInt("purchaseRequestId"),
    partId: t.exposeInt("partId", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    quantity: t.string({ description: "Decimal string, 4 decimals", resolve: (l) => quantityText(l.quantity) }),
    estimatedUnitCost: t.string({
      nullable: true,
      description: "Decimal string, 2 decimals",
      resolve: (l) => moneyText(l.estimatedUnitCost),
    }),
    workOrderId: t.exposeInt("workOrderId", { nullable: true }),
    purchaseOrderLineItemId: t.exposeInt("purchaseOrderLineItemId", {
      nullable: true,
      description: "The purchase order line covering this line",
    }),
    purchaseOrderId: t.int({
      nullable: true,
      select: { purchaseOrderLineItem: { select: { purchaseOrderId: true } } },
      resolve: (l) => l.purchaseOrderLineItem?.purchaseOrderId ?? null,
    }),
    part: t.relation("part", { nullable: true, subGraphs: ["graphql"] }),
  }),
});

export const RequestRef = builder.prismaNode("PurchaseRequest", {
  ...scopedNode(requestScope),
  name: "SupplierPurchaseRequest",
  fields: (t) => ({
    id: t.exposeInt("id"),
    status: t.field({ type: RequestStatusEnum, resolve: (r) => r.status }),
    description: t.exposeString("description", { nullable: true }),
    neededBy: t.expose("neededBy", { type: "Date", nullable: true }),
    requestedBy: t.exposeString("requestedBy", { description: "Email of the contact whose key created it" }),
    submittedAt: t.expose("submittedAt", { type: "DateTime", nullable: true }),
    approvedAt: t.expose("approvedAt", { type: "DateTime", nullable: true }),
    approvedBy: t.exposeString("approvedBy", { nullable: true }),
    rejectedAt: t.expose("rejectedAt", { type: "DateTime", nullable: true }),
    rejectedBy: t.exposeString("rejectedBy", { nullable: true }),
    rejectionReason: t.exposeString("rejectionReason", { nullable: true }),
    orderedAt: t.expose("orderedAt", { type: "DateTime", nullable: true }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime" }),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    estimatedTotal: t.string({
      nullable: true,
      description: "Sum of quantity × estimated unit cost (cents, half up); null while a line has no estimate",
      select: { lineItems: { select: { quantity: true, estimatedUnitCost: true } } },
      resolve: (r) =>
        r.lineItems.some((l) => l.estimatedUnitCost === null)
          ? null
          : moneyText(sum(r.lineItems.map((l) => lineTotal(l.quantity, l.estimatedUnitCost!)))),
    }),
    lineItems: t.relation("lineItems", { query: { orderBy: { id: "asc" } } }),
    lines: t.relatedConnection(
      "lineItems",
      {
        ...connectionLimits,
        cursor: "id",
        subGraphs: ["graphql"],
        description: "The request's lines, by id (each with its part); lineItems without paging",
        totalCount: true,
        query: { orderBy: { id: "asc" } },
      },
      ...connectionTypes("A page of a purchase request's lines", "A purchase request line and its cursor"),
    ),
  }),
});

const OrderLineItemRef = builder.prismaObject("PurchaseOrderLineItem", {
  name: "SupplierPurchaseOrderLineItem",
  fields: (t) => ({
    id: t.exposeInt("id"),
    purchaseOrderId: t.exposeInt("purchaseOrderId"),
    partId: t.exposeInt("partId", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    quantity: t.string({
      description: "Ordered: decimal string, 4 decimals",
      resolve: (l) => quantityText(l.quantity),
    }),
    unitCost: t.string({ description: "Decimal string, 2 decimals", resolve: (l) => moneyText(l.unitCost) }),
    lineTotal: t.string({
      description: "quantity × unitCost, rounded half up to cents",
      resolve: (l) => moneyText(lineTotal(l.quantity, l.unitCost)),
    }),
    quantityReceived: t.string({
      description: "Received net of returns",
      resolve: (l) => quantityText(l.quantityReceived),
    }),
    purchaseRequestLineItemIds: t.intList({
      description: "Request lines this line covers",
      select: { purchaseRequestLineItems: { select: { id: true }, orderBy: { id: "asc" } } },
      resolve: (l) => l.purchaseRequestLineItems.map((r) => r.id),
    }),
    part: t.relation("part", { nullable: true, subGraphs: ["graphql"] }),
    purchaseRequestLineItems: t.relation("purchaseRequestLineItems", {
      subGraphs: ["graphql"],
      query: { orderBy: { id: "asc" } },
    }),
  }),
});

export const OrderRef = builder.prismaNode("PurchaseOrder", {
  ...scopedNode(orderScope),
  name: "SupplierPurchaseOrder",
  fields: (t) => ({
    id: t.exposeInt("id"),
    status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status }),
    vendorId: t.exposeInt("vendorId"),
    notes: t.exposeString("notes", { nullable: true }),
    expectedAt: t.expose("expectedAt", { type: "Date", nullable: true }),
    createdBy: t.exposeString("createdBy", { description: "Email of the contact whose key created it" }),
    orderedAt: t.expose("orderedAt", { type: "DateTime", nullable: true }),
    receivedAt: t.expose("receivedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it became fully received; null while it is not",
    }),
    cancelledAt: t.expose("cancelledAt", { type: "DateTime", nullable: true }),
    cancellationReason: t.exposeString("cancellationReason", { nullable: true }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime" }),
    supplierCompanyId: t.exposeInt("supplierCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    total: t.string({
      description: "Sum of the line totals",
      select: { lineItems: { select: { quantity: true, unitCost: true } } },
      resolve: (o) => moneyText(sum(o.lineItems.map((l) => lineTotal(l.quantity, l.unitCost)))),
    }),
    lineItems: t.relation("lineItems", { query: { orderBy: { id: "asc" } } }),
    lines: t.relatedConnection(
      "lineItems",
      {
        ...connectionLimits,
        cursor: "id",
        subGraphs: ["graphql"],
        description: "The order's lines, by id (each with its part); lineItems without paging",
        totalCount: true,
        query: { orderBy: { id: "asc" } },
      },
      ...connectionTypes("A page of a purchase order's lines", "A purchase order line and its cursor"),
    ),
    vendor: t.relation("vendor", { subGraphs: ["graphql"] }),
    receipts: t.relation("receipts", { subGraphs: ["graphql"], query: { orderBy: { id: "asc" } } }),
  }),
});

const ReceiptLineRef = builder.prismaObject("ReceiptLine", {
  name: "SupplierReceiptLine",
  fields: (t) => ({
    id: t.exposeInt("id"),
    purchaseOrderLineItemId: t.exposeInt("purchaseOrderLineItemId"),
    partId: t.int({
      nullable: true,
      select: { purchaseOrderLineItem: { select: { partId: true } } },
      resolve: (l) => l.purchaseOrderLineItem.partId,
    }),
    stockLocationId: t.exposeInt("stockLocationId", { nullable: true }),
    quantityReceived: t.string({
      description: "Decimal string, 4 decimals; negative for a return",
      resolve: (l) => quantityText(l.quantityReceived),
    }),
  }),
});

export const ReceiptRef = builder.prismaObject("Receipt", {
  name: "SupplierReceipt",
  fields: (t) => ({
    id: t.exposeInt("id"),
    purchaseOrderId: t.exposeInt("purchaseOrderId"),
    receivedAt: t.expose("receivedAt", { type: "DateTime" }),
    receivedBy: t.exposeString("receivedBy", { description: "Email of the contact whose key recorded it" }),
    note: t.exposeString("note", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    purchaseOrderStatus: t.field({
      type: OrderStatusEnum,
      description: "The order's status now",
      select: { purchaseOrder: { select: { status: true } } },
      resolve: (r) => r.purchaseOrder.status,
    }),
    lines: t.field({ type: [ReceiptLineRef], select: { lines: { orderBy: { id: "asc" } } }, resolve: (r) => r.lines }),
  }),
});

export const RequestPage = pageType("SupplierPurchaseRequest", RequestRef);
export const RequestLineItemPage = pageType("SupplierPurchaseRequestLineItem", RequestLineItemRef);
export const OrderPage = pageType("SupplierPurchaseOrder", OrderRef);
export const OrderLineItemPage = pageType("SupplierPurchaseOrderLineItem", OrderLineItemRef);
export const ReceiptPage = pageType("SupplierReceipt", ReceiptRef);

interface PublishedRow {
  action: string;
  actor: string;
  from: readonly string[];
  to: readonly string[];
}

const TransitionRef = builder.objectRef<PublishedRow>("PurchasingTransition").implement({
  subGraphs: ["graphql"],
  description:
    "One row of a purchasing transition table: the action, who takes it, from which statuses, where it can lead",
  fields: (t) => ({
    action: t.exposeString("action"),
    actor: t.exposeString("actor", { description: "team (purchasing.write), approver (purchasing.approve) or system" }),
    from: t.stringList({ description: "Empty for create", resolve: (r) => [...r.from] }),
    to: t.stringList({ resolve: (r) => [...r.to] }),
  }),
});

export const TRANSITION_TABLES = builder
  .objectRef<{ purchaseRequest: PublishedRow[]; purchaseOrder: PublishedRow[] }>("PurchasingTransitions")
  .implement({
    subGraphs: ["graphql"],
    fields: (t) => ({
      purchaseRequest: t.field({ type: [TransitionRef], resolve: (r) => r.purchaseRequest }),
      purchaseOrder: t.field({ type: [TransitionRef], resolve: (r) => r.purchaseOrder }),
    }),
  });

export const transitionTables = () => ({
  purchaseRequest: [...REQUEST_STATES.rows],
  purchaseOrder: [...ORDER_STATES.rows],
});

// ---- write bodies

const RequestLineItemInput = builder.inputType("PurchaseRequestLineItemInput", {
  fields: (t) => ({
    partId: t.int({ description: "A part of the team; or give a description (free text)" }),
    description: t.string(),
    quantity: t.string({ required: true, description: "Decimal string, positive, at most 4 decimals" }),
    estimatedUnitCost: t.string({ description: "Decimal string, at most 2 decimals; default: the part's unit cost" }),
    workOrderId: t.int({ description: "A work order the team serves" }),
  }),
});

export const RequestInput = builder.inputType("PurchaseRequestInput", {
  fields: (t) => ({
    description: t.string(),
    neededBy: t.field({ type: "Date" }),
    lineItems: t.field({ type: [RequestLineItemInput], required: true, description: `1 to 200 lines` }),
  }),
});

export const RejectInput = builder.inputType("PurchaseRequestRejectInput", {
  fields: (t) => ({ reason: t.string({ required: true, description: "Why the request is rejected (not blank)" }) }),
});

const OrderLineItemInput = builder.inputType("PurchaseOrderLineItemInput", {
  fields: (t) => ({
    partId: t.int({ description: "A part of the team; or give a description (free text)" }),
    description: t.string(),
    quantity: t.string({ required: true, description: "Decimal string, positive, at most 4 decimals" }),
    unitCost: t.string({
      description: "Decimal string, at most 2 decimals; default: the part's unit cost (required when it has none)",
    }),
  }),
});

export const OrderInput = builder.inputType("PurchaseOrderInput", {
  fields: (t) => ({
    vendorId: t.int({ required: true, description: "An active vendor of the team" }),
    notes: t.string(),
    expectedAt: t.field({ type: "Date" }),
    lineItems: t.field({ type: [OrderLineItemInput], required: true, description: "1 to 200 lines" }),
  }),
});

export const CancelInput = builder.inputType("PurchaseOrderCancelInput", {
  fields: (t) => ({ reason: t.string() }),
});

export const AssociateInput = builder.inputType("PurchaseRequestLineItemIdsInput", {
  fields: (t) => ({
    // JSON rather than [Int!]: the messages for bad ids are ours (as for PUT …/labels).
    ids: t.field({
      type: "JSON",
      description: "Every request line item id this order line covers (the full set; [] clears)",
    }),
  }),
});

const ReceiptLineInput = builder.inputType("ReceiptLineInput", {
  fields: (t) => ({
    purchaseOrderLineItemId: t.int({ required: true }),
    quantityReceived: t.string({
      required: true,
      description: "Decimal string, at most 4 decimals, not zero; negative records a return",
    }),
    stockLocationId: t.int({ description: "Where the parts go (or come back from); required for lines of a part" }),
  }),
});

export const ReceiptInput = builder.inputType("ReceiptInput", {
  fields: (t) => ({
    receivedAt: t.field({ type: "DateTime", description: "Default: now" }),
    note: t.string(),
    lines: t.field({ type: [ReceiptLineInput], required: true, description: "1 to 200 lines" }),
  }),
});
