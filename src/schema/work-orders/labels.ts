// PUT /v1/buyer/work_order/work_orders/{woId}/labels: the asset labels' rules and mechanism
// (labels/mutations.ts labelsField over labels/rules.ts replaceLabels), applied to WorkOrderLabelLink.
import { findWritable } from "../common/tenancy.ts";
import { labelsField } from "../labels/mutations.ts";
import type { LabelLinks } from "../labels/rules.ts";
import { workOrderScope } from "./rules.ts";

export const WORK_ORDER_LABEL_LINKS: LabelLinks = { kind: "work_order", owner: "workOrderId", table: (tx) => tx.workOrderLabelLink };

labelsField({
  field: "putWorkOrderLabels",
  interfaces: ["buyer"],
  path: "/work_order/work_orders/:woId/labels",
  param: "woId",
  links: WORK_ORDER_LABEL_LINKS,
  permission: "workOrder.write",
  // The label company's scope, and the work order scope on top (the same for buyer keys, but the one rule).
  writable: (ctx, id, scope) =>
    findWritable(ctx.db.workOrder, id, { AND: [scope, workOrderScope(ctx.viewer)] }, { select: { buyerCompanyId: true } }),
});
