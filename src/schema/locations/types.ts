import { builder } from "../core/builder.ts";
import { masked } from "../core/masking.ts";
import { pageType } from "../core/list.ts";

export const LocationRef = builder.prismaObject("Location", {
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
      description: "The store's contacts (free-text entries); null when masked for third-party supplier keys",
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
      description: "The region that groups the location; null when it is in no region",
    }),
  }),
  description: "A site of a buyer company (a store, plant or building) where assets stand and work is done",
});

export const RegionRef = builder.prismaObject("Region", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The region's id" }),
    name: t.exposeString("name", { description: "Display name of the region" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the region" }),
    locations: t.relation("locations", { subGraphs: ["graphql"], description: "The region's locations" }),
  }),
  description: "A group of locations of one buyer company",
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
