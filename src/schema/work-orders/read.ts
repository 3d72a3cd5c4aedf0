// Reading one work order (buyer and supplier), the company's problem types, and the published
// transition table (GraphQL only).
import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findInScope } from "../common/tenancy.ts";
import { findPage, listArgs, pageQuery, pageType, type ListSpec } from "../common/list.ts";
import { WorkOrderRef, WorkOrderStatusEnum } from "./types.ts";
import { initialStatus, TRANSITIONS, type ActorKind, type Status } from "./state-machine.ts";
import { workOrderScope } from "./rules.ts";

builder.queryField("workOrder", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer", "supplier"], method: "GET", path: "/work_order/work_orders/:id", type: "WorkOrder" }),
    description: "One work order: 404 when it does not exist, 400 when it is outside the key's scope. Masked for third-party suppliers.",
    type: WorkOrderRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => findInScope(ctx.db.workOrder, id, workOrderScope(ctx.viewer), query),
  }),
);

export const ProblemTypeRef = builder.prismaObject("ProblemType", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
  }),
});

const ProblemTypePage = pageType("ProblemType", ProblemTypeRef);

const PROBLEM_TYPE_LIST: ListSpec = {
  filters: { id: "int", name: "string" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

builder.queryField("problemTypes", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/work_order/problem_types", type: "ProblemType", list: true }),
    description: "The problem types configured for the key's company.",
    type: ProblemTypePage,
    args: listArgs,
    resolve: (_root, args, ctx, info) =>
      findPage(ctx.db.problemType, { buyerCompanyId: ctx.viewer.buyerCompanyId! }, args, PROBLEM_TYPE_LIST, pageQuery(ctx, info)),
  }),
);

interface TransitionRow {
  action: string;
  actor: ActorKind;
  from: readonly Status[];
  to: readonly Status[];
}

/** The create rows, derived from initialStatus over every combination of its facts. */
const createRow = (actor: ActorKind): TransitionRow => {
  const to = [true, false].flatMap((needsApproval) => [true, false].map((hasSupplier) => initialStatus({ actor, needsApproval, hasSupplier })));
  return { action: "create", actor, from: [], to: [...new Set(to)] };
};

export const TRANSITION_ROWS: readonly TransitionRow[] = [
  createRow("buyer"),
  createRow("supplier"),
  ...TRANSITIONS.map(({ action, actor, from, to }) => ({ action, actor, from, to })),
];

const TransitionRowRef = builder.objectRef<TransitionRow>("WorkOrderTransition").implement({
  subGraphs: ["graphql"],
  description: "One row of the work order lifecycle: the action, who may take it, from which statuses, and where it can lead.",
  fields: (t) => ({
    action: t.exposeString("action"),
    actor: t.exposeString("actor"),
    from: t.field({ type: [WorkOrderStatusEnum], description: "Empty for create", resolve: (r) => [...r.from] }),
    to: t.field({ type: [WorkOrderStatusEnum], resolve: (r) => [...r.to] }),
  }),
});

// GraphQL only (no REST route): a public table, answered to every authenticated key.
builder.queryField("workOrderTransitions", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description: "The work order transition table that every status change goes through.",
    type: [TransitionRowRef],
    resolve: () => [...TRANSITION_ROWS],
  }),
);
