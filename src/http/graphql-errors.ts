// GraphQL over HTTP answers its errors one way, whichever JSON media type the client accepts (the
// GraphQL-over-HTTP spec's rule, and docs/api.md "GraphQL errors and statuses"):
// - a request error (unreadable body, syntax, validation: an unknown field, a missing argument, bad
//   variables; a refused key; the budget) stops the request before execution: no `data`, a 4xx status;
// - once execution has started, `data` is there (root fields are nullable in the GraphQL schema,
//   schema/index.ts nullableRoots) and the answer is 200; each field that failed is null with its error.
// Every error carries the contract's `extensions.code` and the request's `traceId`.
import { GraphQLError, type ExecutionResult } from "graphql";
import { requestScope } from "./request-scope.ts";

/** The contract's error type of a status, for errors raised outside our code (yoga's request parser, the parser). */
const CODE_OF_STATUS: Record<number, string> = {
  400: "invalidInputDataException",
  401: "UnauthorizedException",
  403: "ForbiddenException",
  404: "NotFoundException",
  405: "NotFoundException",
  406: "NotAcceptableException",
  409: "ConflictException",
  413: "invalidInputDataException",
  415: "invalidInputDataException",
  422: "UnprocessableEntityException",
  429: "TooManyRequestsException",
  500: "InternalServerError",
  503: "ServiceUnavailableException",
};
const CONTRACT_CODES = new Set(Object.values(CODE_OF_STATUS));

type HttpExtension = { status?: number; headers?: Record<string, string>; spec?: boolean };

/** What yoga's result processor reads: the status only for a request error, never once there is data. */
function httpOf(http: HttpExtension | undefined, partial: boolean): HttpExtension {
  const { status = 400, headers } = http ?? {};
  // `spec: false`: yoga would answer a validation error 200 under Accept: application/json otherwise.
  return partial ? { ...(headers ? { headers } : {}) } : { status, ...(headers ? { headers } : {}), spec: false };
}

/** One error with the contract's code, the trace id and the status rule above. */
function contractError(error: GraphQLError, partial: boolean): GraphQLError {
  const { code, traceId, http, ...rest } = error.extensions ?? {};
  const httpExtension = httpOf(http as HttpExtension | undefined, partial);
  const contractCode =
    typeof code === "string" && CONTRACT_CODES.has(code)
      ? code
      : (CODE_OF_STATUS[(http as HttpExtension | undefined)?.status ?? 400] ?? "invalidInputDataException");
  return remade(error, error.message, {
    code: contractCode,
    ...rest,
    traceId: traceId ?? requestScope.getStore()?.traceId,
    http: httpExtension,
  });
}

/**
 * A new error in the place of `error` (its location in the document and its path) with another message
 * and extensions. A compiled query's errors get their source and positions before they come here
 * (graphql-jit.ts locatedErrors).
 */
export function remade(error: GraphQLError | undefined, message: string, extensions: Record<string, unknown>) {
  return new GraphQLError(message, {
    nodes: error?.nodes,
    source: error?.source,
    positions: error?.positions,
    path: error?.path,
    extensions,
  });
}

/** A single result with every error as contractError makes it (results without errors as they are). */
export function withContractErrors<T extends ExecutionResult>(result: T): T {
  if (!result.errors?.length) return result;
  const partial = result.data != null;
  // Errors first, as graphql-js orders a result (a compiled query's result has data first).
  const { errors, ...rest } = result;
  return { errors: errors.map((error) => contractError(error, partial)), ...rest } as unknown as T;
}
