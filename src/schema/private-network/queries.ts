import { readRoutes } from "../core/read-routes.ts";
import { SupplierSupplierRelationshipPage } from "./types.ts";
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
