import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { pageQuery } from "../core/list.ts";
import { readRoutes } from "../core/read-routes.ts";
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
