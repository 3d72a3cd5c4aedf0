// One SOFA router per interface, over that interface's cut of the schema. SOFA maps paths to root
// fields; our `execute` adds what the contract needs and SOFA has no hook for: undeclared query
// parameters become the `filter` argument, the JSON body becomes the body argument (GraphQL then checks
// every type strictly and keeps "absent" apart from "null"), and the result is wrapped in the envelope.
import {
  execute,
  isInputObjectType,
  Kind,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
} from "graphql";
import { Response } from "fets";
import { useSofa } from "sofa-api";
import type { Interface } from "../schema/core/interfaces.ts";
import { badInput, errorBody } from "../schema/core/errors.ts";
import { restRouteOf } from "../schema/index.ts";
import type { Context } from "../schema/core/context.ts";
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
  return Object.fromEntries([...new Set(query.keys())].filter((name) => !declared.has(name)).map((name) => [name, query.getAll(name).join(",")]));
}

/** The body's keys that the input type declares; others are ignored, as the contract says. */
function bodyInput(schema: GraphQLSchema, operation: OperationDefinitionNode, argName: string, body: unknown) {
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw badInput("the body must be a JSON object");
  let typeNode: TypeNode | undefined = operation.variableDefinitions?.find((v) => v.variable.name.value === argName)?.type;
  while (typeNode && typeNode.kind !== Kind.NAMED_TYPE) typeNode = typeNode.type;
  const type = typeNode && schema.getType(typeNode.name.value);
  if (!type || !isInputObjectType(type)) return body;
  const known = type.getFields();
  return Object.fromEntries(Object.entries(body).filter(([key]) => key in known));
}

function envelopeExecute(schema: GraphQLSchema) {
  return async (args: ExecutionArgs): Promise<ExecutionResult> => {
    const rest = args.contextValue as RestRequest;
    const { operation, field } = rootField(args);
    const route = restRouteOf(schema, operation.operation as "query" | "mutation", field)!;
    const declared = new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value));
    const variableValues: Record<string, unknown> = { ...args.variableValues };
    if (declared.has("filter")) variableValues.filter = filtersFrom(rest.query, declared);
    if (route.bodyArg) variableValues[route.bodyArg] = bodyInput(schema, operation, route.bodyArg, rest.body);
    const result = await execute({ ...args, contextValue: rest.context, variableValues });
    if (result.errors?.length) return result;
    const value = (result.data as Record<string, any>)[field];
    if (route.envelope === false) return { data: { [field]: value } };
    const envelope = route.list
      ? { type: route.type, data: value.data, count: value.count, status: "ok" }
      : { type: route.type, data: value, status: "ok" };
    return { data: { [field]: envelope } };
  };
}

function errorHandler(schema: GraphQLSchema) {
  return (errors: ReadonlyArray<unknown>) => {
    const scope = requestScope.getStore()!;
    const error = toApiError(errors[0], scope.logger, schema);
    logDetails({ errorType: error.type });
    const headers = (error.extensions.http as { headers?: Record<string, string> }).headers ?? {};
    return Response.json(errorBody(error, scope.traceId), { status: error.status, headers }) as unknown as globalThis.Response;
  };
}

export function createSofaRouter(iface: Interface, schema: GraphQLSchema, table: RouteEntry[]) {
  return useSofa({
    basePath: `/v1/${iface}`,
    schema,
    routes: sofaRoutes(table),
    execute: envelopeExecute(schema) as never,
    context: (serverContext: { rest: RestRequest }) => serverContext.rest,
    errorHandler: errorHandler(schema) as never,
    // Every type is a plain value here: SOFA would otherwise cut nested "models" down to their id.
    ignore: Object.keys(schema.getTypeMap()),
  });
}
