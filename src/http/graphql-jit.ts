// Compiled queries (docs/performance.md, "Compiled queries"): a query document is compiled once into
// JavaScript by graphql-jit (envelop's useGraphQlJit, cached per parsed document) and every later run of
// it resolves and completes values without graphql-js's per-field interpretation. A chart answer of
// 19,373 rows took 136 ms to complete in graphql-js and 25 ms compiled.
//
// Not compiled, so graphql-js runs them as before:
// - mutations and subscriptions (their execution is not the cost, and events share answers);
// - documents with more than one operation (the plugin caches by document, not by operation);
// - a run whose variables do not coerce (graphql-js reports that, in the words http/errors.ts reads);
// - queries that select a field planned by plugin-prisma's selection mapping (a relation loaded with
//   its parent's statement): the mapping is found by the identity of graphql-js's response path objects,
//   which graphql-jit builds afresh for every field, so such a relation would be loaded again by
//   its fallback statement instead of coming with its parent.
import { useGraphQlJit } from "@envelop/graphql-jit";
import {
  type DocumentNode,
  getVariableValues,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";

/** Whether a field resolves through plugin-prisma's path-keyed selection mapping. */
const MAPPED = "pothosPrismaSelect";

/** The operation graphql-jit may run: `document`'s only one, a query without a field that needs the selection mapping. */
function compilable(schema: GraphQLSchema, document: DocumentNode): OperationDefinitionNode | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length !== 1 || operations[0].operation !== "query") return null;
  const types = new TypeInfo(schema);
  let mapped = false;
  visit(
    document,
    visitWithTypeInfo(types, {
      Field() {
        if (types.getFieldDef()?.extensions?.[MAPPED]) mapped = true;
      },
    }),
  );
  return mapped ? null : operations[0];
}

/** The envelop plugin: compiled execution for the documents `compilable` accepts (decided once per document). */
export function compiledQueries() {
  const decided = new WeakMap<DocumentNode, OperationDefinitionNode | null>();
  return useGraphQlJit(
    {},
    {
      enableIf: ({ schema, document, variableValues }) => {
        let operation = decided.get(document);
        if (operation === undefined) {
          operation = compilable(schema, document);
          decided.set(document, operation);
        }
        if (!operation) return false;
        const definitions = operation.variableDefinitions ?? [];
        return !definitions.length || !getVariableValues(schema, definitions, variableValues ?? {}).errors;
      },
    },
  );
}
