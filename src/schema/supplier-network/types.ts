import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";

const NetworkContactRef = builder
  .objectRef<{ id: number; email: string; nameGiven: string; nameFamily: string }>("NetworkContact")
  .implement({
    description: "A contact of the supplier facility",
    fields: (t) => ({
      id: t.exposeInt("id", { description: "The contact's id" }),
      email: t.exposeString("email", { description: "The contact's email" }),
      nameGiven: t.exposeString("nameGiven", { description: "The contact's given (first) name" }),
      nameFamily: t.exposeString("nameFamily", { description: "The contact's family (last) name" }),
    }),
  });

/** The relationship details both shapes carry (the network list and the ranking): facility, routing, contacts. */
const relationshipDetails = (t: any) => ({
  buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company on the relationship" }),
  supplierFacilityId: t.exposeInt("supplierFacilityId", {
    description: "Id of the supplier facility on the relationship",
  }),
  supplierFacilityName: t.string({
    description: "Display name of the supplier facility",
    select: { supplierFacility: { select: { name: true } } },
    resolve: (r: any) => r.supplierFacility.name,
  }),
  supplierCompanyId: t.int({
    description: "Id of the supplier company that runs the facility",
    select: { supplierFacility: { select: { supplierCompanyId: true } } },
    resolve: (r: any) => r.supplierFacility.supplierCompanyId,
  }),
  supplierCompanyName: t.string({
    description: "Display name of the supplier company that runs the facility",
    select: { supplierFacility: { select: { supplierCompany: { select: { name: true } } } } },
    resolve: (r: any) => r.supplierFacility.supplierCompany.name,
  }),
  currency: t.string({
    description: "Three-letter code of the supplier facility's currency",
    select: { supplierFacility: { select: { currency: true } } },
    resolve: (r: any) => r.supplierFacility.currency,
  }),
  isInternalTeam: t.boolean({
    description: "The supplier is the buyer's own in-house service team",
    select: { supplierFacility: { select: { supplierCompany: { select: { internalTeamOfId: true } } } } },
    resolve: (r: any) => r.supplierFacility.supplierCompany.internalTeamOfId === r.buyerCompanyId,
  }),
  isPreferred: t.exposeBoolean("isPreferred", {
    description: "Whether the buyer marked this supplier as preferred (default false)",
  }),
  trades: t.exposeStringList("trades", {
    description: "Trades the supplier serves for this buyer, free text such as HVAC",
  }),
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
  createdAt: t.expose("createdAt", { type: "DateTime", description: "When the relationship was created" }),
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
      description: "Display name of the supplier facility",
      select: { supplierFacility: { select: { name: true } } },
      resolve: (r) => r.supplierFacility.name,
    }),
    relationshipId: t.exposeInt("id", { description: "Id of the buyer-supplier relationship" }),
    ...relationshipDetails(t),
  }),
});

export const NetworkSupplierFacilityPage = pageType("NetworkSupplierFacility", NetworkSupplierFacilityRef);

/** The ranking endpoint's item: a relationship with its position in the ranking. */
const RankedRelationshipRef = builder.prismaObject("BuyerSupplierRelationship", {
  description: "A buyer-supplier relationship with its rank for one location and problem type",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The buyer-supplier relationship's id" }),
    rank: t.int({
      description: "Position in the ranking, from 1; continues across pages (offset + position)",
      resolve: (r) => (r as unknown as { rank: number }).rank,
    }),
    ...relationshipDetails(t),
  }),
});

export const RankedRelationshipPage = pageType("BuyerSupplierRelationship", RankedRelationshipRef);
