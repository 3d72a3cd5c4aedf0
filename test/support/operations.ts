// The operations of the served interfaces, discovered rather than listed: every REST operation from the
// three OpenAPI documents (with `$ref`s resolved), and a key of every kind per interface. Used by the API
// fuzz test and the error-wording test, so a route added later is covered without editing either.
import type { TestApp } from "./app.ts";

export const INTERFACES = ["buyer", "supplier", "partners"] as const;
export type Interface = (typeof INTERFACES)[number];

/** Keys of every kind per interface; the fuzz also sends a key of another interface and none. */
export const KEYS: Record<Interface, string[]> = {
  buyer: ["acme-key", "globex-key"],
  supplier: ["coolco-key", "inhouse-key", "unrelated-supplier-key"],
  partners: ["inhouse-partner-key"],
};

export interface Operation {
  iface: Interface;
  method: string;
  /** e.g. /v1/buyer/location/locations/{id} */
  path: string;
  pathParams: { name: string; schema: Schema }[];
  queryParams: { name: string; schema: Schema }[];
  body?: Schema;
}

export type Schema = {
  type?: string;
  $ref?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
};
type Document = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };

/** Every operation of the three interfaces' OpenAPI documents, with `$ref`s resolved. */
export async function discoverOperations(t: TestApp): Promise<Operation[]> {
  const operations: Operation[] = [];
  for (const iface of INTERFACES) {
    const doc = (await t.call(null, "GET", `/v1/${iface}/openapi.json`)).body as Document;
    const resolve = (schema: Schema | undefined, depth = 0): Schema | undefined => {
      if (!schema || depth > 6) return schema;
      if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split("/").pop()!], depth + 1);
      const resolved: Schema = { ...schema };
      if (schema.items) resolved.items = resolve(schema.items, depth + 1);
      if (schema.properties)
        resolved.properties = Object.fromEntries(
          Object.entries(schema.properties).map(([k, v]) => [k, resolve(v, depth + 1)!]),
        );
      return resolved;
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const params = (op.parameters ?? []) as { name: string; in: string; schema: Schema }[];
        operations.push({
          iface,
          method: method.toUpperCase(),
          path,
          pathParams: params.filter((p) => p.in === "path").map((p) => ({ name: p.name, schema: resolve(p.schema)! })),
          queryParams: params
            .filter((p) => p.in === "query")
            .map((p) => ({ name: p.name, schema: resolve(p.schema)! })),
          body: resolve(op.requestBody?.content?.["application/json"]?.schema),
        });
      }
    }
  }
  return operations;
}
