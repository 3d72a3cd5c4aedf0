// The three REST interfaces of the contract, and the extra sub-graph that only GraphQL serves.
export const INTERFACES = ["buyer", "supplier", "partners"] as const;
export type Interface = (typeof INTERFACES)[number];
export type SubGraph = Interface | "graphql";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

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
  /**
   * A multipart/form-data upload instead of a JSON body: the single file part `field`, at most
   * `maxBytes`, reaches the field as `ctx.upload` as a stream (REST only: over GraphQL the field has no
   * upload and answers 400).
   */
  upload?: { field: string; maxBytes: number };
  /** The field answers with a file's bytes (`ctx.download`) instead of the envelope. */
  download?: true;
  /** Error statuses this route adds to the usual ones, for the OpenAPI document (e.g. {"406": "…"}). */
  errors?: Record<string, string>;
}

/** A root field's REST route; `extensions` adds other field extensions (a mutation's `requires(...)`). */
export const restRoute = (route: RestRoute, extensions: Record<string, unknown> = {}) => ({
  subGraphs: [...route.interfaces, "graphql"] as SubGraph[],
  extensions: { rest: route, ...extensions },
});
