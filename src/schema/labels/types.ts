import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";

/** A catalog label (asset or work order); created and edited only in the service's own app. */
export const LabelRef = builder.prismaObject("Label", {
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
