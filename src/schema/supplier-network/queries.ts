import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { listArgs, listQuery, pageQuery } from "../core/list.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { NetworkSupplierFacilityPage, NetworkSupplierFacilityRef, RankedRelationshipPage } from "./types.ts";
import { NETWORK_LIST, networkFacility, networkPage, networkScope } from "./rules/network.ts";
import { rankedPage } from "./rules/ranking.ts";

builder.queryField("supplierFacilities", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/supplier_facilities",
      type: "SupplierFacility",
      list: true,
      query: listQuery(NETWORK_LIST),
    }),
    description:
      "The company's supplier network: every supplier facility with a live relationship. Filters: id, supplierFacilityId, " +
      "supplierCompanyId, name (part, any case), isPreferred, trade, problemTypeId, locationId (ranked for them); see docs/networks.md.",
    type: NetworkSupplierFacilityPage,
    args: listArgs,
    resolve: (_root, args, ctx, info) => networkPage(ctx, args, pageQuery(ctx, info)),
  }),
);

builder.queryField("supplierFacility", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/supplier_facilities/:id", type: "SupplierFacility" }),
    description:
      "One supplier facility of the network by its id: 404 when no such facility exists, 400 when it is not in the company's network.",
    type: NetworkSupplierFacilityRef,
    args: { id: t.arg.int({ required: true, description: "The supplier facility's id" }) },
    resolve: (query, _root, { id }, ctx) => networkFacility(ctx, id, query),
  }),
);

builder.queryField("rankedSupplierRelationships", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      path: "/private_network/buyer_supplier_relationships/ranked/:locationId/:problemTypeId",
      type: "BuyerSupplierRelationship",
      list: true,
      maxLimit: 25,
    }),
    description:
      "The live relationships ranked for the location and problem type, best first: rank equals array order and continues " +
      "across pages; sort_by and order are ignored; unranked suppliers are not listed; ties by relationship id.",
    type: RankedRelationshipPage,
    args: {
      locationId: t.arg.int({ required: true, description: "The location the work is at" }),
      problemTypeId: t.arg.int({ required: true, description: "The problem type of the work" }),
      ...listArgs,
    },
    resolve: (_root, args, ctx, info) =>
      rankedPage(ctx, args.locationId, args.problemTypeId, args, pageQuery(ctx, info)),
  }),
);

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("supplierFacilitiesConnection", {
  type: NetworkSupplierFacilityRef,
  typeName: "NetworkSupplierFacility",
  description: "The company's supplier network: one row per live relationship.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.buyerSupplierRelationship,
  scope: (ctx) => networkScope(ctx.viewer),
  filter: defineFilter("NetworkSupplierFacilityFilter", "BuyerSupplierRelationship", "Supplier network", {
    ids: match.ids("supplierFacilityId", "Supplier facility ids"),
    isPreferred: match.flag("isPreferred", "Preferred suppliers (true) or the others (false)"),
    createdAt: match.range("createdAt", "Relationship created in this range"),
  }),
  order: defineOrder(
    "NetworkSupplierFacility",
    "BuyerSupplierRelationship",
    {
      supplierFacilityId: "Supplier facility id",
      isPreferred: "Preferred first (desc) or last (asc)",
      createdAt: "Relationship creation time",
    },
    [{ field: "supplierFacilityId", direction: "asc" }],
  ),
});
