import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { locationScope, regionScope } from "./rules.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";

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
    region: t.relation("region", { nullable: true, subGraphs: ["graphql"] }),
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
