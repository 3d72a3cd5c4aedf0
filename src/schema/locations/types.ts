import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { locationScope, regionScope } from "./rules.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { relationQuery, rowsInScope } from "../core/relations.ts";
import type { Location } from "../../generated/prisma/client.ts";

export const LocationRef = builder.prismaNode("Location", {
  ...scopedNode(locationScope),
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking).
  extensions: masked({ thirdParty: ["locationTypeDetails", "internalCode", "storeContacts"] }),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    regionId: t.exposeInt("regionId", { nullable: true }),
    locationTypeId: t.exposeInt("locationTypeId", { nullable: true }),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    currency: t.exposeString("currency"),
    timeZone: t.exposeString("timeZone", {
      description: "IANA time zone; planned maintenance cadences are read in it",
    }),
    brandId: t.exposeInt("brandId", {
      nullable: true,
      description: "Contacts with brandIds see walkthroughs only at their brands' locations",
    }),
    internalCode: t.exposeString("internalCode", { nullable: true }),
    storeContacts: t.exposeStringList("storeContacts", { nullable: true }),
    locationTypeDetails: t.expose("locationTypeDetails", { type: "JSON", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    region: t.relation("region", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The region the location belongs to; null when it has none",
      query: relationQuery(regionScope),
    }),
  }),
});

export const RegionRef = builder.prismaNode("Region", {
  ...scopedNode(regionScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    locations: t.relation("locations", { subGraphs: ["graphql"] }),
  }),
});

export const LocationPage = pageType("Location", LocationRef);

// The dashboard graph (GraphQL only): a work order's location, within the key's location scope (a
// required relation, so loaded by id in scope: null when the key may not read the location).
builder.prismaObjectField("WorkOrder", "location", (t) =>
  t.prismaField({
    type: "Location",
    nullable: true,
    subGraphs: ["graphql"],
    description: "Where the work is done; null when the key may not read the location",
    resolve: (query, wo, _args, ctx) =>
      rowsInScope<Location>(ctx, "Location", locationScope, query).load(wo.locationId),
  }),
);
export const RegionPage = pageType("Region", RegionRef);

export const LocationPatchInput = builder.inputType("LocationPatchInput", {
  description: "Only locationTypeDetails is read; other fields are ignored.",
  fields: (t) => ({
    locationTypeDetails: t.field({
      type: "JSON",
      description: "Custom field values of the location's type; null removes one",
    }),
  }),
});
