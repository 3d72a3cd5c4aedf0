// Assembles the one schema: every domain registers its types and root fields on the builder; this file
// builds the full GraphQL schema and the per-interface cuts that SOFA serves as REST.
import { assertValidSchema, defaultFieldResolver, GraphQLSchema, isNonNullType } from "graphql";
import { builder } from "./core/builder.ts";
import { INTERFACES, type Interface, type RestRoute } from "./core/interfaces.ts";
import { applyMasking } from "./core/masking.ts";
import { applyPermissions } from "./core/permissions.ts";
import { applyAudit } from "./core/audit.ts";
import { forbidden } from "./core/errors.ts";
import { INTERFACE_OF_KIND } from "./core/viewer.ts";
import type { Context } from "./core/context.ts";

// Every feature's root fields (types come with them).
import "./identity/queries.ts";
import "./locations/queries.ts";
import "./locations/mutations.ts";
import "./companies/queries.ts";
import "./asset-types/queries.ts";
import "./asset-types/mutations.ts";
import "./assets/queries.ts";
import "./assets/mutations.ts";
import "./asset-models/queries.ts";
import "./asset-models/mutations.ts";
import "./meters/queries.ts";
import "./meters/mutations.ts";
import "./labels/queries.ts";
import "./labels/mutations.ts";
import "./provisioning/mutations.ts";
import "./currency/queries.ts";
import "./work-orders/queries.ts";
import "./work-orders/mutations.ts";
import "./work-orders/stats.ts";
import "./webhooks/queries.ts";
import "./webhooks/mutations.ts";
import "./live/subscriptions.ts";
import "./supplier-network/queries.ts";
import "./private-network/queries.ts";
import "./private-network/mutations.ts";
import "./inventory/queries.ts";
import "./inventory/mutations.ts";
import "./purchasing/queries.ts";
import "./purchasing/mutations.ts";
import "./planned-maintenance/queries.ts";
import "./planned-maintenance/mutations.ts";
import "./walkthroughs/queries.ts";
import "./files/queries.ts";
import "./files/mutations.ts";
import "./proposals/queries.ts";
import "./proposals/mutations.ts";
import "./proposals/stats.ts";
import "./invoices/queries.ts";
import "./invoices/mutations.ts";
import "./invoices/stats.ts";
import "./audit/queries.ts";

export function restRouteOf(
  schema: GraphQLSchema,
  operation: "query" | "mutation",
  field: string,
): RestRoute | undefined {
  const root = operation === "query" ? schema.getQueryType() : schema.getMutationType();
  return root?.getFields()[field]?.extensions?.rest as RestRoute | undefined;
}

/** GraphQL serves every root field to every key; each answers only keys of the interfaces it belongs to. */
function guardInterfaces(schema: GraphQLSchema): void {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const rest = field.extensions?.rest as RestRoute | undefined;
      if (!rest) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (parent, args, ctx: Context, info) => {
        const iface = INTERFACE_OF_KIND[ctx.viewer.kind];
        if (!rest.interfaces.includes(iface))
          throw forbidden(`${field.name} is not available to ${ctx.viewer.kind} keys`);
        return resolve(parent, args, ctx, info);
      };
    }
  }
}

/** A cut may have no mutations; GraphQL needs an empty root type gone. */
function withoutEmptyRoots(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation || Object.keys(mutation.getFields()).length > 0) return schema;
  const config = schema.toConfig();
  return new GraphQLSchema({ ...config, mutation: null, types: config.types.filter((t) => t !== mutation) });
}

/**
 * Root query and mutation fields nullable, in the GraphQL schema only: a field that fails is null with
 * its error and the rest of the answer stays (`{ me, workOrder(id: 0) }` answers `me`), as the
 * GraphQL-over-HTTP answers of http/graphql-errors.ts assume. The REST cuts are built separately and
 * keep their non-null roots, so SOFA's operations and the OpenAPI documents do not change. The field
 * objects are this schema's own (each toSchema builds new ones), so changing their type in place
 * touches nothing else; it must happen before the schema serves (graphql-js reads the type per request).
 */
function nullableRoots(schema: GraphQLSchema): void {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      if (isNonNullType(field.type)) field.type = field.type.ofType;
    }
  }
}

export interface Schemas {
  graphql: GraphQLSchema;
  rest: Record<Interface, GraphQLSchema>;
}

let built: Schemas | undefined;

export function buildSchemas(): Schemas {
  if (built) return built;
  const graphql = builder.toSchema({ sortSchema: false });
  assertValidSchema(graphql);
  applyMasking(graphql, true);
  applyPermissions(graphql);
  guardInterfaces(graphql);
  applyAudit(graphql);
  nullableRoots(graphql);
  const rest = Object.fromEntries(
    INTERFACES.map((iface) => {
      const cut = withoutEmptyRoots(builder.toSchema({ subGraph: iface, sortSchema: false }));
      assertValidSchema(cut);
      applyMasking(cut, false);
      applyPermissions(cut);
      applyAudit(cut);
      return [iface, cut];
    }),
  ) as Record<Interface, GraphQLSchema>;
  built = { graphql, rest };
  return built;
}
