import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { liveLabelScope } from "./rules.ts";
import { pageType } from "../core/list.ts";

/** A catalog label (asset or work order); created and edited only in the service's own app. */
export const LabelRef = builder.prismaNode("Label", {
  ...scopedNode(liveLabelScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    color: t.exposeString("color", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
  }),
});

export const LabelPage = pageType("Label", LabelRef);

export const LabelIdsInput = builder.inputType("LabelIdsInput", {
  fields: (t) => ({
    // JSON rather than [Int!]: the contract's rules (and messages) for bad ids are ours, not GraphQL's.
    ids: t.field({ type: "JSON", description: "Every label id to apply (whole numbers); the full set, [] clears all" }),
  }),
});
