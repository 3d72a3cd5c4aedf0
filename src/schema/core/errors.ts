// The one error type of the service. Its `type` and status become the contract's error body
// `{message, type, status: "error", traceId}` on REST and the error's extensions on GraphQL.
import { GraphQLError } from "graphql";

export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 410 | 422 | 429 | 500 | 503;

export class ApiError extends GraphQLError {
  readonly status: ErrorStatus;
  readonly type: string;
  /** The body field or parameter at fault, when one is (`input.` stripped: "notes[2].photo"). */
  readonly field?: string;

  constructor(status: ErrorStatus, type: string, message: string, headers?: Record<string, string>, field?: string) {
    super(message, {
      extensions: { code: type, ...(field ? { field } : {}), http: { status, ...(headers ? { headers } : {}) } },
    });
    this.status = status;
    this.type = type;
    this.field = field;
  }
}

export const badInput = (message: string, field?: string) =>
  new ApiError(400, "invalidInputDataException", message, undefined, field);
export const outOfScope = (message = "record is outside the scope of this key") =>
  new ApiError(400, "invalidInputDataException", message);
/** A write to a record the key may not change: unknown, deleted, foreign and denied alike (the contract's rule). */
export const notWritable = (noun: string, id: unknown) => outOfScope(`no ${noun} ${id} that this key may change`);
export const unauthorized = (message = "missing or invalid X-API-KEY / SVC-KEY") =>
  new ApiError(401, "UnauthorizedException", message);
export const forbidden = (message: string) => new ApiError(403, "ForbiddenException", message);
export const notFound = (message = "record not found") => new ApiError(404, "NotFoundException", message);
export const conflict = (message: string) => new ApiError(409, "ConflictException", message);
/** A save-level validation failure (the contract's 406 for invoices). */
export const notAcceptable = (message: string) => new ApiError(406, "NotAcceptableException", message);
/** Well-formed but refused as a whole (an Idempotency-Key reused for another request). */
export const unprocessable = (message: string) => new ApiError(422, "UnprocessableEntityException", message);

/** The one 429 of every channel (REST, GraphQL over HTTP, websockets); `headers` are the RateLimit-* ones. */
export const rateLimited = (
  limit: { requests: number; windowSeconds: number },
  retryAfterSeconds: number,
  headers: Record<string, string> = {},
) =>
  new ApiError(
    429,
    "TooManyRequestsException",
    `rate limit of ${limit.requests} requests per ${limit.windowSeconds} s exceeded; retry after ${retryAfterSeconds} s`,
    { ...headers, "Retry-After": String(retryAfterSeconds) },
  );

/** Seconds a client is told to wait (Retry-After) while the database is unreachable. */
const UNAVAILABLE_RETRY_SECONDS = 5;

/** The database cannot be reached right now (refused, terminated, restarting); the request did nothing. */
export const serviceUnavailable = () =>
  new ApiError(
    503,
    "ServiceUnavailableException",
    `the service cannot reach its database right now; retry in ${UNAVAILABLE_RETRY_SECONDS} s`,
    {
      "Retry-After": String(UNAVAILABLE_RETRY_SECONDS),
    },
  );

/** Seconds a client is told to wait (Retry-After) when every database connection is busy. */
const BUSY_RETRY_SECONDS = 1;

/**
 * Every database connection stayed busy for the pool's bounded wait (overload) before the request committed
 * anything (db.ts: after a commit the wait goes on): it did nothing.
 */
export const serviceBusy = () =>
  new ApiError(503, "ServiceUnavailableException", `the service is busy right now; retry in ${BUSY_RETRY_SECONDS} s`, {
    "Retry-After": String(BUSY_RETRY_SECONDS),
  });

/** The contract's error body (plus `field` when one field or parameter is at fault). */
export function errorBody(error: { message: string; type: string; field?: string }, traceId: string) {
  return {
    message: error.message,
    type: error.type,
    status: "error" as const,
    traceId,
    ...(error.field ? { field: error.field } : {}),
  };
}
