// Every error leaves the service as the contract's body {message, type, status: "error", traceId}.
// Known errors keep their status; input the GraphQL layer rejects (wrong types, missing fields) is a
// 400; a database that cannot be reached is a 503 (ServiceUnavailableException, Retry-After); anything
// else unexpected is logged and answered as a 500 without internals.
import { GraphQLError } from "graphql";
import { isConnectionError } from "../db.ts";
import { ApiError, badInput, conflict, notFound, serviceUnavailable } from "../schema/core/errors.ts";
import type { Logger } from "../logger.ts";

function fromPrisma(error: { code?: string; name?: string }): ApiError | undefined {
  if (!error?.name?.startsWith("PrismaClient")) return undefined;
  if (error.code === "P2002") return conflict("a record with these values already exists");
  if (error.code === "P2025") return notFound();
  if (error.code === "P2003") return badInput("a referenced record does not exist");
  if (error.code === "P2000" || error.code === "P2033") return badInput("a value is out of range");
  return undefined;
}

export function toApiError(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original instanceof ApiError) return original;
    const prisma = original && fromPrisma(original as never);
    if (prisma) return prisma;
    // No original error: GraphQL rejected the input itself (coercion, unknown field, missing argument).
    if (!original || (error.extensions?.http as { status?: number } | undefined)?.status === 400) {
      return badInput(error.message);
    }
    if (original instanceof GraphQLError) return toApiError(original, logger);
    error = original;
  }
  const prisma = fromPrisma(error as never);
  if (prisma) return prisma;
  if (isConnectionError(error)) {
    logger.warn({ err: (error as Error)?.message }, "database unreachable; answered 503");
    return serviceUnavailable();
  }
  logger.error({ err: error }, "unexpected error");
  return new ApiError(500, "InternalServerError", "internal error");
}
