import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";

const NetworkContactRef = builder
  .objectRef<{ id: number; email: string; nameGiven: string; nameFamily: string }>("NetworkContact")
  .implement({
    description: "A contact of the supplier facility",
    fields: (t) => ({
      id: t.exposeInt("id"),
      email: t.exposeString("email"),
      nameGiven: t.exposeString("nameGiven"),
      nameFamily: t.exposeString("nameFamily"),
    }),
  });

/** The relationship details both shapes carry (the network list and the ranking): facility, routing, contacts. */
const relationshipDetails = (t: any) => ({
  buyerCompanyId: t.exposeInt("buyerCompanyId"),
  supplierFacilityId: t.exposeInt("supplierFacilityId"),
  supplierFacilityName: t.string({
    select: { supplierFacility: { select: { name: true } } },
    resolve: (r: any) => r.supplierFacility.name,
  }),
  supplierCompanyId: t.int({
    select: { supplierFacility: { select: { supplierCompanyId: true } } },
    resolve: (r: any) => r.supplierFacility.supplierCompanyId,
  }),
  supplierCompanyName: t.string({
    select: { supplierFacility: { select: { supplierCompany: { select: { name: true } } } } },
    resolve: (r: any) => r.supplierFacility.supplierCompany.name,
  }),
  currency: t.string({
    select: { supplierFacility: { select: { currency: true } } },
    resolve: (r: any) => r.supplierFacility.currency,
  }),
  isInternalTeam: t.boolean({
    description: "The supplier is the buyer's own in-house service team",
    select: { supplierFacility: { select: { supplierCompany: { select: { internalTeamOfId: true } } } } },
    resolve: (r: any) => r.supplierFacility.supplierCompany.internalTeamOfId === r.buyerCompanyId,
  }),
  isPreferred: t.exposeBoolean("isPreferred"),
  trades: t.exposeStringList("trades"),
  workOrdersRoutedTo: t.exposeStringList("workOrdersRoutedTo", {
    description: "Emails that receive work dispatched to this supplier",
  }),
  supplierAccountEmails: t.exposeStringList("supplierAccountEmails", {
    description: "The supplier's account-level contacts",
  }),
  contacts: t.field({
    type: [NetworkContactRef],
    description: "The supplier facility's contacts, by id",
    select: {
      supplierFacility: {
        select: {
          contacts: { select: { id: true, email: true, nameGiven: true, nameFamily: true }, orderBy: { id: "asc" } },
        },
      },
    },
    resolve: (r: any) => r.supplierFacility.contacts,
  }),
  createdAt: t.expose("createdAt", { type: "DateTime" }),
});

/** GET /v1/buyer/supplier_facilities: a supplier facility of the network, with its relationship. */
export const NetworkSupplierFacilityRef = builder.prismaObject("BuyerSupplierRelationship", {
  // Its own GraphQL name (the REST envelope type is still `SupplierFacility`), so that a future
  // SupplierFacility object type of another feature does not collide with it.
  variant: "NetworkSupplierFacility",
  description: "A supplier facility in the buyer's network (one live buyer-supplier relationship)",
  fields: (t) => ({
    id: t.exposeInt("supplierFacilityId", {
      description: "The supplier facility id (what work orders are dispatched with)",
    }),
    name: t.string({
      select: { supplierFacility: { select: { name: true } } },
      resolve: (r) => r.supplierFacility.name,
    }),
    relationshipId: t.exposeInt("id"),
    ...relationshipDetails(t),
  }),
});

export const NetworkSupplierFacilityPage = pageType("NetworkSupplierFacility", NetworkSupplierFacilityRef);

/** The ranking endpoint's item: a relationship with its position in the ranking. */
const RankedRelationshipRef = builder.prismaObject("BuyerSupplierRelationship", {
  description: "A buyer-supplier relationship with its rank for one location and problem type",
  fields: (t) => ({
    id: t.exposeInt("id"),
    rank: t.int({
      description: "Position in the ranking, from 1; continues across pages (offset + position)",
      resolve: (r) => (r as unknown as { rank: number }).rank,
    }),
    ...relationshipDetails(t),
  }),
});

export const RankedRelationshipPage = pageType("BuyerSupplierRelationship", RankedRelationshipRef);
