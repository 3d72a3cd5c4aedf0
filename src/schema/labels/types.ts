import { builder } from "../builder.ts";
import { pageType } from "../common/list.ts";

/** A catalog label (asset or work order); created and edited only in the service's own app. */
export const LabelRef = builder.prismaObject("Label", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    color: t.exposeString("color", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
  }),
});

export const LabelPage = pageType("Label", LabelRef);
