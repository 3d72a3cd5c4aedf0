// Purchase request and order writes: create, the status actions, associating request lines, receipts.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires, type Permission } from "../core/permissions.ts";
import { pageQuery } from "../core/list.ts";
import {
  AssociateInput,
  CancelInput,
  OrderInput,
  OrderRef,
  ReceiptInput,
  ReceiptRef,
  RejectInput,
  RequestInput,
  RequestLineItemPage,
  RequestRef,
} from "./types.ts";
import { changeRequest, createRequest, type RequestAction } from "./rules/requests.ts";
import { associateRequestLines, cancelOrder, createOrder, markOrdered } from "./rules/orders.ts";
import { recordReceipt } from "./rules/receipts.ts";
import { REQUEST_STATES } from "./rules/request-states.ts";
import { ORDER_STATES } from "./rules/order-states.ts";

const REQUESTS = "/purchasing/purchase_requests";
const ORDERS = "/purchasing/purchase_orders";
/** A write to an existing record: a denial answers like an unknown record (the contract's rule). */
const change = (permission: Permission, noun: string) => requires(permission, { noun, id: (args) => args.id });
const summary = (table: typeof REQUEST_STATES | typeof ORDER_STATES, action: string) => {
  const row = table.rows.find((r) => r.action === action)!;
  return `${action}: from ${row.from.join(", ")} to ${row.to.join(" or ")}.`;
};

builder.mutationField("createPurchaseRequest", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["partners"], method: "POST", path: REQUESTS, type: "SupplierPurchaseRequest", bodyArg: "input" },
      requires("purchasing.write"),
    ),
    description: "Creates a draft purchase request of the key's team with its line items.",
    type: RequestRef,
    args: { input: t.arg({ type: RequestInput, required: true, description: "The request and its lines" }) },
    resolve: (query, _root, { input }, ctx) => createRequest(ctx, input, query),
  }),
);

/** A purchase request action without a body (PATCH …/:id/<action>). */
function requestActionField(field: string, action: RequestAction, permission: Permission) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      ...restRoute(
        {
          interfaces: ["partners"],
          method: "PATCH",
          path: `${REQUESTS}/:id/${action}`,
          type: "SupplierPurchaseRequest",
        },
        change(permission, "purchase request"),
      ),
      description: `${summary(REQUEST_STATES, action)} No body.`,
      type: RequestRef,
      args: { id: t.arg.int({ required: true, description: "The purchase request's id" }) },
      resolve: (query, _root, { id }, ctx) => changeRequest(ctx, action, id, null, query),
    }),
  );
}

requestActionField("submitPurchaseRequest", "submit", "purchasing.write");
requestActionField("approvePurchaseRequest", "approve", "purchasing.approve");

builder.mutationField("rejectPurchaseRequest", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "PATCH",
        path: `${REQUESTS}/:id/reject`,
        type: "SupplierPurchaseRequest",
        bodyArg: "input",
      },
      change("purchasing.approve", "purchase request"),
    ),
    description: `${summary(REQUEST_STATES, "reject")} Body {reason}.`,
    type: RequestRef,
    args: {
      id: t.arg.int({ required: true, description: "The purchase request's id" }),
      input: t.arg({ type: RejectInput, required: true, description: "The reason for the rejection" }),
    },
    resolve: (query, _root, { id, input }, ctx) => changeRequest(ctx, "reject", id, input.reason, query),
  }),
);

builder.mutationField("createPurchaseOrder", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["partners"], method: "POST", path: ORDERS, type: "SupplierPurchaseOrder", bodyArg: "input" },
      requires("purchasing.write"),
    ),
    description: "Creates a draft purchase order of the key's team for one vendor with its line items.",
    type: OrderRef,
    args: { input: t.arg({ type: OrderInput, required: true, description: "The order and its lines" }) },
    resolve: (query, _root, { input }, ctx) => createOrder(ctx, input, query),
  }),
);

builder.mutationField("markPurchaseOrderOrdered", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["partners"], method: "PATCH", path: `${ORDERS}/:id/mark_ordered`, type: "SupplierPurchaseOrder" },
      change("purchasing.write", "purchase order"),
    ),
    description: `${summary(ORDER_STATES, "mark_ordered")} Requests whose every line is now on an ordered purchase order become ordered. No body.`,
    type: OrderRef,
    args: { id: t.arg.int({ required: true, description: "The purchase order's id" }) },
    resolve: (query, _root, { id }, ctx) => markOrdered(ctx, id, query),
  }),
);

builder.mutationField("cancelPurchaseOrder", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "PATCH",
        path: `${ORDERS}/:id/cancel`,
        type: "SupplierPurchaseOrder",
        bodyArg: "input",
      },
      change("purchasing.write", "purchase order"),
    ),
    description: `${summary(ORDER_STATES, "cancel")} Body {reason?}. Its request lines are freed; ordered requests among them go back to approved.`,
    type: OrderRef,
    args: {
      id: t.arg.int({ required: true, description: "The purchase order's id" }),
      input: t.arg({ type: CancelInput, description: "An optional reason for the cancellation" }),
    },
    resolve: (query, _root, { id, input }, ctx) => cancelOrder(ctx, id, input?.reason, query),
  }),
);

builder.mutationField("putPurchaseOrderLineRequestLines", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "PUT",
        path: `${ORDERS}/:id/line_items/:lineItemId/purchase_request_line_items`,
        type: "SupplierPurchaseRequestLineItem",
        list: true,
        bodyArg: "input",
      },
      change("purchasing.write", "purchase order"),
    ),
    description: "Sets the approved request lines a draft order line covers (body {ids}, the full set); returns them.",
    type: RequestLineItemPage,
    args: {
      id: t.arg.int({ required: true, description: "The purchase order's id (a draft)" }),
      lineItemId: t.arg.int({ required: true, description: "Id of the order line whose request lines are set" }),
      input: t.arg({ type: AssociateInput, required: true, description: "The request line ids the order line covers" }),
    },
    resolve: (_root, { id, lineItemId, input }, ctx, info) =>
      associateRequestLines(ctx, id, lineItemId, input.ids, pageQuery(ctx, info)),
  }),
);

builder.mutationField("recordPurchaseOrderReceipt", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "POST",
        path: `${ORDERS}/:id/receipts`,
        type: "SupplierReceipt",
        bodyArg: "input",
      },
      change("purchasing.write", "purchase order"),
    ),
    description:
      "Records a receipt (negative quantities: a return) into stock; the order moves by what has been received.",
    type: ReceiptRef,
    args: {
      id: t.arg.int({ required: true, description: "The purchase order's id" }),
      input: t.arg({ type: ReceiptInput, required: true, description: "The receipt and its lines" }),
    },
    resolve: (query, _root, { id, input }, ctx) => recordReceipt(ctx, id, input, query),
  }),
);
