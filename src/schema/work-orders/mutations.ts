import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { labelsField } from "../labels/public.ts";
import {
  AppendNoteInput,
  AppendPhotoNotesInput,
  BuyerActionInput,
  SupplierActionInput,
  SupplierWorkOrderInput,
  WorkOrderInput,
  WorkOrderNotePage,
  WorkOrderNoteRef,
  WorkOrderPatchInput,
  WorkOrderRef,
} from "./types.ts";
import { TRANSITIONS } from "./rules/state-machine.ts";
import { createSupplierWorkOrder, createWorkOrder } from "./rules/create.ts";
import { runAction, updateWorkOrder } from "./rules/actions.ts";
import { appendNote, appendPhotoNotes, markRootThreadRead } from "./rules/notes.ts";
import { workOrderScope } from "./rules/scope.ts";

const WRITE = requires("workOrder.write");
/** Writes to an existing work order: a denial answers like an unknown work order (the contract's rule). */
const CHANGE = (id: (args: any) => unknown) => requires("workOrder.write", { noun: "work order", id });
const byInputId = CHANGE((args) => args.input.id);

builder.mutationField("createWorkOrder", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/work_order/work_orders", type: "WorkOrder", bodyArg: "input" },
      WRITE,
    ),
    description:
      "Creates a work order at a location of the key's company, optionally assigned to a supplier facility of its network; the first status change has no `from`.",
    type: WorkOrderRef,
    args: {
      input: t.arg({
        type: WorkOrderInput,
        required: true,
        description: "The work order to create, or to update when it carries an id",
      }),
    },
    resolve: (query, _root, { input }, ctx) => createWorkOrder(ctx, input, query),
  }),
);

builder.mutationField("createSupplierWorkOrder", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: "/work_order/work_orders",
        type: "WorkOrder",
        bodyArg: "input",
      },
      WRITE,
    ),
    description: "Creates a work order for a buyer location the key's facility serves.",
    type: WorkOrderRef,
    args: { input: t.arg({ type: SupplierWorkOrderInput, required: true, description: "The work order to open" }) },
    resolve: (query, _root, { input }, ctx) => createSupplierWorkOrder(ctx, input, query),
  }),
);

builder.mutationField("updateWorkOrder", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "PATCH",
        path: "/work_order/work_orders/:id",
        type: "WorkOrder",
        bodyArg: "input",
      },
      CHANGE((args) => args.id),
    ),
    description: "Changes the writable fields of a work order of the key's company (other body fields are ignored).",
    type: WorkOrderRef,
    args: {
      id: t.arg.int({ required: true, description: "The work order's id" }),
      input: t.arg({ type: WorkOrderPatchInput, required: true, description: "The supplier assignment to change" }),
    },
    resolve: (query, _root, { id, input }, ctx) => updateWorkOrder(ctx, id, input, query),
  }),
);

/**
 * A status action of one side (PATCH /work_order/work_orders/<action>, the buyer's or the supplier's key),
 * through the transition table; `errors` adds answers to the contract's usual ones.
 */
function workOrderActionField(
  field: string,
  actor: "buyer" | "supplier",
  action: string,
  errors?: Record<string, string>,
) {
  const row = TRANSITIONS.find((r) => r.action === action && r.actor === actor)!;
  const input = actor === "buyer" ? BuyerActionInput : SupplierActionInput;
  builder.mutationField(field, (t) =>
    t.prismaField({
      ...restRoute(
        {
          interfaces: [actor],
          method: "PATCH",
          path: `/work_order/work_orders/${action}`,
          type: "WorkOrder",
          bodyArg: "input",
          ...(errors ? { errors } : {}),
        },
        byInputId,
      ),
      description: `${action}: from ${row.from.join(", ")} to ${row.to.join(" or ")}. Returns the updated work order.`,
      type: WorkOrderRef,
      args: {
        input: t.arg({
          type: input as typeof SupplierActionInput,
          required: true,
          description: "The work order and the action's fields",
        }),
      },
      resolve: (query, _root, args, ctx) => runAction(ctx, action, args.input, query),
    }),
  );
}

workOrderActionField("workOrderApprove", "buyer", "approve");
workOrderActionField("workOrderCancel", "buyer", "cancel", {
  "409": "The cancellation lock: a technician is checked in",
});
workOrderActionField("workOrderWorkReviewedAndCompleted", "buyer", "work_reviewed_and_completed");
workOrderActionField("workOrderWorkUnsatisfactory", "buyer", "work_unsatisfactory");
workOrderActionField("workOrderConfirm", "supplier", "confirm");
workOrderActionField("workOrderDecline", "supplier", "decline");
workOrderActionField("workOrderAssignTech", "supplier", "assign_tech");
workOrderActionField("workOrderSchedule", "supplier", "schedule");
workOrderActionField("workOrderReschedule", "supplier", "reschedule");
workOrderActionField("workOrderEnRoute", "supplier", "en_route");
workOrderActionField("workOrderArrive", "supplier", "arrive");
workOrderActionField("workOrderCheckIn", "supplier", "check_in");
workOrderActionField("workOrderCheckOut", "supplier", "check_out");

builder.mutationField("appendWorkOrderNote", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "PATCH",
        path: "/work_order/work_orders/append_notes",
        type: "WorkOrderNote",
        bodyArg: "input",
      },
      byInputId,
    ),
    description: "Appends a note to the root thread; returns the created note.",
    type: WorkOrderNoteRef,
    args: { input: t.arg({ type: AppendNoteInput, required: true, description: "The work order and the note" }) },
    resolve: (_root, { input }, ctx) => appendNote(ctx, input),
  }),
);

builder.mutationField("appendWorkOrderPhotoNotes", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "PATCH",
        path: "/work_order/work_orders/append_notes/bulk",
        type: "WorkOrderNote",
        list: true,
        bodyArg: "input",
      },
      byInputId,
    ),
    description:
      "Appends photo notes (same noteAddedAt, sent order) with one grouped notification; returns the created notes.",
    type: WorkOrderNotePage,
    args: {
      input: t.arg({ type: AppendPhotoNotesInput, required: true, description: "The work order and its photo notes" }),
    },
    resolve: (_root, { input }, ctx) => appendPhotoNotes(ctx, input),
  }),
);

// PUT /work_order/work_orders/{woId}/labels: the asset labels' rules and mechanism, on WorkOrderLabelLink.
labelsField({
  field: "putWorkOrderLabels",
  interfaces: ["buyer"],
  path: "/work_order/work_orders/:woId/labels",
  param: "woId",
  links: { kind: "work_order", owner: "workOrderId", table: (tx) => tx.workOrderLabelLink },
  permission: "workOrder.write",
  noun: "work order",
  table: (ctx) => ctx.db.workOrder,
  // On top of the label company's scope (the same for buyer keys, but the one rule).
  scope: (ctx) => workOrderScope(ctx.viewer),
});

// GraphQL only (docs/dashboards.md): reading notes over GraphQL never marks them read; this does. Any key
// that may read the work order may mark its own contact's read mark (it changes nothing of the work order).
builder.mutationField("markWorkOrderNotesRead", (t) =>
  t.field({
    subGraphs: ["graphql"],
    extensions: requires("anyKey"),
    description:
      "Marks the root buyer-supplier thread of a work order read for the key's contact (what reading it over REST does); returns when.",
    type: "DateTime",
    args: {
      workOrderId: t.arg.int({ required: true, description: "A work order the key may read" }),
    },
    resolve: (_root, args, ctx) => markRootThreadRead(ctx, args.workOrderId),
  }),
);
