// The REST route table of one interface, read from the root fields' `extensions.rest`. The adapter
// uses it before SOFA runs: unknown paths (and SOFA's own extra routes) never reach SOFA, and the
// rate-limit exemption and metrics label are known up front.
import type { GraphQLSchema } from "graphql";
import type { HttpMethod, RestRoute } from "../schema/core/interfaces.ts";

export interface RouteEntry {
  operation: "query" | "mutation";
  field: string;
  route: RestRoute;
  pattern: RegExp;
  paramCount: number;
}

export function routeTable(schema: GraphQLSchema): RouteEntry[] {
  const entries: RouteEntry[] = [];
  for (const [operation, root] of [
    ["query", schema.getQueryType()],
    ["mutation", schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const route = field.extensions?.rest as RestRoute | undefined;
      if (!route) throw new Error(`${root!.name}.${field.name} has no REST route; SOFA would invent one`);
      const segments = route.path
        .split("/")
        .map((s) => (s.startsWith(":") ? "([^/]+)" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
      entries.push({
        operation,
        field: field.name,
        route,
        pattern: new RegExp(`^${segments.join("/")}/?$`),
        paramCount: route.path.split("/:").length - 1,
      });
    }
  }
  // Static segments win over params (`/locations/count_by` before `/locations/:id`).
  return entries.sort((a, b) => a.paramCount - b.paramCount);
}

export function matchRoute(table: RouteEntry[], method: string, path: string): RouteEntry | undefined {
  return table.find((e) => e.route.method === (method as HttpMethod) && e.pattern.test(path));
}

/** SOFA's `routes` option for the table. */
export function sofaRoutes(table: RouteEntry[]) {
  return Object.fromEntries(
    table.map((e) => [
      `${e.operation === "query" ? "Query" : "Mutation"}.${e.field}`,
      { method: e.route.method, path: e.route.path },
    ]),
  );
}

/** The path parameters of a matched route, decoded (`{id: "12"}`). */
export function paramsOf(entry: RouteEntry, path: string): Record<string, string> {
  const names = [...entry.route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const values = entry.pattern.exec(path)?.slice(1) ?? [];
  const decode = (value = "") => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value; // malformed %-escapes: SOFA refuses them
    }
  };
  return Object.fromEntries(names.map((name, i) => [name, decode(values[i])]));
}
