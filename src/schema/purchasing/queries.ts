// Reads of purchase requests, orders and their line items and receipts (partner keys only).
import type { GraphQLResolveInfo } from "graphql";
import { builder } from "../core/builder.ts";
import type { Context } from "../core/context.ts";
import { restRoute } from "../core/interfaces.ts";
import { findPage, listArgs, listQuery, pageQuery, type ListArgs, type ListSpec } from "../core/list.ts";
import { countBy, countByArgs } from "../core/count-by.ts";
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { findInScope } from "../core/tenancy.ts";
import {
  OrderLineItemPage,
  OrderPage,
  OrderRef,
  OrderStatusEnum,
  ReceiptPage,
  RequestLineItemPage,
  RequestPage,
  RequestRef,
  RequestStatusEnum,
  TRANSITION_TABLES,
  transitionTables,
} from "./types.ts";
import { checkRequestFilter, REQUEST_LINE_LIST, REQUEST_LIST, requestScope } from "./rules/requests.ts";
import { checkOrderFilter, ORDER_LINE_LIST, ORDER_LIST, orderScope } from "./rules/orders.ts";
import { RECEIPT_LIST } from "./rules/receipts.ts";

readRoutes({
  interfaces: ["partners"],
  path: "/purchasing/purchase_requests",
  type: "SupplierPurchaseRequest",
  fields: { list: "purchaseRequests", countBy: "purchaseRequestsCountBy", one: "purchaseRequest" },
  page: RequestPage,
  item: RequestRef,
  table: (ctx) => ctx.db.purchaseRequest,
  scope: requestScope,
  spec: REQUEST_LIST,
  checkFilter: checkRequestFilter,
  description: "The team's purchase requests with their line items, newest first",
});

readRoutes({
  interfaces: ["partners"],
  path: "/purchasing/purchase_orders",
  type: "SupplierPurchaseOrder",
  fields: { list: "purchaseOrders", countBy: "purchaseOrdersCountBy", one: "purchaseOrder" },
  page: OrderPage,
  item: OrderRef,
  table: (ctx) => ctx.db.purchaseOrder,
  scope: orderScope,
  spec: ORDER_LIST,
  checkFilter: checkOrderFilter,
  description: "The team's purchase orders with their line items, newest first",
});

interface Table {
  findMany(args: any): Promise<any[]>;
  findFirst(args: any): Promise<any>;
  count(args: any): Promise<number>;
  groupBy(args: any): Promise<any[]>;
}

/**
 * A list below one record (`{parentPath}/:id/{child}`) and its count_by: the record must be the team's
 * (404 absent, 400 another team's, as a single read), then the list pages and filters its children.
 */
function childRoutes(r: {
  path: string;
  type: string;
  fields: { list: string; countBy: string };
  page: unknown;
  description: string;
  parent: (ctx: Context) => Table;
  scope: typeof orderScope;
  table: (ctx: Context) => Table;
  parentKey: string;
  spec: ListSpec;
}) {
  const children = async (ctx: Context, id: number) => {
    await findInScope(r.parent(ctx), id, r.scope(ctx.viewer), { select: { id: true } });
    return { [r.parentKey]: id };
  };
  builder.queryField(r.fields.list, (t) =>
    t.field({
      ...restRoute({
        interfaces: ["partners"],
        method: "GET",
        path: r.path,
        type: r.type,
        list: true,
        query: listQuery(r.spec),
      }),
      description: r.description,
      type: r.page as typeof RequestLineItemPage,
      args: {
        id: t.arg.int({
          required: true,
          description: "Id of the purchase request or purchase order the list belongs to (the {id} of the path)",
        }),
        ...listArgs,
      },
      resolve: async (_root, args, ctx, info: GraphQLResolveInfo) =>
        findPage(r.table(ctx), await children(ctx, args.id), args as ListArgs, r.spec, pageQuery(ctx, info)),
    }),
  );
  builder.queryField(r.fields.countBy, (t) =>
    t.field({
      ...restRoute({
        interfaces: ["partners"],
        method: "GET",
        path: `${r.path}/count_by`,
        type: "count",
        query: { ...listQuery(r.spec), groupable: Object.keys(r.spec.filters) },
      }),
      description: `How many ${r.type} records the list would answer for the same filters; with group_by=<filter field>, how many per value (ordered by value).`,
      type: "JSON",
      args: {
        id: t.arg.int({
          required: true,
          description: "Id of the purchase request or purchase order the list belongs to (the {id} of the path)",
        }),
        ...countByArgs,
      },
      resolve: async (_root, args, ctx) => countBy(r.table(ctx), await children(ctx, args.id), args, r.spec),
    }),
  );
}

childRoutes({
  path: "/purchasing/purchase_requests/:id/line_items",
  type: "SupplierPurchaseRequestLineItem",
  fields: { list: "purchaseRequestLineItems", countBy: "purchaseRequestLineItemsCountBy" },
  page: RequestLineItemPage,
  description: "The line items of one purchase request",
  parent: (ctx) => ctx.db.purchaseRequest,
  scope: requestScope,
  table: (ctx) => ctx.db.purchaseRequestLineItem,
  parentKey: "purchaseRequestId",
  spec: REQUEST_LINE_LIST,
});

childRoutes({
  path: "/purchasing/purchase_orders/:id/line_items",
  type: "SupplierPurchaseOrderLineItem",
  fields: { list: "purchaseOrderLineItems", countBy: "purchaseOrderLineItemsCountBy" },
  page: OrderLineItemPage,
  description: "The line items of one purchase order",
  parent: (ctx) => ctx.db.purchaseOrder,
  scope: orderScope,
  table: (ctx) => ctx.db.purchaseOrderLineItem,
  parentKey: "purchaseOrderId",
  spec: ORDER_LINE_LIST,
});

childRoutes({
  path: "/purchasing/purchase_orders/:id/receipts",
  type: "SupplierReceipt",
  fields: { list: "purchaseOrderReceipts", countBy: "purchaseOrderReceiptsCountBy" },
  page: ReceiptPage,
  description: "The receipts (and returns) recorded against one purchase order, oldest first",
  parent: (ctx) => ctx.db.purchaseOrder,
  scope: orderScope,
  table: (ctx) => ctx.db.receipt,
  parentKey: "purchaseOrderId",
  spec: RECEIPT_LIST,
});

// GraphQL only: the tables every purchasing status change goes through.
builder.queryField("purchasingTransitions", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description: "The purchase request and purchase order transition tables.",
    type: TRANSITION_TABLES,
    resolve: () => transitionTables(),
  }),
);

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("purchaseRequestsConnection", {
  type: RequestRef,
  typeName: "PurchaseRequest",
  description: "The team's purchase requests.",
  interfaces: ["partners"],
  table: (ctx) => ctx.db.purchaseRequest,
  scope: (ctx) => requestScope(ctx.viewer),
  filter: defineFilter("PurchaseRequestFilter", "PurchaseRequest", "Purchase requests", {
    ids: match.ids("id", "Purchase request ids"),
    status: match.oneOf("status", RequestStatusEnum, "Statuses"),
    createdAt: match.range("createdAt", "Created in this range"),
    statusChangedAt: match.range("statusChangedAt", "Last status change in this range"),
    search: match.text(
      ["description", "requestedBy", "approvedBy", "rejectedBy"],
      "Text in the description or a person's email",
    ),
  }),
  order: defineOrder(
    "PurchaseRequest",
    "PurchaseRequest",
    {
      id: "Request id",
      createdAt: "Creation time",
      updatedAt: "Last change",
      statusChangedAt: "Last status change",
    },
    [{ field: "id", direction: "desc" }],
  ),
});

listConnection("purchaseOrdersConnection", {
  type: OrderRef,
  typeName: "PurchaseOrder",
  description: "The team's purchase orders.",
  interfaces: ["partners"],
  table: (ctx) => ctx.db.purchaseOrder,
  scope: (ctx) => orderScope(ctx.viewer),
  filter: defineFilter("PurchaseOrderFilter", "PurchaseOrder", "Purchase orders", {
    ids: match.ids("id", "Purchase order ids"),
    status: match.oneOf("status", OrderStatusEnum, "Statuses"),
    vendorIds: match.ids("vendorId", "Vendor ids"),
    createdAt: match.range("createdAt", "Created in this range"),
    statusChangedAt: match.range("statusChangedAt", "Last status change in this range"),
    search: match.text(["notes", "createdBy"], "Text in the notes or the creator's email (any case)"),
  }),
  order: defineOrder(
    "PurchaseOrder",
    "PurchaseOrder",
    {
      id: "Order id",
      vendorId: "Vendor id",
      createdAt: "Creation time",
      updatedAt: "Last change",
      statusChangedAt: "Last status change",
    },
    [{ field: "id", direction: "desc" }],
  ),
});
