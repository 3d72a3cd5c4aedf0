import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findPage, listArgs, pageQuery } from "../common/list.ts";
import { countBy, countByArgs } from "../common/count-by.ts";
import { findInScope } from "../common/tenancy.ts";
import { LocationPage, LocationRef, RegionPage, RegionRef } from "./types.ts";
import { LOCATION_LIST, REGION_LIST, locationScope, regionScope } from "./rules.ts";

const BOTH = ["buyer", "supplier"] as const;

builder.queryField("locations", (t) =>
  t.field({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/locations", type: "Location", list: true, maxLimit: 10 }),
    description: "Locations in scope; the page size is clamped to 10.",
    type: LocationPage,
    args: listArgs,
    resolve: (_root, args, ctx, info) =>
      findPage(ctx.db.location, locationScope(ctx.viewer), args, LOCATION_LIST, pageQuery(ctx, info)),
  }),
);

builder.queryField("locationsCountBy", (t) =>
  t.field({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/locations/count_by", type: "count" }),
    type: "JSON",
    args: countByArgs,
    resolve: (_root, args, ctx) => countBy(ctx.db.location, locationScope(ctx.viewer), args, LOCATION_LIST),
  }),
);

builder.queryField("location", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/locations/:id", type: "Location" }),
    type: LocationRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => findInScope(ctx.db.location, args.id, locationScope(ctx.viewer), query),
  }),
);

builder.queryField("locationsMultiple", (t) =>
  t.field({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/locations/multiple/:ids", type: "Location", list: true }),
    description: "Several locations by id; ids the key cannot read are silently omitted, and count equals the items returned.",
    type: LocationPage,
    args: { ids: t.arg({ type: "IdList", required: true }) },
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

builder.queryField("regions", (t) =>
  t.field({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/regions", type: "Region", list: true }),
    type: RegionPage,
    args: listArgs,
    resolve: (_root, args, ctx, info) =>
      findPage(ctx.db.region, regionScope(ctx.viewer), args, REGION_LIST, pageQuery(ctx, info)),
  }),
);

builder.queryField("region", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: BOTH, method: "GET", path: "/location/regions/:id", type: "Region" }),
    type: RegionRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => findInScope(ctx.db.region, args.id, regionScope(ctx.viewer), query),
  }),
);
