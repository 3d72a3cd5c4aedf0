// The OpenAPI 3.0 document of an interface, generated from the same things that drive the routes: the
// REST cut of the schema (types, arguments, descriptions) and each root field's `extensions.rest`
// (path, method, envelope, list filters and sorting, rate limit, extra error statuses). Validated in
// `npm test` (test/foundation/openapi.test.ts).
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
} from "graphql";
import type { Maybe } from "graphql/jsutils/Maybe";
import type { FilterKind, Interface, ListQuery, RestRoute } from "../schema/core/interfaces.ts";
import type { RouteEntry } from "./routes.ts";
import { COUNT_VALUE, jsonFieldSchema } from "./openapi-json.ts";
import EXAMPLES from "./openapi-examples.json" with { type: "json" };

type Schema = Record<string, unknown>;

const SCALARS: Record<string, Schema> = {
  Int: { type: "integer", format: "int32" },
  Float: { type: "number" },
  String: { type: "string" },
  ID: { type: "string" },
  Boolean: { type: "boolean" },
  DateTime: {
    type: "string",
    format: "date-time",
    description: "ISO 8601 timestamp with a UTC offset",
    example: "2026-11-02T15:04:05.000Z",
  },
  Date: { type: "string", format: "date", description: "Calendar date", example: "2026-11-02" },
  JSON: { description: "Any JSON value" },
  IdList: {
    type: "string",
    pattern: "^\\d+(,\\d+)*$",
    description: "Comma-separated whole-number ids",
    example: "12,15,19",
  },
};

const FILTER_SCHEMAS: Record<string, Schema> = {
  // One id, or several (sent comma-separated, `style: form, explode: false`): typed as integers.
  int: {
    anyOf: [
      { type: "integer", format: "int32" },
      { type: "array", items: { type: "integer", format: "int32" } },
    ],
    description: "A whole number; comma-separated values match any of them",
  },
  string: { type: "string", description: "Comma-separated values match any of them" },
  boolean: {
    anyOf: [{ type: "boolean" }, { type: "array", items: { type: "boolean" } }],
    description: "true or false (comma-separated: either)",
  },
  datetime: { type: "string", description: "ISO 8601 timestamp" },
};

const EXAMPLE_TRACE = "0b6d2f0e-6f3c-4d8a-9a59-0d1b0c7f4e21";
const ERRORS: Record<number, { description: string; type: string; message: string }> = {
  400: {
    description: "Bad input, bad filters, a permission denial, or a record outside the key's scope",
    type: "invalidInputDataException",
    message: "locationId is required",
  },
  401: {
    description: "Missing or invalid X-API-KEY / SVC-KEY, or a key of another interface",
    type: "UnauthorizedException",
    message: "missing or invalid X-API-KEY / SVC-KEY",
  },
  403: {
    description: "Forbidden for this key",
    type: "ForbiddenException",
    message: "roles admin cannot be provisioned through the API",
  },
  404: { description: "The record (or route) does not exist", type: "NotFoundException", message: "record not found" },
  406: {
    description: "The record cannot be saved as it is",
    type: "NotAcceptableException",
    message: "the invoice cannot be saved",
  },
  409: {
    description: "Conflicts with the record's state",
    type: "ConflictException",
    message: "work order 12 cannot be cancelled while technician tina@coolco.example is checked in (cancellation lock)",
  },
  422: {
    description: "The Idempotency-Key was already used for another request",
    type: "UnprocessableEntityException",
    message: "Idempotency-Key abc was used for another request",
  },
  429: {
    description: "Rate limit exceeded: retry after Retry-After seconds",
    type: "TooManyRequestsException",
    message: "rate limit of 10 requests per 20 s exceeded; retry after 7 s",
  },
  503: {
    description: "The database cannot be reached right now; nothing was done (see Retry-After)",
    type: "ServiceUnavailableException",
    message: "the service cannot reach its database right now; retry in 5 s",
  },
};

const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes this write safe to retry: the first answer to a key (per API key, 1 to 255 visible ASCII characters, " +
    "e.g. a UUID) is stored with the work it answers, and the same key with the same method, path and body within " +
    "24 hours returns that answer (status and body, with `Idempotent-Replayed: true`) without doing the work again. " +
    "A concurrent duplicate waits for the first. Only 2xx answers are stored: after an error nothing was done and a " +
    "retry runs again. The same key with another request is 422.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

const TAGS: Record<string, string> = {
  location: "Locations",
  asset: "Assets",
  work_order: "Work orders",
  user: "Users",
  currency_exchange: "Currency",
  buyer_company: "Buyer companies",
  supplier_facilities: "Supplier network",
  private_network: "Private network",
  quote: "Proposals",
  invoice: "Invoices",
  file: "Files",
  pm: "Planned maintenance",
  site_survey: "Walkthroughs",
  purchasing: "Purchasing",
  inventory: "Inventory",
  ping: "Identity",
  me: "Identity",
};

const tagOf = (path: string) => {
  const segment = path.split("/")[1] ?? "";
  return TAGS[segment] ?? segment.replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());
};

/** The first sentence of a description, cut at a word near 100 characters: the operation's summary. */
const summaryOf = (description: string | undefined, fallback: string) => {
  const sentence = description?.split(/(?<=[.;])\s/)[0]?.replace(/[.;]$/, "");
  if (!sentence) return fallback;
  return sentence.length <= 100 ? sentence : `${sentence.slice(0, sentence.lastIndexOf(" ", 100))} …`;
};

const rateLimitHeaders = {
  "RateLimit-Limit": { description: "Requests allowed in the window", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in the window", schema: { type: "integer" } },
  "RateLimit-Reset": {
    description: "Seconds until the oldest counted request leaves the window",
    schema: { type: "integer" },
  },
};
const traceHeader = {
  "X-Trace-Id": {
    description: "The request's trace id (the caller's X-Request-Id when given)",
    schema: { type: "string" },
  },
};

/** Components of one document: every named type a route reaches, as JSON schemas. */
class Components {
  readonly schemas: Record<string, Schema> = {};

  of(type: GraphQLType): Schema {
    if (isNonNullType(type)) return this.of(type.ofType);
    if (isListType(type)) return { type: "array", items: this.of(type.ofType) };
    const named = type as GraphQLNamedType;
    if (isScalarType(named)) return SCALARS[named.name] ?? { type: "string" };
    this.define(named);
    return { $ref: `#/components/schemas/${named.name}` };
  }

  /**
   * One field: a `JSON` field as its real shape (openapi-json.ts); a field that may be null (an
   * answer's nullable field, an input field that takes null) as nullable. OpenAPI 3.0 admits null only
   * beside `type` (and into an enum only when the enum lists it), so a nullable enum is written out
   * with null among its values rather than as a `$ref` beside `nullable`, which would not admit null.
   */
  private property(
    typeName: string,
    field: { name: string; type: GraphQLType; description?: Maybe<string>; extensions?: Record<string, unknown> },
  ) {
    const named = getNamedType(field.type);
    const closed = field.extensions?.openapiEnum as string[] | undefined;
    const value = closed
      ? { type: "string", enum: isNonNullType(field.type) ? closed : [...closed, null] }
      : ((named.name === "JSON" ? jsonFieldSchema(typeName, field.name) : undefined) ?? this.of(field.type));
    const described = field.description ? { description: field.description } : {};
    const nullable = !isNonNullType(field.type);
    if (!nullable)
      return value.$ref && field.description ? { allOf: [value], ...described } : { ...value, ...described };
    if (isEnumType(named) && !isListType(getNullableType(field.type))) {
      const values = named.getValues().map((v) => v.name);
      return { type: "string", enum: [...values, null], nullable: true, ...described };
    }
    if (value.$ref) return { allOf: [value], ...described, nullable: true };
    return { ...value, ...described, nullable: true };
  }

  private define(type: GraphQLNamedType): void {
    if (this.schemas[type.name]) return;
    if (isEnumType(type)) {
      this.schemas[type.name] = {
        type: "string",
        enum: type.getValues().map((v) => v.name),
        ...(type.description ? { description: type.description } : {}),
      };
      return;
    }
    if (!isObjectType(type) && !isInputObjectType(type)) return;
    const schema: Schema = { type: "object" };
    this.schemas[type.name] = schema; // before the fields: types refer to themselves
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if ("args" in field && (field as GraphQLField<unknown, unknown>).args.some((a) => isNonNullType(a.type)))
        continue;
      properties[field.name] = this.property(type.name, field);
      if (isNonNullType(field.type)) required.push(field.name);
    }
    Object.assign(schema, {
      ...(type.description ? { description: type.description } : {}),
      ...(required.length ? { required } : {}),
      properties,
    });
  }
}

function errorResponse(status: number, headers: Record<string, unknown>, description = ERRORS[status].description) {
  const { type, message } = ERRORS[status];
  return {
    description,
    headers: {
      ...traceHeader,
      ...headers,
      ...(status === 429 || status === 503
        ? { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } }
        : {}),
    },
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/ErrorBody" },
        example: {
          message,
          type,
          status: "error",
          traceId: EXAMPLE_TRACE,
          ...(status === 400 ? { field: "locationId" } : {}),
        },
      },
    },
  };
}

type RootField = GraphQLField<unknown, unknown>;

/**
 * A list filter the field does not declare as an argument. Ids are integers and a field of a closed set
 * (the item's enum or `closedSet` field: `status`) takes its values; either may be one value or several
 * (comma-separated: `style: form, explode: false`).
 */
function filterParameter(name: string, kind: FilterKind, itemField: GraphQLField<unknown, unknown> | undefined) {
  const named = itemField && getNamedType(itemField.type);
  const closed =
    (itemField?.extensions?.openapiEnum as string[] | undefined) ??
    (named && isEnumType(named) ? named.getValues().map((v) => v.name) : undefined);
  const one = closed && kind === "string" ? { type: "string", enum: closed } : undefined;
  // Some lists read id filters as text (the search index's terms); they are ids all the same.
  const ids = kind === "int" || /Ids?$/.test(name);
  const several = one || ids;
  return {
    name,
    in: "query",
    required: false,
    schema: one ? { anyOf: [one, { type: "array", items: one }] } : FILTER_SCHEMAS[ids ? "int" : kind],
    ...(several || kind === "boolean" ? { style: "form", explode: false } : {}),
    description: `Filter on ${name}${several ? "; comma-separated values match any of them" : ""}`,
  };
}

/** sort_by, group_by and order: their values as enums (sort_by as a described string where others do not fail). */
function sortingOf(parameters: Schema[], query: ListQuery): void {
  const sortBy = parameters.find((p) => p.name === "sort_by");
  if (sortBy && query.sortable.length && query.sortFallback)
    Object.assign(sortBy, {
      schema: { type: "string", example: query.sortable[0] },
      description: `Field to sort by: ${query.sortable.join(", ")}; any other value ${query.sortFallback}`,
    });
  else if (sortBy && query.sortable.length)
    Object.assign(sortBy, {
      schema: { type: "string", enum: [...query.sortable] },
      description: `Field to sort by: ${query.sortable.join(", ")}`,
    });
  const groupBy = parameters.find((p) => p.name === "group_by");
  if (groupBy && query.groupable?.length)
    Object.assign(groupBy, {
      schema: { type: "string", enum: [...query.groupable] },
      description: "Count per value of this filter field instead of one total",
    });
}

/**
 * The path and query parameters: the field's arguments (but the body and `filter`), then the list's
 * field filters it does not declare; sorting, grouping and order as enums.
 */
function parametersOf(
  field: RootField,
  route: RestRoute,
  components: Components,
  item: GraphQLObjectType | undefined,
): Schema[] {
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const parameters: Schema[] = [];
  for (const arg of field.args) {
    if (arg.name === route.bodyArg || arg.name === "filter") continue;
    const inPath = pathParams.includes(arg.name);
    const idList = getNamedType(arg.type).name === "IdList";
    parameters.push({
      name: arg.name,
      in: inPath ? "path" : "query",
      required: inPath || isNonNullType(arg.type),
      // "131,132": OpenAPI's own comma-separated array (style simple in a path, form in a query).
      schema: idList
        ? { type: "array", minItems: 1, items: { type: "integer", format: "int32" } }
        : components.of(arg.type),
      ...(idList ? { style: inPath ? "simple" : "form", explode: false } : {}),
      ...(arg.description ? { description: arg.description } : {}),
    });
  }
  const declared = new Set(field.args.map((a) => a.name));
  if (route.query) {
    for (const [name, kind] of Object.entries(route.query.filters))
      if (!declared.has(name)) parameters.push(filterParameter(name, kind, item?.getFields()[name]));
    sortingOf(parameters, route.query);
  }
  const order = parameters.find((p) => p.name === "order");
  if (order && route.query) order.schema = { type: "string", enum: ["asc", "desc"] };
  // A list in its own order (the ranking) takes sort_by and order and ignores them.
  for (const p of parameters)
    if (!route.query && (p.name === "sort_by" || p.name === "order"))
      p.description = "Ignored: this list has its own order";
  return parameters;
}

/** The schema of the answer's `data`: a page's items, a count_by's counts, else the field's type. */
function dataSchemaOf(field: RootField, route: RestRoute, components: Components): Schema {
  let data: Schema = components.of(field.type);
  const named = getNamedType(field.type);
  if (route.list && isObjectType(named) && named.getFields().data)
    data = { type: "array", items: components.of(getNamedType(named.getFields().data.type)) };
  if (route.type === "count") {
    data = {
      oneOf: [
        { type: "object", required: ["count"], properties: { count: { type: "integer" } } },
        {
          type: "array",
          items: {
            type: "object",
            required: ["value", "count"],
            properties: { value: COUNT_VALUE, count: { type: "integer" } },
          },
        },
      ],
    };
  }
  return data;
}

/** The 200 answer: a download's bytes, else `data` in the envelope (or alone, for a route without one). */
function okResponse(route: RestRoute, data: Schema, headers: Record<string, unknown>) {
  if (route.download) {
    return {
      description: "The file's bytes, as an attachment, with the content type stored with the file",
      headers: { ...traceHeader, ...headers },
      content: { "*/*": { schema: { type: "string", format: "binary" } } },
    };
  }
  const properties: Schema = {
    type: { type: "string", enum: [route.type] },
    data,
    status: { type: "string", enum: ["ok"] },
  };
  if (route.list) properties.count = { type: "integer", description: "Total matching records, not the page length" };
  return {
    description: "OK",
    headers: { ...traceHeader, ...headers },
    content: {
      "application/json": {
        schema: route.envelope === false ? data : { type: "object", required: Object.keys(properties), properties },
      },
    },
  };
}

/** The request body: an upload's multipart file, the JSON of the body argument, or none. */
function requestBodyOf(field: RootField, route: RestRoute, components: Components) {
  if (route.upload) {
    return {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            required: [route.upload.field],
            properties: {
              [route.upload.field]: {
                type: "string",
                format: "binary",
                description: `One file, at most ${route.upload.maxBytes} bytes`,
              },
            },
          },
        },
      },
    };
  }
  if (!route.bodyArg) return undefined;
  return {
    required: true,
    content: {
      "application/json": { schema: components.of(field.args.find((a) => a.name === route.bodyArg)!.type) },
    },
  };
}

function operation(
  schema: GraphQLSchema,
  entry: RouteEntry,
  components: Components,
  items: Map<string, GraphQLObjectType>,
) {
  const { route } = entry;
  const root = entry.operation === "query" ? schema.getQueryType()! : schema.getMutationType()!;
  const field = root.getFields()[entry.field];
  const parameters = parametersOf(field, route, components, items.get(route.path.replace(/\/count_by$/, "")));
  const data = dataSchemaOf(field, route, components);
  const limited = route.rateLimited !== false;
  const headers = limited ? rateLimitHeaders : {};
  let extra = route.errors ?? {};
  const idempotent = route.method !== "GET" && !route.upload;
  // Every partners write needs a key of an internal service team (inventory/rules/fields.ts teamOf).
  if (route.interfaces.includes("partners") && route.method !== "GET" && !extra["403"])
    extra = { ...extra, "403": "The key's supplier company is not an internal service team" };
  if (idempotent) parameters.push({ $ref: "#/components/parameters/IdempotencyKey" });
  const statuses = [
    400,
    401,
    404,
    ...(limited ? [429] : []),
    503,
    ...(idempotent ? [422] : []),
    ...Object.keys(extra).map(Number),
  ].sort();
  const body = requestBodyOf(field, route, components);
  return {
    operationId: entry.field,
    tags: [tagOf(route.path)],
    summary: summaryOf(field.description ?? undefined, `${route.method} ${route.type}`),
    ...(field.description ? { description: field.description } : {}),
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: {
      200: okResponse(route, data, headers),
      ...Object.fromEntries(
        statuses.map((status) => [status, errorResponse(status, headers, extra[String(status) as keyof typeof extra])]),
      ),
    },
  };
}

type Examples = Record<string, { request?: unknown; ok?: unknown; bad?: unknown }>;

/**
 * The operation with the examples recorded from the REST tests (openapi-examples.json, made by
 * scripts/openapi-examples.sh and checked against the schemas by test/foundation/openapi-examples.test.ts):
 * the request body and answer of a 200, the answer of a 400.
 */
function withExamples<T>(op: T, key: string): T {
  const recorded = (EXAMPLES as Examples)[key];
  if (!recorded) return op;
  type Part = { content?: Record<string, { example?: unknown }> } | undefined;
  const { requestBody, responses } = op as unknown as { requestBody?: Part; responses: Record<number, Part> };
  const set = (part: Part, example: unknown) => {
    const json = part?.content?.["application/json"];
    if (json && example !== undefined) json.example = example;
  };
  set(requestBody, recorded.request);
  set(responses[200], recorded.ok);
  set(responses[400], recorded.bad);
  return op;
}

/** Each list path's item type (a page's `data`), for the list's and its count_by's filters. */
function listItems(schema: GraphQLSchema, table: RouteEntry[]): Map<string, GraphQLObjectType> {
  const items = new Map<string, GraphQLObjectType>();
  for (const { route, field } of table) {
    const page = route.list && getNamedType(schema.getQueryType()?.getFields()[field]?.type);
    const data = page && isObjectType(page) ? page.getFields().data : undefined;
    const item = data && getNamedType(data.type);
    if (item && isObjectType(item)) items.set(route.path, item);
  }
  return items;
}

export function openApiDocument(iface: Interface, schema: GraphQLSchema, table: RouteEntry[]) {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  const items = listItems(schema, table);
  for (const entry of table) {
    const path = `/v1/${iface}${entry.route.path.replace(/:(\w+)/g, "{$1}")}`;
    (paths[path] ??= {})[entry.route.method.toLowerCase()] = withExamples(
      operation(schema, entry, components, items),
      `${entry.route.method} ${path}`,
    );
  }
  const tags = [...new Set(table.map((e) => tagOf(e.route.path)))].sort().map((name) => ({ name }));
  return {
    openapi: "3.0.3",
    info: {
      title: `Work order service: ${iface} interface`,
      version: "1.0.0",
      description:
        'Every request carries X-API-KEY and SVC-KEY. Single answers are `{type, data, status: "ok"}`, lists add `count` (the ' +
        'total, not the page length); errors are `{message, type, status: "error", traceId}` (plus `field` when one field or ' +
        "parameter is at fault). Lists take offset, limit (default 10, at most 25), sort_by, order and field filters (a comma means " +
        "any of). Guides: /docs.",
    },
    servers: [{ url: "/" }],
    tags,
    security: [{ apiKey: [], svcKey: [] }],
    paths,
    components: {
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-KEY" },
        svcKey: { type: "apiKey", in: "header", name: "SVC-KEY" },
      },
      schemas: {
        ...components.schemas,
        ErrorBody: {
          type: "object",
          required: ["message", "type", "status", "traceId"],
          properties: {
            message: { type: "string" },
            type: {
              type: "string",
              enum: [...new Set(Object.values(ERRORS).map((e) => e.type)), "InternalServerError"],
            },
            status: { type: "string", enum: ["error"] },
            traceId: { type: "string" },
            field: { type: "string", description: "The body field or parameter at fault (400), e.g. notes[2].photo" },
          },
        },
      },
    },
  };
}

/**
 * The interface's docs page: Redoc's standalone bundle, served by this service (src/http/assets.ts),
 * renders the OpenAPI document. Nothing is loaded from other hosts (the policy tells the browser so;
 * Redoc's search runs in a worker made from a blob).
 */
export function docsPage(iface: Interface): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${iface} interface</title></head>
<body><redoc spec-url="/v1/${iface}/openapi.json"></redoc>
<script src="/assets/redoc.standalone.js"></script></body></html>`;
}

export const DOCS_PAGE_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; base-uri 'none'; form-action 'none'";
