// Walkthroughs (buyer, read-only): list, count_by, one.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, pageQuery } from "../core/list.ts";
import { countByArgs } from "../core/count-by.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { WalkthroughPage, WalkthroughRef } from "./types.ts";
import {
  WALKTHROUGH_FILTERS,
  WALKTHROUGH_QUERY,
  walkthroughById,
  walkthroughCount,
  walkthroughPage,
  walkthroughScope,
} from "./rules.ts";

const PATH = "/site_survey/walkthroughs";

builder.queryField("walkthroughs", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: PATH,
      type: "Walkthrough",
      list: true,
      query: WALKTHROUGH_QUERY,
    }),
    description: `Walkthroughs at locations the key's contact may see, newest first. Filters: ${WALKTHROUGH_FILTERS.join(", ")}.`,
    type: WalkthroughPage,
    args: listArgs,
    resolve: (_root, args, ctx, info) => walkthroughPage(ctx, args, pageQuery(ctx, info)),
  }),
);

builder.queryField("walkthroughsCountBy", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: `${PATH}/count_by`,
      type: "count",
      query: WALKTHROUGH_QUERY,
    }),
    description: "The list's count for the same filters ({count}); with group_by, [{value, count}] by value.",
    type: "JSON",
    args: countByArgs,
    resolve: (_root, args, ctx) => walkthroughCount(ctx, args),
  }),
);

builder.queryField("walkthrough", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: `${PATH}/:id`, type: "Walkthrough" }),
    description:
      "One walkthrough with task answers, photos, issues, scores and linked work orders: 404 when it does not exist, 400 outside the key's scope.",
    type: WalkthroughRef,
    args: { id: t.arg.int({ required: true, description: "The walkthrough's id" }) },
    resolve: (query, _root, { id }, ctx) => walkthroughById(ctx, id, query),
  }),
);

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("walkthroughsConnection", {
  type: WalkthroughRef,
  typeName: "Walkthrough",
  description: "Walkthroughs at locations the key's contact may see.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.walkthrough,
  scope: walkthroughScope,
  filter: defineFilter("WalkthroughFilter", "Walkthrough", "Walkthroughs", {
    ids: match.ids("id", "Walkthrough ids"),
    locationIds: match.ids("locationId", "Location ids"),
    surveyIds: match.ids("surveyId", "Site survey ids"),
    completedAt: match.range("completedAt", "Completed in this range"),
  }),
  order: defineOrder("Walkthrough", "Walkthrough", { id: "Walkthrough id", completedAt: "Completion time" }, [
    { field: "completedAt", direction: "desc" },
  ]),
});
