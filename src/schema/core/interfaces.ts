// The three REST interfaces of the contract, and the extra sub-graph that only GraphQL serves.
export const INTERFACES = ["buyer", "supplier", "partners"] as const;
export type Interface = (typeof INTERFACES)[number];
export type SubGraph = Interface | "graphql";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** How a list filter's text is read (core/list.ts). */
export type FilterKind = "int" | "string" | "boolean" | "datetime";

/** A list's query parameters beyond its declared arguments, for the OpenAPI document. */
export interface ListQuery {
  filters: Record<string, FilterKind>;
  sortable: readonly string[];
  /** What any other sort_by does, when it is not a 400 (documented as a free string, not an enum). */
  sortFallback?: string;
  /** count_by: the fields group_by takes. */
  groupable?: readonly string[];
}

/** How a root field is served over REST; kept in the field's `extensions.rest`. */
export interface RestRoute {
  interfaces: readonly Interface[];
  method: HttpMethod;
  /** Path below the interface's base, with `:name` params (e.g. `/location/locations/:id`). */
  path: string;
  /** The envelope's `type`. */
  type: string;
  /** List fields return `{data, count}` and get the list envelope. */
  list?: boolean;
  /** Largest page size (default 25); larger requests are silently reduced. */
  maxLimit?: number;
  /** false for the contract's exemptions (ping, skip_schedule). */
  rateLimited?: boolean;
  /** Name of the argument the JSON body is bound to (mutations). */
  bodyArg?: string;
  /** false: the field's value is the whole body, without the envelope (the contract's invite answer). */
  envelope?: boolean;
  /** Filters and sort fields of a list or count_by (documented as query parameters). */
  query?: ListQuery;
  /** Error statuses beyond 400, 401, 404 and 429 that the route answers, and when (OpenAPI). */
  errors?: Partial<Record<"403" | "406" | "409", string>>;
  /**
   * A multipart/form-data upload instead of a JSON body: the single file part `field`, at most
   * `maxBytes`, reaches the field as `ctx.upload` as a stream (REST only: over GraphQL the field has no
   * upload and answers 400).
   */
  upload?: { field: string; maxBytes: number };
  /** The field answers with a file's bytes (`ctx.download`) instead of the envelope. */
  download?: true;
  /** A GET that also writes (the notes list's read mark): answered from the primary, never a replica. */
  writes?: true;
}

/**
 * REST routes whose answer may come from a read replica (Services.readDb): lists (searches are lists
 * with a search parameter) and count_by, as the contract allows ("a freshly written work order may be
 * briefly absent from list and count results"). A single read by id stays on the primary, so a client
 * reading back what it just wrote finds it. A route that writes as it reads (`writes`) stays there too.
 */
export const readsFromReplica = (route: RestRoute) =>
  route.method === "GET" && !route.writes && (route.list === true || route.path.endsWith("/count_by"));

/**
 * A string field's closed set of values, for the OpenAPI documents (an enum there) where GraphQL keeps
 * the field a String.
 */
export const closedSet = (values: readonly string[]) => ({ openapiEnum: [...values] });

/** A root field's REST route; `extensions` adds other field extensions (a mutation's `requires(...)`). */
export const restRoute = (route: RestRoute, extensions: Record<string, unknown> = {}) => ({
  subGraphs: [...route.interfaces, "graphql"] as SubGraph[],
  extensions: { rest: route, ...extensions },
});
