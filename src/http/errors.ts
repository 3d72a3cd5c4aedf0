// Every error leaves the service as the contract's body {message, type, status: "error", traceId} (plus
// `field` when one field or parameter is at fault). Known errors keep their status; input GraphQL
// rejects (wrong types, missing fields) is a 400 in the contract's words, naming the field; a database
// that cannot be reached is a 503 (ServiceUnavailableException, Retry-After); anything else unexpected
// is logged and answered as a 500 without internals.
import { GraphQLError, isEnumType, type GraphQLSchema } from "graphql";
import { isConnectionError, isPoolBusy } from "../db.ts";
import { ApiError, badInput, conflict, notFound, serviceBusy, serviceUnavailable } from "../schema/core/errors.ts";
import type { Logger } from "../logger.ts";

function fromPrisma(error: { code?: string; name?: string }): ApiError | undefined {
  if (!error?.name?.startsWith("PrismaClient")) return undefined;
  if (error.code === "P2002") return conflict("a record with these values already exists");
  if (error.code === "P2025") return notFound();
  if (error.code === "P2003") return badInput("a referenced record does not exist");
  if (error.code === "P2000" || error.code === "P2033") return badInput("a value is out of range");
  return undefined;
}

/** A field path as integrators write it: the REST body's argument name (`input`) is not theirs. */
const fieldName = (path: string) => path.replace(/^input(\.|$)/, "") || undefined;

type Wording = (
  field: string | undefined,
  match: RegExpExecArray,
  schema?: GraphQLSchema,
) => { field?: string; message: string };

const subject = (field: string | undefined, match: RegExpExecArray) => field ?? `the value ${match[1] ?? ""}`.trim();
const join = (at: string | undefined, name: string) => (at ? `${at}.${name}` : name);

/** graphql-js's messages for bad input, and how the contract says them. */
const WORDINGS: [RegExp, Wording][] = [
  [
    /^Field "([^"]+)" of required type "[^"]+" was not provided\.$/,
    (at, m) => ({ field: join(at, m[1]), message: `${join(at, m[1])} is required` }),
  ],
  [
    /^Variable "\$(\w+)" of required type "[^"]+" was not provided\.$/,
    (_at, m) => {
      const field = fieldName(m[1]);
      return { field, message: field ? `${field} is required` : "a JSON body is required" };
    },
  ],
  [
    /^Int cannot represent non 32-bit signed integer value: (.*)$/s,
    (at, m) => ({ field: at, message: `${subject(at, m)} must be a whole number between -2147483648 and 2147483647` }),
  ],
  [
    /^Int cannot represent non-integer value: (.*)$/s,
    (at, m) => ({ field: at, message: `${subject(at, m)} must be a whole number` }),
  ],
  [
    /^Float cannot represent non numeric value: (.*)$/s,
    (at, m) => ({ field: at, message: `${subject(at, m)} must be a number` }),
  ],
  [
    /^String cannot represent a non string value: (.*)$/s,
    (at, m) => ({ field: at, message: `${subject(at, m)} must be a string` }),
  ],
  [
    /^Boolean cannot represent a non boolean value: (.*)$/s,
    (at, m) => ({ field: at, message: `${subject(at, m)} must be true or false` }),
  ],
  [
    /^(?:Value "[^"]*" does not exist in|Enum) "(\w+)" (?:enum|cannot represent)/,
    (at, m, schema) => {
      const type = schema?.getType(m[1]);
      const values =
        type && isEnumType(type)
          ? `: ${type
              .getValues()
              .map((v) => v.name)
              .join(", ")}`
          : "";
      return { field: at, message: `${at ?? "the value"} must be one of the allowed values${values}` };
    },
  ],
  [
    /^Expected type "[^"]+" to be an object\.$/,
    (at) => ({ field: at, message: `${at ?? "the value"} must be an object` }),
  ],
  [
    /^Field "([^"]+)" is not defined by type "[^"]+"\./,
    (at, m) => ({ field: join(at, m[1]), message: `${join(at, m[1])} is not a known field` }),
  ],
];

/**
 * A GraphQL input error in the contract's words: graphql-js says `Variable "$input" got invalid value …
 * at "input.notes[2].photo"; <what is wrong>`; the answer is `notes[2].photo must be a string`, field
 * `notes[2].photo`. An error raised by our own scalars (already in our words) gets the field prefixed.
 */
export function inputError(error: GraphQLError, schema?: GraphQLSchema): ApiError {
  const inner = error.originalError?.message ?? error.message;
  const outer = error.message;
  let path: string | undefined;
  const variable = /^Variable "\$(\w+)" got invalid value /.exec(outer);
  if (variable && outer.endsWith(`; ${inner}`)) {
    const prefix = outer.slice(0, outer.length - inner.length - 2);
    path = fieldName(/ at "([^"]+)"$/.exec(prefix)?.[1] ?? variable[1]);
  }
  for (const [pattern, wording] of WORDINGS) {
    const match = pattern.exec(inner);
    if (match) {
      const { field, message } = wording(path, match, schema);
      return badInput(message, field);
    }
  }
  // Our scalars already speak the contract's words ("must be …"): name what they were given for.
  if (inner.startsWith("must ")) return badInput(`${path ?? "the value"} ${inner}`, path);
  return badInput(path ? `${path}: ${inner}` : inner, path);
}

export function toApiError(error: unknown, logger: Logger, schema?: GraphQLSchema): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original instanceof ApiError) {
      // Raised while coercing a variable (our scalars): name the field the value was for.
      return /^Variable "\$\w+" got invalid value /.test(error.message) ? inputError(error, schema) : original;
    }
    const prisma = original && fromPrisma(original as never);
    if (prisma) return prisma;
    // GraphQL rejected the input itself (coercion, unknown field, missing argument).
    if (
      !original ||
      original instanceof GraphQLError ||
      (error.extensions?.http as { status?: number } | undefined)?.status === 400
    ) {
      return inputError(error, schema);
    }
    error = original;
  }
  const prisma = fromPrisma(error as never);
  if (prisma) return prisma;
  if (isPoolBusy(error)) {
    logger.warn("every database connection busy; answered 503");
    return serviceBusy();
  }
  if (isConnectionError(error)) {
    logger.warn({ err: (error as Error)?.message }, "database unreachable; answered 503");
    return serviceUnavailable();
  }
  logger.error({ err: error }, "unexpected error");
  return new ApiError(500, "InternalServerError", "internal error");
}
