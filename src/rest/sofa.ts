// One SOFA router per interface, over that interface's cut of the schema. SOFA maps paths to root
// fields; our `execute` adds what the contract needs and SOFA has no hook for: undeclared query
// parameters become the `filter` argument, the JSON body becomes the body argument (GraphQL then checks
// every type strictly and keeps "absent" apart from "null"), and the result is wrapped in the envelope.
//
// GET routes (the read path integrators poll) are answered without SOFA's fetch layer (`direct`): what
// SOFA's handler does for them, done on the adapter's request, with each route's document compiled once
// (graphql-jit; docs/performance.md); every other request goes through SOFA's router and graphql-js.
import {
  execute,
  GraphQLBoolean,
  getNullableType,
  isInputObjectType,
  isListType,
  isScalarType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
  type VariableDefinitionNode,
} from "graphql";
import { buildOperationNodeForField, createGraphQLError } from "@graphql-tools/utils";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { Response } from "fets";
import { parse as parseQueryString } from "qs";
import { createSofa, createSofaRouter as sofaRouter } from "sofa-api";
import type { Interface } from "../schema/core/interfaces.ts";
import { badInput, errorBody } from "../schema/core/errors.ts";
import { restRouteOf } from "../schema/index.ts";
import type { Context } from "../schema/core/context.ts";
import { stringify } from "../schema/core/raw-json.ts";
import { compilable } from "../http/graphql-jit.ts";
import { runsCompiled } from "../schema/core/stable-paths.ts";
import { logDetails, requestScope } from "../http/request-scope.ts";
import { toApiError } from "../http/errors.ts";
import { sofaRoutes, type RouteEntry } from "./routes.ts";

/** What the adapter hands SOFA per request, besides the Request itself. */
export interface RestRequest {
  context: Context;
  /** Parsed JSON body (undefined when there is none). */
  body: unknown;
  query: URLSearchParams;
}

function rootField(args: ExecutionArgs): { operation: OperationDefinitionNode; field: string } {
  const operation = args.document.definitions[0] as OperationDefinitionNode;
  return { operation, field: (operation.selectionSet.selections[0] as FieldNode).name.value };
}

/** Undeclared query parameters, as `{field: "a,b"}` (a repeated parameter is the same as a comma list). */
function filtersFrom(query: URLSearchParams, declared: Set<string>): Record<string, string> {
  // Own properties only (fromEntries): `__proto__` or `toString` stays a filter name, to be refused as one.
  return Object.fromEntries(
    [...new Set(query.keys())]
      .filter((name) => !declared.has(name))
      .map((name) => [name, query.getAll(name).join(",")]),
  );
}

/**
 * The body as its input type declares it: keys the type does not declare are dropped at every depth
 * (line items too), as the contract says of PATCH /work_orders/{id} — one rule for every body
 * (docs/api.md, "Unknown body fields"). Values of the wrong type are left for GraphQL to refuse.
 */
function bodyInput(schema: GraphQLSchema, operation: OperationDefinitionNode, argName: string, body: unknown) {
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badInput("the body must be a JSON object");
  let typeNode: TypeNode | undefined = operation.variableDefinitions?.find(
    (v) => v.variable.name.value === argName,
  )?.type;
  while (typeNode && typeNode.kind !== Kind.NAMED_TYPE) typeNode = typeNode.type;
  const type = typeNode && schema.getType(typeNode.name.value);
  return type && isInputObjectType(type) ? declaredOnly(type, body) : body;
}

function declaredOnly(type: GraphQLInputType, value: unknown): unknown {
  const named = getNullableType(type);
  if (isListType(named)) return Array.isArray(value) ? value.map((v) => declaredOnly(named.ofType, v)) : value;
  if (!isInputObjectType(named) || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const fields = named.getFields();
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => Object.hasOwn(fields, key))
      .map(([key, v]) => [key, declaredOnly(fields[key].type, v)]),
  );
}

type Executor = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/**
 * The direct path's documents are fixed (one per GET route), so each is compiled once (graphql-jit) and
 * run as plain functions instead of graphql-js walking the document for every field of every row:
 * 20–30% of a REST location list request's cost (docs/performance.md). SOFA's own requests keep graphql-js.
 * A compiled run is marked so its relations find what their parents loaded (schema/core/stable-paths.ts).
 */
function compiledExecutor(): Executor {
  const compiled = new WeakMap<DocumentNode, CompiledQuery | null>();
  return (args) => {
    let query = compiled.get(args.document);
    if (query === undefined) {
      const made = compilable(args.document) ? compileQuery(args.schema, args.document) : null;
      if (made && !isCompiledQuery(made)) return made;
      compiled.set(args.document, (query = made));
    }
    if (!query) return execute(args);
    runsCompiled(args.contextValue as object);
    return query.query(undefined, args.contextValue, (args.variableValues ?? {}) as Record<string, unknown>) as
      | Promise<ExecutionResult>
      | ExecutionResult;
  };
}

function envelopeExecute(schema: GraphQLSchema, executor: Executor = execute) {
  return async (args: ExecutionArgs): Promise<ExecutionResult> => {
    const rest = args.contextValue as RestRequest;
    const { operation, field } = rootField(args);
    const route = restRouteOf(schema, operation.operation as "query" | "mutation", field)!;
    const declared = new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value));
    const variableValues: Record<string, unknown> = { ...args.variableValues };
    if (declared.has("filter")) variableValues.filter = filtersFrom(rest.query, declared);
    if (route.bodyArg) variableValues[route.bodyArg] = bodyInput(schema, operation, route.bodyArg, rest.body);
    const result = await executor({ ...args, contextValue: rest.context, variableValues });
    if (result.errors?.length) return result;
    const value = (result.data as Record<string, any>)[field];
    if (route.envelope === false) return { data: { [field]: value } };
    const envelope = route.list
      ? { type: route.type, data: value.data, count: value.count, status: "ok" }
      : { type: route.type, data: value, status: "ok" };
    return { data: { [field]: envelope } };
  };
}

/** A REST answer as the adapter sends it (SOFA's Response, read). */
export interface RestAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** The contract's error body for the first error, its status and its own headers (Retry-After …). */
function errorOf(schema: GraphQLSchema, errors: ReadonlyArray<unknown>) {
  const scope = requestScope.getStore()!;
  const error = toApiError(errors[0], scope.logger, schema);
  logDetails({ errorType: error.type });
  const headers = (error.extensions.http as { headers?: Record<string, string> }).headers ?? {};
  return { status: error.status, body: errorBody(error, scope.traceId), headers };
}

function errorHandler(schema: GraphQLSchema) {
  return (errors: ReadonlyArray<unknown>) => {
    const { status, body, headers } = errorOf(schema, errors);
    return Response.json(body, { status, headers }) as unknown as globalThis.Response;
  };
}

/** What Response.json(value, {status, headers}) holds once read: the headers lower-cased and sorted, as Headers iterates them. */
function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): RestAnswer {
  const body = stringify(value);
  const all = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  };
  const sorted = Object.entries(all)
    .map(([name, v]) => [name.toLowerCase(), v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { status, body, headers: Object.fromEntries(sorted) };
}

/** A query-string or path value as SOFA's parseVariable reads it for a variable's type. */
function coerce(schema: GraphQLSchema, type: TypeNode, value: unknown): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return coerce(schema, type.type, value);
  if (type.kind === Kind.LIST_TYPE)
    return (Array.isArray(value) ? value : [value]).map((v) => coerce(schema, type.type, v));
  const named = schema.getType(type.name.value);
  if (isScalarType(named))
    return named.serialize(named === GraphQLBoolean ? value === "true" || value === true : value);
  if (isInputObjectType(named)) return value && typeof value === "object" ? value : JSON.parse(value as string);
  return value;
}

/** A GET route's document, as SOFA builds it. */
interface Prepared {
  document: DocumentNode;
  variables: readonly VariableDefinitionNode[];
  field: string;
}

export interface SofaServer {
  /** SOFA's router: every request the direct path declines. */
  router: ReturnType<typeof sofaRouter>;
  /**
   * A GET query route's answer without SOFA's fetch layer, or undefined for a route that is not one
   * (a mutation, a route that answers with a file): SOFA answers those. The adapter sends only GETs
   * whose path has no %-escapes here (SOFA decodes those its own way).
   */
  direct(
    entry: RouteEntry,
    params: Record<string, string>,
    search: string,
    rest: RestRequest,
  ): Promise<RestAnswer> | undefined;
}

export function createSofaServer(iface: Interface, schema: GraphQLSchema, table: RouteEntry[]): SofaServer {
  const run = envelopeExecute(schema);
  const runCompiled = envelopeExecute(schema, compiledExecutor());
  const sofa = createSofa({
    basePath: `/v1/${iface}`,
    schema,
    routes: sofaRoutes(table),
    execute: run as never,
    context: (serverContext: { rest: RestRequest }) => serverContext.rest,
    errorHandler: errorHandler(schema) as never,
    // Every type is a plain value here: SOFA would otherwise cut nested "models" down to their id.
    ignore: Object.keys(schema.getTypeMap()),
  });
  const router = sofaRouter(sofa);
  // The document SOFA builds for each GET route, built by the same function from SOFA's own settings.
  const documents = new Map<RouteEntry, Prepared>();
  for (const entry of table) {
    if (entry.operation !== "query" || entry.route.method !== "GET" || entry.route.download) continue;
    const operation = buildOperationNodeForField({
      kind: OperationTypeNode.QUERY,
      schema,
      field: entry.field,
      models: sofa.models,
      ignore: sofa.ignore,
      circularReferenceDepth: sofa.depthLimit,
    });
    documents.set(entry, {
      document: { kind: Kind.DOCUMENT, definitions: [operation] },
      variables: operation.variableDefinitions ?? [],
      field: entry.field,
    });
  }
  const failed = (errors: ReadonlyArray<unknown>) => {
    const { status, body, headers } = errorOf(schema, errors);
    return jsonAnswer(status, body, headers);
  };
  const answer = async (
    { document, variables, field }: Prepared,
    params: Record<string, string>,
    search: string,
    rest: RestRequest,
  ): Promise<RestAnswer> => {
    try {
      // As SOFA reads the query string: what follows the URL's first "?", up to a second one.
      const part = search.split("?")[1];
      const query = part ? parseQueryString(part) : {};
      const variableValues: Record<string, unknown> = {};
      try {
        for (const variable of variables) {
          const name = variable.variable.name.value;
          // As SOFA's pickParam: a path parameter, else the query string's value unless empty.
          const value = name in params ? params[name] : query[name] || undefined;
          if (value !== undefined && value !== null) variableValues[name] = coerce(schema, variable.type, value);
        }
      } catch (error) {
        throw createGraphQLError((error as Error).message, { extensions: { http: { status: 400 } } });
      }
      const result = await runCompiled({ schema, document, contextValue: rest, variableValues });
      return result.errors ? failed(result.errors) : jsonAnswer(200, (result.data as Record<string, unknown>)[field]);
    } catch (error) {
      return failed([error]);
    }
  };
  return {
    router,
    direct(entry, params, search, rest) {
      const found = documents.get(entry);
      return found && answer(found, params, search, rest);
    },
  };
}
