import { forbidden } from "../../core/errors.ts";
import type { Viewer } from "../../core/viewer.ts";
import type { Audience } from "../../work-orders/public.ts";

/**
 * Whose events a key hears and whose deliveries it sees, exactly as for webhook endpoints: a buyer key
 * its buyer company's, a supplier key (internal team or third party) its supplier facility's. The
 * specification shows no events for the internal teams interface, so partner keys get none.
 */
export function audienceOf(viewer: Viewer): Audience {
  if (viewer.kind === "buyer" && viewer.buyerCompanyId !== null) return { buyerCompanyId: viewer.buyerCompanyId };
  if (viewer.kind === "supplier" && viewer.supplierFacilityId !== null)
    return { supplierFacilityId: viewer.supplierFacilityId };
  throw forbidden("work order events and webhook deliveries are for buyer and supplier keys");
}
