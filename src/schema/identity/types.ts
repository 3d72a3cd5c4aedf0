import { builder } from "../core/builder.ts";
import type { MeShape } from "./rules.ts";

export const MeRef = builder.objectRef<MeShape>("Me").implement({
  description: "The key's contact and tenant",
  fields: (t) => ({
    email: t.exposeString("email"),
    name: t.exposeString("name"),
    contactType: t.exposeString("contactType"),
    buyerFacilityId: t.exposeInt("buyerFacilityId", {
      nullable: true,
      description: "The key's buyer facility (what a work order create body's buyerFacilityId takes)",
    }),
    buyerFacilityName: t.exposeString("buyerFacilityName", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { nullable: true }),
    buyerCompanyName: t.exposeString("buyerCompanyName", { nullable: true }),
  }),
});
