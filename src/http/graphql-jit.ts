// Compiled queries (docs/performance.md, "Compiled queries"): a query document is compiled once into
// JavaScript by graphql-jit (envelop's useGraphQlJit, cached per parsed document) and every later run of
// it resolves and completes values without graphql-js's per-field interpretation. A chart answer of
// 19,373 rows took 136 ms to complete in graphql-js and 25 ms compiled.
//
// Not compiled, so graphql-js runs them as before:
// - mutations and subscriptions (their execution is not the cost, and events share answers);
// - documents with more than one operation (the plugin caches by document, not by operation);
// - a run whose variables do not coerce (graphql-js reports that, in the words http/errors.ts reads);
// - queries with a field planned by plugin-prisma's selection mapping under another such field (the
//   supplier facility's company under the work order's supplier facility): that mapping is found by the
//   identity of graphql-js's response path objects, which graphql-jit builds afresh for every field, so
//   the relation would be loaded again by its fallback statement instead of coming with its parent. One
//   level (a list or connection row's relations) is found by the path's text and compiles.
//   test/foundation/graphql-compiled.test.ts holds every case to the interpreted run's statement count.
import { useGraphQlJit } from "@envelop/graphql-jit";
import { isAsyncIterable } from "@graphql-tools/utils";
import {
  type DocumentNode,
  getVariableValues,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type Source,
  type SourceLocation,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { logDetails } from "./request-scope.ts";

/** Whether a field resolves through plugin-prisma's path-keyed selection mapping. */
const MAPPED = "pothosPrismaSelect";

/**
 * The operation graphql-jit may run: `document`'s only one, a query in which no field path goes through
 * more than one field that needs the selection mapping (the head of this file says why). Used for GraphQL
 * requests and REST's GET documents (rest/sofa.ts) alike.
 */
export function compilable(schema: GraphQLSchema, document: DocumentNode): OperationDefinitionNode | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length !== 1 || operations[0].operation !== "query") return null;
  // A fragment's fields are visited apart from where it is spread, so their depth is not known.
  const allowed = document.definitions.some((d) => d.kind === Kind.FRAGMENT_DEFINITION) ? 0 : 1;
  const types = new TypeInfo(schema);
  const levels: number[] = [0];
  let deepest = 0;
  visit(
    document,
    visitWithTypeInfo(types, {
      Field: {
        enter() {
          const level = levels.at(-1)! + (types.getFieldDef()?.extensions?.[MAPPED] ? 1 : 0);
          levels.push(level);
          deepest = Math.max(deepest, level);
        },
        leave() {
          levels.pop();
        },
      },
    }),
  );
  return deepest > allowed ? null : operations[0];
}

/** The offset in `source` of a line and column (both from 1), as graphql-js's getLocation counts them. */
function offsetOf(source: Source, { line, column }: SourceLocation): number {
  let start = 0;
  const lineBreaks = /\r\n|[\n\r]/g;
  for (let at = 1; at < line; at++) {
    const found = lineBreaks.exec(source.body);
    if (!found) break;
    start = found.index + found[0].length;
  }
  return start + column - 1;
}

/**
 * A compiled query's errors carry their line and column without the document's nodes, and yoga makes
 * every error again from its nodes or its source and positions (to leave out extensions.http), which
 * would drop them: each is given the document's source and its positions, as graphql-js's errors have.
 */
const locatedErrors: Plugin = {
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result, setResult }) => {
      const source = args.document.loc?.source;
      if (!source || isAsyncIterable(result) || !result.errors?.some((e) => !e.positions && e.locations)) return;
      const errors = result.errors.map((error) =>
        !error.positions && error.locations
          ? new GraphQLError(error.message, {
              source,
              positions: error.locations.map((location: SourceLocation) => offsetOf(source, location)),
              path: error.path,
              originalError: error.originalError,
              extensions: error.extensions,
            })
          : error,
      );
      setResult({ ...result, errors });
    },
  }),
};

/** The envelop plugins: compiled execution for the documents `compilable` accepts (decided once per document). */
export function compiledQueries() {
  const decided = new WeakMap<DocumentNode, OperationDefinitionNode | null>();
  const compiler = useGraphQlJit(
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
        const compiled = !definitions.length || !getVariableValues(schema, definitions, variableValues ?? {}).errors;
        // The request's log line says which ran it (test/foundation/graphql-compiled.test.ts reads it).
        if (compiled) logDetails({ graphqlCompiled: true });
        return compiled;
      },
    },
  );
  return [compiler, locatedErrors] as const;
}
