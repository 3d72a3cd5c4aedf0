// The key's own identity (GET /me).
import type { Context } from "../core/context.ts";

export interface MeShape {
  email: string;
  name: string;
  contactType: string;
  /** The facility the work order create body's buyerFacilityId needs. */
  buyerFacilityId: number | null;
  buyerFacilityName: string | null;
  buyerCompanyId: number | null;
  buyerCompanyName: string | null;
}

export async function me(ctx: Context): Promise<MeShape> {
  const v = ctx.viewer;
  const facility = v.buyerFacilityId
    ? await ctx.db.buyerFacility.findUnique({ where: { id: v.buyerFacilityId }, include: { buyerCompany: true } })
    : null;
  return {
    email: v.email,
    name: v.displayName,
    contactType: v.kind === "buyer" ? "buyer" : "supplier",
    buyerFacilityId: facility?.id ?? null,
    buyerFacilityName: facility?.name ?? null,
    buyerCompanyId: facility?.buyerCompanyId ?? null,
    buyerCompanyName: facility?.buyerCompany.name ?? null,
  };
}
