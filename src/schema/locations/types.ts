import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { locationScope, regionScope } from "./rules.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";
import { answeredInScope, relationQuery, rowsInScope } from "../core/relations.ts";
import type { Location } from "../../generated/prisma/client.ts";

export const LocationRef = builder.prismaNode("Location", {
  ...scopedNode(locationScope),
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking).
  extensions: masked({ thirdParty: ["locationTypeDetails", "internalCode", "storeContacts"] }),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The location's id" }),
    name: t.exposeString("name", { description: "Display name of the location" }),
    regionId: t.exposeInt("regionId", {
      nullable: true,
      description: "Id of the region that groups the location; null when it is in no region",
    }),
    locationTypeId: t.exposeInt("locationTypeId", {
      nullable: true,
      description:
        "Id of the location's type, which defines the custom fields of locationTypeDetails; null when untyped",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the location" }),
    currency: t.exposeString("currency", {
      description:
        "Three-letter code of the location's currency (default USD); work orders compare it with the supplier's",
    }),
    timeZone: t.exposeString("timeZone", {
      description: "IANA time zone; planned maintenance cadences are read in it",
    }),
    brandId: t.exposeInt("brandId", {
      nullable: true,
      description: "Contacts with brandIds see walkthroughs only at their brands' locations",
    }),
    internalCode: t.exposeString("internalCode", {
      nullable: true,
      description:
        "The buyer's internal code for the location; null when unset or masked for third-party supplier keys",
    }),
    storeContacts: t.exposeStringList("storeContacts", {
      nullable: true,
      description: "Contacts of the store (free text, e.g. emails); null when masked for third-party supplier keys",
    }),
    locationTypeDetails: t.expose("locationTypeDetails", {
      type: "JSON",
      nullable: true,
      description:
        "Custom field values of the location's type ({key: value}); null when masked for third-party supplier keys",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the location was created" }),
    region: t.relation("region", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The region the location belongs to; null when it has none",
      query: relationQuery(regionScope),
    }),
  }),
  description: "A site of a buyer company (a store, plant or building) where assets stand and work is done",
});

export const RegionRef = builder.prismaNode("Region", {
  ...scopedNode(regionScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The region's id" }),
    name: t.exposeString("name", { description: "Display name of the region" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the region" }),
    locations: t.relation("locations", { subGraphs: ["graphql"], description: "The region's locations" }),
  }),
  description: "A group of locations of one buyer company",
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
    extensions: answeredInScope("location", locationScope),
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
