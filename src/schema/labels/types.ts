import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { liveLabelScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { workOrderLabelScope } from "./rules.ts";
import { answeredRelation } from "../core/statement-answers.ts";

/** A catalog label (asset or work order); created and edited only in the service's own app. */
export const LabelRef = builder.prismaNode("Label", {
  ...scopedNode(liveLabelScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The label's id" }),
    name: t.exposeString("name", { description: "Display name of the label" }),
    color: t.exposeString("color", {
      nullable: true,
      description: "Display color of the label as stored (e.g. a hex code); null when none is set",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", {
      description: "Id of the buyer company whose catalog holds the label",
    }),
  }),
  description:
    "A label of a buyer company's asset or work order catalog (name and optional color); created and edited only in the service's own app",
});

export const LabelPage = pageType("Label", LabelRef);

export const LabelIdsInput = builder.inputType("LabelIdsInput", {
  description: "The complete set of labels a record should carry afterwards",
  fields: (t) => ({
    // JSON rather than [Int!]: the contract's rules (and messages) for bad ids are ours, not GraphQL's.
    ids: t.field({ type: "JSON", description: "Every label id to apply (whole numbers); the full set, [] clears all" }),
  }),
});

// The dashboard graph (GraphQL only): a work order's labels. The link rows are paged (a connection's
// cursor is the link's key), each showing its label; only live work order labels of the key's label
// catalog are reached (third-party supplier keys have none).
builder.prismaObject("WorkOrderLabelLink", {
  name: "WorkOrderLabel",
  subGraphs: ["graphql"],
  description: "A label applied to a work order",
  fields: (t) => ({
    labelId: t.exposeInt("labelId", { description: "The label's id" }),
    // The links are already in the label scope (WorkOrder.labels).
    label: t.relation("label", { description: "The label: its name and color", extensions: answeredRelation({}) }),
  }),
});

builder.prismaObjectField("WorkOrder", "labels", (t) =>
  t.relatedConnection(
    "labels",
    {
      ...connectionLimits,
      cursor: "workOrderId_labelId",
      subGraphs: ["graphql"],
      description: "Labels applied to the work order, by label id",
      totalCount: true,
      query: (_args, ctx) => ({ where: workOrderLabelScope(ctx.viewer), orderBy: { labelId: "asc" as const } }),
      extensions: answeredRelation({ where: workOrderLabelScope, orderBy: [{ labelId: "asc" }] }),
    },
    ...connectionTypes("A page of a work order's labels", "A label of the work order and its cursor"),
  ),
);
