// Compiled queries (docs/performance.md, "Compiled queries"): a query document is compiled once into
// JavaScript by graphql-jit (envelop's useGraphQlJit, cached per parsed document) and every later run of
// it resolves and completes values without graphql-js's per-field interpretation. A chart answer of
// 19,373 rows took 136 ms to complete in graphql-js and 25 ms compiled.
//
// Not compiled, so graphql-js runs them as before:
// - mutations and subscriptions (their execution is not the cost, and events share answers);
// - documents with more than one operation (the plugin caches by document, not by operation);
// - a run whose variables do not coerce (graphql-js reports that, in the words http/errors.ts reads);
// Relations under relations compile too: plugin-prisma's selection mapping finds a relation's data by the
// identity of the response path objects above it, which graphql-jit builds afresh for every call; a
// compiled run is marked (runsCompiled) and given stable paths (schema/core/stable-paths.ts).
// test/foundation/graphql-compiled.test.ts holds every case to the interpreted run's statement count.
import { useGraphQlJit } from "@envelop/graphql-jit";
import { isAsyncIterable } from "@graphql-tools/utils";
import {
  type DocumentNode,
  getVariableValues,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type Source,
  type SourceLocation,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { runsCompiled } from "../schema/core/stable-paths.ts";
import { logDetails } from "./request-scope.ts";

/**
 * The operation graphql-jit may run: `document`'s only one, when it is a query. Used for GraphQL requests
 * and REST's GET documents (rest/sofa.ts) alike.
 */
export function compilable(document: DocumentNode): OperationDefinitionNode | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  return operations.length === 1 && operations[0].operation === "query" ? operations[0] : null;
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
      enableIf: ({ schema, document, variableValues, contextValue }) => {
        let operation = decided.get(document);
        if (operation === undefined) {
          operation = compilable(document);
          decided.set(document, operation);
        }
        if (!operation) return false;
        const definitions = operation.variableDefinitions ?? [];
        const compiled = !definitions.length || !getVariableValues(schema, definitions, variableValues ?? {}).errors;
        // The request's log line says which ran it (test/foundation/graphql-compiled.test.ts reads it).
        if (compiled) {
          runsCompiled(contextValue as object);
          logDetails({ graphqlCompiled: true });
        }
        return compiled;
      },
    },
  );
  return [compiler, locatedErrors] as const;
}
