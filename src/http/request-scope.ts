// Per-request values that code without a context argument needs (SOFA's error handler, the logger, the
// GraphQL context factory that adds the rate-limit headers).
import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import type { Logger } from "../logger.ts";

export interface RequestScope {
  traceId: string;
  logger: Logger;
  /** Metrics label of the matched route. */
  route: string;
  /** Adds headers to the response (before it is written). */
  setHeaders(headers: Record<string, string>): void;
  /** What the request's log line adds: the key and tenant, the error type, the GraphQL operation. */
  details: Record<string, unknown>;
}

/** Adds to the current request's log line (nothing outside a request). */
export function logDetails(details: Record<string, unknown>): void {
  const scope = requestScope.getStore();
  if (scope) Object.assign(scope.details, details);
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * A context's `statementAnswers` (schema/core/statement-answers.ts), REST's and GraphQL's: the request's
 * log line says when rows were answered by their statement, and when as text (test/dashboards/statement-answers.test.ts
 * reads both).
 */
export const STATEMENT_ANSWERS = {
  answered: (asText?: boolean) =>
    logDetails(asText ? { rowsAnswered: true, rowsAsText: true } : { rowsAnswered: true }),
};

/** A caller's X-Request-Id / X-Trace-Id is kept when it is sane; otherwise a new id. */
export function traceIdFrom(headers: Record<string, string | string[] | undefined>): string {
  const given = headers["x-trace-id"] ?? headers["x-request-id"];
  const value = Array.isArray(given) ? given[0] : given;
  return value && /^[\w.:-]{8,128}$/.test(value) ? value : crypto.randomUUID();
}
