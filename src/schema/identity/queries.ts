import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";

builder.queryField("ping", (t) =>
  t.string({
    ...restRoute({ interfaces: ["buyer", "partners"], method: "GET", path: "/ping", type: "pingpong", rateLimited: false }),
    description: "Verifies both key headers; not rate limited.",
    resolve: () => "pong",
  }),
);

interface MeShape {
  email: string;
  name: string;
  contactType: string;
  buyerFacilityName: string | null;
  buyerCompanyId: number | null;
  buyerCompanyName: string | null;
}

const MeRef = builder.objectRef<MeShape>("Me").implement({
  description: "The key's contact and tenant",
  fields: (t) => ({
    email: t.exposeString("email"),
    name: t.exposeString("name"),
    contactType: t.exposeString("contactType"),
    buyerFacilityName: t.exposeString("buyerFacilityName", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { nullable: true }),
    buyerCompanyName: t.exposeString("buyerCompanyName", { nullable: true }),
  }),
});

builder.queryField("me", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/me", type: "Me" }),
    type: MeRef,
    resolve: async (_root, _args, ctx) => {
      const v = ctx.viewer;
      const facility = v.buyerFacilityId
        ? await ctx.db.buyerFacility.findUnique({ where: { id: v.buyerFacilityId }, include: { buyerCompany: true } })
        : null;
      return {
        email: v.email,
        name: v.displayName,
        contactType: v.kind === "buyer" ? "buyer" : "supplier",
        buyerFacilityName: facility?.name ?? null,
        buyerCompanyId: facility?.buyerCompanyId ?? null,
        buyerCompanyName: facility?.buyerCompany.name ?? null,
      };
    },
  }),
);
