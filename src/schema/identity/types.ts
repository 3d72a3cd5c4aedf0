import { builder } from "../core/builder.ts";
import type { MeShape } from "./rules.ts";

export const MeRef = builder.objectRef<MeShape>("Me").implement({
  description: "The key's contact and tenant",
  fields: (t) => ({
    email: t.exposeString("email", { description: "Email address of the key's contact" }),
    name: t.exposeString("name", { description: "Display name of the key's contact" }),
    contactType: t.exposeString("contactType", {
      description: "The contact's kind: buyer (me answers buyer keys only)",
    }),
    buyerFacilityId: t.exposeInt("buyerFacilityId", {
      nullable: true,
      description: "The key's buyer facility (what a work order create body's buyerFacilityId takes)",
    }),
    buyerFacilityName: t.exposeString("buyerFacilityName", {
      nullable: true,
      description: "Name of the key's buyer facility; null for keys without one",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", {
      nullable: true,
      description: "Id of the buyer company the key acts for; null for keys without a buyer facility",
    }),
    buyerCompanyName: t.exposeString("buyerCompanyName", {
      nullable: true,
      description: "Name of the buyer company the key acts for; null for keys without a buyer facility",
    }),
  }),
});
