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
import { answeredArray, answeredDecimalText, answeredRelation, answeredValue } from "../core/statement-answers.ts";
import { REQUEST_STATES, REQUEST_STATUSES } from "./rules/request-states.ts";
import { ORDER_STATES, ORDER_STATUSES } from "./rules/order-states.ts";
import { describedValues } from "../core/enums.ts";

export const RequestStatusEnum = builder.enumType("PurchaseRequestStatus", {
  description: "Where a purchase request is in its lifecycle (docs/purchasing.md)",
  values: describedValues(REQUEST_STATUSES, {
    draft: "Created, not yet submitted for approval",
    submitted: "Waiting for an approver",
    approved: "Approved; its lines can be put on purchase orders",
    rejected: "Refused by an approver (rejectionReason); final",
    ordered: "Every line is on an ordered purchase order",
  }),
});
export const OrderStatusEnum = builder.enumType("PurchaseOrderStatus", {
  description: "Where a purchase order is in its lifecycle (docs/purchasing.md)",
  values: describedValues(ORDER_STATUSES, {
    draft: "Created, lines can still be associated; not sent to the vendor",
    ordered: "Sent to the vendor (mark_ordered); nothing received yet, or everything received was returned",
    partially_received: "Some but not all of the ordered quantity was received",
    received: "Everything ordered was received",
    cancelled: "Cancelled from draft or ordered; its request lines are freed; final",
  }),
});

type Money = Prisma.Decimal;
/** quantity × unit cost, rounded half up to cents. */
const lineTotal = (quantity: Money, unitCost: Money) =>
  quantity.times(unitCost).toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
const sum = (values: Money[]) => values.reduce((a, b) => a.plus(b), new Prisma.Decimal(0));

// A line's total for a statement that answers the rows (core/statement-answers.ts): PostgreSQL's round
// takes halves away from zero, as ROUND_HALF_UP does.
const lineTotalSql = (line: string) => Prisma.raw(`round(${line}.quantity * ${line}."unitCost", 2)`);

const RequestLineItemRef = builder.prismaObject("PurchaseRequestLineItem", {
  name: "SupplierPurchaseRequestLineItem",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The request line's id" }),
    purchaseRequestId: t.exposeInt("purchaseRequestId", {
      description: "Id of the purchase request the line belongs to",
    }),
    partId: t.exposeInt("partId", {
      nullable: true,
      description: "Id of the part requested; null for a free-text line",
    }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Free-text description of what is needed; null when the line names only a part",
    }),
    quantity: t.string({ description: "Decimal string, 4 decimals", resolve: (l) => quantityText(l.quantity) }),
    estimatedUnitCost: t.string({
      nullable: true,
      description: "Decimal string, 2 decimals",
      resolve: (l) => moneyText(l.estimatedUnitCost),
    }),
    workOrderId: t.exposeInt("workOrderId", {
      nullable: true,
      description: "Id of the work order the parts are for; null when none",
    }),
    purchaseOrderLineItemId: t.exposeInt("purchaseOrderLineItemId", {
      nullable: true,
      description: "The purchase order line covering this line",
    }),
    purchaseOrderId: t.int({
      description: "Id of the purchase order covering this line; null until it is put on one",
      nullable: true,
      select: { purchaseOrderLineItem: { select: { purchaseOrderId: true } } },
      resolve: (l) => l.purchaseOrderLineItem?.purchaseOrderId ?? null,
    }),
    part: t.relation("part", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The part requested; null for a free-text line",
    }),
  }),
  description: "One line of a purchase request: a part of the team's catalog or a free-text need, with its quantity",
});

export const RequestRef = builder.prismaNode("PurchaseRequest", {
  ...scopedNode(requestScope),
  name: "SupplierPurchaseRequest",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The purchase request's id" }),
    status: t.field({
      type: RequestStatusEnum,
      resolve: (r) => r.status,
      description: "Where the request is in its lifecycle",
    }),
    description: t.exposeString("description", {
      nullable: true,
      description: "What the request is for (free text); null when none",
    }),
    neededBy: t.expose("neededBy", {
      type: "Date",
      nullable: true,
      description: "Calendar date the parts are needed by; null when not given",
    }),
    requestedBy: t.exposeString("requestedBy", { description: "Email of the contact whose key created it" }),
    submittedAt: t.expose("submittedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the request was submitted for approval; null while a draft",
    }),
    approvedAt: t.expose("approvedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the request was approved; null unless approved",
    }),
    approvedBy: t.exposeString("approvedBy", {
      nullable: true,
      description: "Email of the approver; null unless approved",
    }),
    rejectedAt: t.expose("rejectedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the request was rejected; null unless rejected",
    }),
    rejectedBy: t.exposeString("rejectedBy", {
      nullable: true,
      description: "Email of the approver who rejected it; null unless rejected",
    }),
    rejectionReason: t.exposeString("rejectionReason", {
      nullable: true,
      description: "Why the request was rejected; null unless rejected",
    }),
    orderedAt: t.expose("orderedAt", {
      type: "DateTime",
      nullable: true,
      description:
        "When every line got onto an ordered purchase order; null until then (cleared when such an order is cancelled)",
    }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime", description: "When the status last changed" }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) that made the request",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the request was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the request was last written" }),
    estimatedTotal: t.string({
      nullable: true,
      description: "Sum of quantity × estimated unit cost (cents, half up); null while a line has no estimate",
      // The lines as the lineItems field loads them, so that Pothos loads them once for both.
      select: { lineItems: { orderBy: { id: "asc" } } },
      resolve: (r) =>
        r.lineItems.some((l) => l.estimatedUnitCost === null)
          ? null
          : moneyText(sum(r.lineItems.map((l) => lineTotal(l.quantity, l.estimatedUnitCost!)))),
    }),
    lineItems: t.relation("lineItems", {
      query: { orderBy: { id: "asc" } },
      description: "The request's lines, by id",
    }),
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
  description:
    "An internal team's request to buy parts, approved before it is ordered (lifecycle in docs/purchasing.md)",
});

const OrderLineItemRef = builder.prismaObject("PurchaseOrderLineItem", {
  name: "SupplierPurchaseOrderLineItem",
  // Loaded with every line, so purchaseRequestLineItemIds needs no selection of its own: a field planned
  // under the order's planned lineItems keeps a list of orders off compiled execution (http/graphql-jit.ts).
  include: { purchaseRequestLineItems: { select: { id: true }, orderBy: { id: "asc" } } },
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The order line's id" }),
    purchaseOrderId: t.exposeInt("purchaseOrderId", { description: "Id of the purchase order the line belongs to" }),
    partId: t.exposeInt("partId", {
      nullable: true,
      description: "Id of the part ordered; null for a free-text line (e.g. freight)",
    }),
    description: t.exposeString("description", {
      nullable: true,
      description: "Free-text description of the item; null when the line names only a part",
    }),
    quantity: t.string({
      description: "Ordered: decimal string, 4 decimals",
      extensions: answeredDecimalText("quantity"),
      resolve: (l) => quantityText(l.quantity),
    }),
    unitCost: t.string({
      description: "Decimal string, 2 decimals",
      extensions: answeredDecimalText("unitCost"),
      resolve: (l) => moneyText(l.unitCost),
    }),
    lineTotal: t.string({
      description: "quantity × unitCost, rounded half up to cents",
      extensions: answeredValue((line) => Prisma.sql`${lineTotalSql(line)}::text`),
      resolve: (l) => moneyText(lineTotal(l.quantity, l.unitCost)),
    }),
    quantityReceived: t.string({
      description: "Received net of returns",
      extensions: answeredDecimalText("quantityReceived"),
      resolve: (l) => quantityText(l.quantityReceived),
    }),
    purchaseRequestLineItemIds: t.intList({
      description: "Request lines this line covers",
      extensions: answeredArray(
        (line) => Prisma.sql`(SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}') FROM "PurchaseRequestLineItem" r
          WHERE r."purchaseOrderLineItemId" = ${Prisma.raw(line)}.id)`,
      ),
      resolve: (l) => l.purchaseRequestLineItems.map((r) => r.id),
    }),
    part: t.relation("part", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The part ordered; null for a free-text line",
    }),
    purchaseRequestLineItems: t.relation("purchaseRequestLineItems", {
      description: "The request lines this order line covers, by id",
      subGraphs: ["graphql"],
      query: { orderBy: { id: "asc" } },
    }),
  }),
  description: "One line of a purchase order: a part or a free-text item, its quantity, cost and what was received",
});

export const OrderRef = builder.prismaNode("PurchaseOrder", {
  ...scopedNode(orderScope),
  name: "SupplierPurchaseOrder",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The purchase order's id" }),
    status: t.expose("status", { type: OrderStatusEnum, description: "Where the order is in its lifecycle" }),
    vendorId: t.exposeInt("vendorId", { description: "Id of the vendor the order is placed with" }),
    notes: t.exposeString("notes", { nullable: true, description: "Notes for the order (free text); null when none" }),
    expectedAt: t.expose("expectedAt", {
      type: "Date",
      nullable: true,
      description: "Calendar date the delivery is expected; null when not given",
    }),
    createdBy: t.exposeString("createdBy", { description: "Email of the contact whose key created it" }),
    orderedAt: t.expose("orderedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the order was marked ordered (sent to the vendor); null while a draft",
    }),
    receivedAt: t.expose("receivedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it became fully received; null while it is not",
    }),
    cancelledAt: t.expose("cancelledAt", {
      type: "DateTime",
      nullable: true,
      description: "When the order was cancelled; null unless cancelled",
    }),
    cancellationReason: t.exposeString("cancellationReason", {
      nullable: true,
      description: "Why the order was cancelled; null when none was given",
    }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime", description: "When the status last changed" }),
    supplierCompanyId: t.exposeInt("supplierCompanyId", {
      description: "Id of the internal team (supplier company) that placed the order",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the order was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the order was last written" }),
    total: t.string({
      description: "Sum of the line totals",
      // The lines as the lineItems field loads them, so that Pothos loads them once for both.
      select: { lineItems: { orderBy: { id: "asc" } } },
      // 0.00 keeps the scale of an order without lines.
      extensions: answeredValue(
        (order) => Prisma.sql`(SELECT coalesce(sum(${lineTotalSql("l")}), 0.00)::text FROM "PurchaseOrderLineItem" l
          WHERE l."purchaseOrderId" = ${Prisma.raw(order)}.id)`,
      ),
      resolve: (o) => moneyText(sum(o.lineItems.map((l) => lineTotal(l.quantity, l.unitCost)))),
    }),
    lineItems: t.relation("lineItems", {
      query: { orderBy: { id: "asc" } },
      extensions: answeredRelation({ orderBy: [{ id: "asc" }] }),
      description: "The order's lines, by id",
    }),
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
    vendor: t.relation("vendor", { subGraphs: ["graphql"], description: "The vendor the order is placed with" }),
    receipts: t.relation("receipts", {
      subGraphs: ["graphql"],
      query: { orderBy: { id: "asc" } },
      description: "The receipts (and returns) recorded against the order, oldest first",
    }),
  }),
  description:
    "An internal team's order of parts from one vendor, received through receipts (lifecycle in docs/purchasing.md)",
});

const ReceiptLineRef = builder.prismaObject("ReceiptLine", {
  name: "SupplierReceiptLine",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The receipt line's id" }),
    purchaseOrderLineItemId: t.exposeInt("purchaseOrderLineItemId", { description: "Id of the order line received" }),
    partId: t.int({
      description: "Id of the part received; null for a free-text order line",
      nullable: true,
      select: { purchaseOrderLineItem: { select: { partId: true } } },
      resolve: (l) => l.purchaseOrderLineItem.partId,
    }),
    stockLocationId: t.exposeInt("stockLocationId", {
      nullable: true,
      description: "Id of the stock location the parts went into (or came back from); null for a free-text line",
    }),
    quantityReceived: t.string({
      description: "Decimal string, 4 decimals; negative for a return",
      resolve: (l) => quantityText(l.quantityReceived),
    }),
  }),
  description: "One line of a receipt: a quantity of an order line received into (or returned from) a stock location",
});

export const ReceiptRef = builder.prismaObject("Receipt", {
  name: "SupplierReceipt",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The receipt's id" }),
    purchaseOrderId: t.exposeInt("purchaseOrderId", { description: "Id of the purchase order received against" }),
    receivedAt: t.expose("receivedAt", {
      type: "DateTime",
      description: "When the goods were received (default: when recorded)",
    }),
    receivedBy: t.exposeString("receivedBy", { description: "Email of the contact whose key recorded it" }),
    note: t.exposeString("note", { nullable: true, description: "Note about the delivery; null when none" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the receipt was recorded" }),
    purchaseOrderStatus: t.field({
      type: OrderStatusEnum,
      description: "The order's status now",
      select: { purchaseOrder: { select: { status: true } } },
      resolve: (r) => r.purchaseOrder.status,
    }),
    lines: t.field({
      type: [ReceiptLineRef],
      select: { lines: { orderBy: { id: "asc" } } },
      resolve: (r) => r.lines,
      description: "The receipt's lines, by id",
    }),
  }),
  description: "A delivery (or return) recorded against a purchase order",
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
    action: t.exposeString("action", {
      description: "The action's name (e.g. submit, mark_ordered), as in the REST action paths",
    }),
    actor: t.exposeString("actor", { description: "team (purchasing.write), approver (purchasing.approve) or system" }),
    from: t.stringList({ description: "Empty for create", resolve: (r) => [...r.from] }),
    to: t.stringList({ resolve: (r) => [...r.to], description: "Statuses the action can lead to" }),
  }),
});

export const TRANSITION_TABLES = builder
  .objectRef<{ purchaseRequest: PublishedRow[]; purchaseOrder: PublishedRow[] }>("PurchasingTransitions")
  .implement({
    description: "The two purchasing transition tables",
    subGraphs: ["graphql"],
    fields: (t) => ({
      purchaseRequest: t.field({
        type: [TransitionRef],
        resolve: (r) => r.purchaseRequest,
        description: "The purchase request table (draft, submitted, approved, rejected, ordered)",
      }),
      purchaseOrder: t.field({
        type: [TransitionRef],
        resolve: (r) => r.purchaseOrder,
        description: "The purchase order table (draft, ordered, partially_received, received, cancelled)",
      }),
    }),
  });

export const transitionTables = () => ({
  purchaseRequest: [...REQUEST_STATES.rows],
  purchaseOrder: [...ORDER_STATES.rows],
});

// ---- write bodies

const RequestLineItemInput = builder.inputType("PurchaseRequestLineItemInput", {
  description: "One line of a purchase request create: a part or a free-text need (or both)",
  fields: (t) => ({
    partId: t.int({ description: "A part of the team; or give a description (free text)" }),
    description: t.string({ description: "Free-text description of what is needed" }),
    quantity: t.string({ required: true, description: "Decimal string, positive, at most 4 decimals" }),
    estimatedUnitCost: t.string({ description: "Decimal string, at most 2 decimals; default: the part's unit cost" }),
    workOrderId: t.int({ description: "A work order the team serves" }),
  }),
});

export const RequestInput = builder.inputType("PurchaseRequestInput", {
  description: "Body of a purchase request create (created as a draft)",
  fields: (t) => ({
    description: t.string({ description: "What the request is for (free text)" }),
    neededBy: t.field({ type: "Date", description: "Calendar date the parts are needed by (YYYY-MM-DD)" }),
    lineItems: t.field({ type: [RequestLineItemInput], required: true, description: `1 to 200 lines` }),
  }),
});

export const RejectInput = builder.inputType("PurchaseRequestRejectInput", {
  description: "Body of a purchase request rejection",
  fields: (t) => ({ reason: t.string({ required: true, description: "Why the request is rejected (not blank)" }) }),
});

const OrderLineItemInput = builder.inputType("PurchaseOrderLineItemInput", {
  description: "One line of a purchase order create: a part or a free-text item (or both)",
  fields: (t) => ({
    partId: t.int({ description: "A part of the team; or give a description (free text)" }),
    description: t.string({ description: "Free-text description of the item (e.g. freight)" }),
    quantity: t.string({ required: true, description: "Decimal string, positive, at most 4 decimals" }),
    unitCost: t.string({
      description: "Decimal string, at most 2 decimals; default: the part's unit cost (required when it has none)",
    }),
  }),
});

export const OrderInput = builder.inputType("PurchaseOrderInput", {
  description: "Body of a purchase order create (created as a draft)",
  fields: (t) => ({
    vendorId: t.int({ required: true, description: "An active vendor of the team" }),
    notes: t.string({ description: "Notes for the order (free text)" }),
    expectedAt: t.field({ type: "Date", description: "Calendar date the delivery is expected (YYYY-MM-DD)" }),
    lineItems: t.field({ type: [OrderLineItemInput], required: true, description: "1 to 200 lines" }),
  }),
});

export const CancelInput = builder.inputType("PurchaseOrderCancelInput", {
  description: "Optional body of a purchase order cancellation",
  fields: (t) => ({ reason: t.string({ description: "Why the order is cancelled" }) }),
});

export const AssociateInput = builder.inputType("PurchaseRequestLineItemIdsInput", {
  description: "The complete set of approved request lines an order line should cover afterwards",
  fields: (t) => ({
    // JSON rather than [Int!]: the messages for bad ids are ours (as for PUT …/labels).
    ids: t.field({
      type: "JSON",
      description: "Every request line item id this order line covers (the full set; [] clears)",
    }),
  }),
});

const ReceiptLineInput = builder.inputType("ReceiptLineInput", {
  description: "One line of a receipt: how much of an order line arrived (or went back)",
  fields: (t) => ({
    purchaseOrderLineItemId: t.int({ required: true, description: "A line of the purchase order" }),
    quantityReceived: t.string({
      required: true,
      description: "Decimal string, at most 4 decimals, not zero; negative records a return",
    }),
    stockLocationId: t.int({ description: "Where the parts go (or come back from); required for lines of a part" }),
  }),
});

export const ReceiptInput = builder.inputType("ReceiptInput", {
  description: "Body recording a receipt (or return) against a purchase order",
  fields: (t) => ({
    receivedAt: t.field({ type: "DateTime", description: "Default: now" }),
    note: t.string({ description: "Note about the delivery" }),
    lines: t.field({ type: [ReceiptLineInput], required: true, description: "1 to 200 lines" }),
  }),
});
