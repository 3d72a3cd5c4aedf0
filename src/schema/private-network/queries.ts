import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { SupplierSupplierRelationshipPage, SupplierSupplierRelationshipRef } from "./types.ts";
import { PRIVATE_NETWORK_LIST, privateNetworkScope } from "./rules.ts";

readRoutes({
  interfaces: ["supplier"],
  path: "/private_network/supplier_supplier_relationships",
  type: "SupplierSupplierRelationship",
  fields: { list: "supplierSupplierRelationships" },
  page: SupplierSupplierRelationshipPage,
  table: (ctx) => ctx.db.supplierSupplierRelationship,
  scope: privateNetworkScope,
  spec: PRIVATE_NETWORK_LIST,
  description: "The sub-contractor relationships of the key's supplier facility; filters id, supplierFacilityId.",
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("supplierSupplierRelationshipsConnection", {
  type: SupplierSupplierRelationshipRef,
  typeName: "SupplierSupplierRelationship",
  description: "The sub-contractor relationships of the key's supplier facility.",
  interfaces: ["supplier"],
  table: (ctx) => ctx.db.supplierSupplierRelationship,
  scope: (ctx) => privateNetworkScope(ctx.viewer),
  filter: defineFilter(
    "SupplierSupplierRelationshipFilter",
    "SupplierSupplierRelationship",
    "Sub-contractor relationships",
    {
      ids: match.ids("id", "Relationship ids"),
      supplierFacilityIds: match.ids("supplierFacilityId", "Sub-contractor facility ids"),
      createdAt: match.range("createdAt", "Created in this range"),
    },
  ),
  order: defineOrder(
    "SupplierSupplierRelationship",
    "SupplierSupplierRelationship",
    {
      id: "Relationship id",
      supplierFacilityId: "Sub-contractor facility id",
      createdAt: "Creation time",
      updatedAt: "Last change",
    },
    [{ field: "id", direction: "asc" }],
  ),
});
