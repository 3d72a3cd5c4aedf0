// The resolvers of answered objects (statement-answers.ts): an object that its statement wrote as the
// answer's JSON, keyed by response key, is read by key, and nothing below it resolves (no relation
// loaded, no plugin-prisma mapping, no connection wrapped). First among the builder's plugins, so its
// wrapper runs outside every other's; the schema's own wrappers (masking, permissions, audit) run outside
// it and still apply.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver } from "graphql";
import { ANSWERED } from "./statement-answers.ts";

const pluginName = "answeredFields";

class AnsweredFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    // Root fields have no answered parent.
    if (fieldConfig.kind === "Query" || fieldConfig.kind === "Mutation" || fieldConfig.kind === "Subscription")
      return resolver;
    return (parent, args, context, info) =>
      (parent as Record<symbol, unknown>)[ANSWERED] === true
        ? (parent as Record<string | number, unknown>)[info.path.key]
        : resolver(parent, args, context, info);
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      answeredFields: AnsweredFieldsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin(pluginName, AnsweredFieldsPlugin);

export default pluginName;
