import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { findInScope } from "../core/tenancy.ts";
import { listArgs, listQuery, pageQuery } from "../core/list.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import {
  ProblemTypePage,
  ProblemTypeRef,
  TransitionRowRef,
  WorkOrderNotePage,
  WorkOrderPage,
  WorkOrderRef,
} from "./types.ts";
import { WorkOrderFilter } from "./filter-types.ts";
import { workOrderFilterWhere } from "./rules/filter.ts";
import { workOrderScope } from "./rules/scope.ts";
import { TRANSITION_ROWS } from "./rules/state-machine.ts";
import { workOrderCount, workOrderPage } from "./rules/list.ts";
import { GROUPABLE, WORK_ORDER_QUERY } from "./rules/list-filters.ts";
import { SEARCH_HELP } from "./search/text-query.ts";
import { NOTE_LIST, rootThread } from "./rules/notes.ts";
import { PROBLEM_TYPE_LIST, problemTypePage, problemTypeScope } from "./rules/problem-types.ts";

builder.queryField("workOrder", (t) =>
  t.prismaField({
    ...restRoute({
      interfaces: ["buyer", "supplier"],
      method: "GET",
      path: "/work_order/work_orders/:id",
      type: "WorkOrder",
    }),
    description:
      "One work order: 404 when it does not exist, 400 when it is outside the key's scope. Masked for third-party suppliers.",
    type: WorkOrderRef,
    args: { id: t.arg.int({ required: true, description: "The work order's id" }) },
    resolve: (query, _root, { id }, ctx) => findInScope(ctx.db.workOrder, id, workOrderScope(ctx.viewer), query),
  }),
);

builder.queryField("workOrders", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer", "supplier"],
      method: "GET",
      path: "/work_order/work_orders",
      type: "WorkOrder",
      list: true,
      query: WORK_ORDER_QUERY,
    }),
    description: "Work orders in the key's scope; see docs/work-order-search.md for search, filters and sorting.",
    type: WorkOrderPage,
    args: { ...listArgs, search: t.arg.string({ description: SEARCH_HELP }) },
    resolve: (_root, args, ctx, info) => workOrderPage(ctx, args, pageQuery(ctx, info)),
  }),
);

builder.queryField("workOrdersCountBy", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/work_order/work_orders/count_by",
      type: "count",
      query: WORK_ORDER_QUERY,
    }),
    description:
      "The list's count for the same filters and search ({count}); with group_by, [{value, count}] by value.",
    type: "JSON",
    // The list's paging and sorting arguments are accepted (a client may send the list's query string);
    // the window rule still applies, sorting does not matter.
    args: {
      ...listArgs,
      search: t.arg.string({ description: SEARCH_HELP }),
      group_by: t.arg.string({ description: `One of ${GROUPABLE.join(", ")}` }),
    },
    resolve: (_root, args, ctx) => workOrderCount(ctx, args),
  }),
);

builder.queryField("workOrderNotes", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer", "supplier"],
      method: "GET",
      path: "/work_order/work_order_notes/:woId",
      type: "WorkOrderNote",
      list: true,
      query: listQuery(NOTE_LIST),
      writes: true, // the read mark
    }),
    description:
      "The root thread, oldest first, paged like every list. Over REST reading it marks it read for the key's contact; over GraphQL reads never write and a mutation marks it read. A work order the key may not read gives an empty list.",
    type: WorkOrderNotePage,
    args: { woId: t.arg.int({ required: true, description: "The work order's id" }), ...listArgs },
    resolve: (_root, args, ctx, info) => rootThread(ctx, args.woId, args, pageQuery(ctx, info)),
  }),
);

builder.queryField("problemTypes", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/work_order/problem_types",
      type: "ProblemType",
      list: true,
      query: listQuery(PROBLEM_TYPE_LIST),
    }),
    description: "The problem types configured for the key's company.",
    type: ProblemTypePage,
    args: listArgs,
    resolve: (_root, args, ctx, info) => problemTypePage(ctx, args, pageQuery(ctx, info)),
  }),
);

// GraphQL only (no REST route): a public table, answered to every authenticated key.
builder.queryField("workOrderTransitions", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description: "The work order transition table that every status change goes through.",
    type: [TransitionRowRef],
    resolve: () => [...TRANSITION_ROWS],
  }),
);

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("problemTypesConnection", {
  type: ProblemTypeRef,
  typeName: "ProblemType",
  description: "The problem types configured for the key's company.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.problemType,
  scope: (ctx) => problemTypeScope(ctx.viewer),
  filter: defineFilter("ProblemTypeFilter", "ProblemType", "Problem types", {
    ids: match.ids("id", "Problem type ids"),
    search: match.text(["name"], "Text in the name (any case)"),
  }),
  order: defineOrder("ProblemType", "ProblemType", { id: "Problem type id", name: "Name" }, [
    { field: "id", direction: "asc" },
  ]),
});

listConnection("workOrdersConnection", {
  type: WorkOrderRef,
  typeName: "WorkOrder",
  description: "Work orders in the key's scope (masked for third-party suppliers).",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.workOrder,
  scope: (ctx) => workOrderScope(ctx.viewer),
  // The filter of the dashboard graph (filter-types.ts); its search is the list's text search.
  filter: { input: WorkOrderFilter, where: (ctx, filter) => workOrderFilterWhere(ctx.db, ctx.viewer, filter as any) },
  order: defineOrder(
    "WorkOrder",
    "WorkOrder",
    {
      id: "Work order id",
      title: "Title",
      locationId: "Location id",
      createdAt: "Creation time",
      updatedAt: "Last change",
      statusChangedAt: "Last status change",
    },
    [{ field: "id", direction: "desc" }],
  ),
});
