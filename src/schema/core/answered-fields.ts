// The resolvers of answered objects (statement-answers.ts): an object that its statement wrote as the
// answer's JSON is read by response key, and nothing below it resolves (no relation loaded, no
// plugin-prisma mapping, no connection wrapped). First among the builder's plugins, so its wrapper runs
// outside every other's; the schema's own wrappers (masking, permissions, audit) run outside it and still
// apply. A field without a resolver keeps none (graphql-jit reads such a field's property inline, much
// faster than calling a resolver): it reads its own name, and the statement writes it under that name.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import { defaultFieldResolver, type GraphQLFieldResolver } from "graphql";
import { ANSWERED, readsResponseKey, responseKeyReaders } from "./statement-answers.ts";

const pluginName = "answeredFields";

class AnsweredFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    // Root fields have no answered parent.
    const root = fieldConfig.kind === "Query" || fieldConfig.kind === "Mutation" || fieldConfig.kind === "Subscription";
    if (root || resolver === defaultFieldResolver) return resolver;
    readsResponseKey.add(fieldConfig);
    const reads: GraphQLFieldResolver<unknown, Types["Context"], object> = (parent, args, context, info) =>
      (parent as Record<symbol, unknown>)[ANSWERED] === true
        ? (parent as Record<string | number, unknown>)[info.path.key]
        : resolver(parent, args, context, info);
    responseKeyReaders.add(reads);
    return reads;
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
