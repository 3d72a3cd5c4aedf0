import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { pageQuery } from "../core/list.ts";
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { LocationPage, LocationRef, RegionPage, RegionRef } from "./types.ts";
import { LOCATION_LIST, REGION_LIST, locationScope, regionScope } from "./rules.ts";

const BOTH = ["buyer", "supplier"] as const;

readRoutes({
  interfaces: BOTH,
  path: "/location/locations",
  type: "Location",
  fields: { list: "locations", countBy: "locationsCountBy", one: "location" },
  description: "Locations in scope; the page size is clamped to 10.",
  page: LocationPage,
  item: LocationRef,
  table: (ctx) => ctx.db.location,
  scope: locationScope,
  spec: LOCATION_LIST,
});

builder.queryField("locationsMultiple", (t) =>
  t.field({
    ...restRoute({
      interfaces: BOTH,
      method: "GET",
      path: "/location/locations/multiple/:ids",
      type: "Location",
      list: true,
    }),
    description:
      "Several locations by id; ids the key cannot read are silently omitted, and count equals the items returned.",
    type: LocationPage,
    args: {
      ids: t.arg({
        type: "IdList",
        required: true,
        description: "Location ids, comma-separated in REST (e.g. 3,7,12)",
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const data = await ctx.db.location.findMany({
        ...pageQuery(ctx, info),
        where: { AND: [{ id: { in: args.ids } }, locationScope(ctx.viewer)] },
        orderBy: { id: "asc" },
      });
      return { data, count: data.length };
    },
  }),
);

readRoutes({
  interfaces: BOTH,
  path: "/location/regions",
  type: "Region",
  fields: { list: "regions", one: "region" },
  description: "The regions of the key's buyer company (regions group its locations).",
  page: RegionPage,
  item: RegionRef,
  table: (ctx) => ctx.db.region,
  scope: regionScope,
  spec: REGION_LIST,
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
const LocationFilter = defineFilter("LocationFilter", "Location", "Locations", {
  ids: match.ids("id", "Location ids"),
  regionIds: match.ids("regionId", "Region ids"),
  locationTypeIds: match.ids("locationTypeId", "Location type ids"),
  createdAt: match.range("createdAt", "Created in this range"),
  search: match.text(["name"], "Text in the name (any case)"),
});

listConnection("locationsConnection", {
  type: LocationRef,
  typeName: "Location",
  description: "Locations in the key's scope.",
  interfaces: BOTH,
  table: (ctx) => ctx.db.location,
  scope: (ctx) => locationScope(ctx.viewer),
  filter: LocationFilter,
  order: defineOrder(
    "Location",
    "Location",
    { id: "Location id", name: "Name", currency: "Currency code", createdAt: "Creation time" },
    [{ field: "id", direction: "asc" }],
  ),
});

listConnection("regionsConnection", {
  type: RegionRef,
  typeName: "Region",
  description: "The regions of the key's buyer company.",
  interfaces: BOTH,
  table: (ctx) => ctx.db.region,
  scope: (ctx) => regionScope(ctx.viewer),
  filter: defineFilter("RegionFilter", "Region", "Regions", {
    ids: match.ids("id", "Region ids"),
    search: match.text(["name"], "Text in the name (any case)"),
  }),
  order: defineOrder("Region", "Region", { id: "Region id", name: "Name" }, [{ field: "id", direction: "asc" }]),
});
