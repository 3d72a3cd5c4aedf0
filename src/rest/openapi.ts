// The OpenAPI document of an interface: SOFA's generated document, corrected to what the wire carries
// (envelopes, the error body, the JSON body instead of SOFA's `input` wrapper, only contract routes,
// the Idempotency-Key header of writes).
import type { Interface } from "../schema/core/interfaces.ts";
import type { RouteEntry } from "./routes.ts";

const ERROR_BODY = {
  type: "object",
  required: ["message", "type", "status", "traceId"],
  properties: {
    message: { type: "string" },
    type: { type: "string", example: "invalidInputDataException" },
    status: { type: "string", enum: ["error"] },
    traceId: { type: "string" },
  },
};

const ERROR_STATUSES: Record<string, string> = {
  "400": "Bad input, bad filters, or a record outside the key's scope",
  "401": "Missing or invalid X-API-KEY / SVC-KEY",
  "404": "Record or route not found",
  "429": "Rate limit exceeded (see Retry-After)",
  "503": "The database cannot be reached right now; nothing was done (see Retry-After)",
};

const WRITE_METHODS = new Set(["post", "put", "patch"]);

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

function envelope(type: string, data: unknown, list: boolean) {
  const properties: Record<string, unknown> = { type: { type: "string", enum: [type] }, data, status: { type: "string", enum: ["ok"] } };
  if (list) properties.count = { type: "integer", description: "Total matching records" };
  return { type: "object", required: Object.keys(properties), properties };
}

export async function openApiDocument(iface: Interface, router: { fetch(r: Request): Promise<Response> | Response }, table: RouteEntry[]) {
  const base = `/v1/${iface}`;
  const generated = (await (await router.fetch(new Request(`http://local${base}/openapi.json`))).json()) as any;
  const paths: Record<string, any> = {};
  for (const entry of table) {
    const sofaPath = entry.route.path.replace(/:(\w+)/g, "{$1}");
    const operation = generated.paths?.[sofaPath]?.[entry.route.method.toLowerCase()];
    if (!operation) continue;
    const ok = operation.responses?.["200"]?.content?.["application/json"]?.schema ?? {};
    const data = entry.route.list ? ok.properties?.data ?? ok : ok;
    operation.operationId = entry.field;
    operation.responses = {
      "200": { description: "OK", content: { "application/json": { schema: envelope(entry.route.type, data, !!entry.route.list) } } },
      ...Object.fromEntries(
        Object.entries(ERROR_STATUSES).map(([status, description]) => [
          status,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } },
        ]),
      ),
    };
    if (WRITE_METHODS.has(entry.route.method.toLowerCase())) {
      operation.parameters = [...(operation.parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }];
      operation.responses["422"] = {
        description: "The Idempotency-Key was already used for another request",
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
      };
    }
    if (entry.route.bodyArg) {
      const body = operation.requestBody?.content?.["application/json"]?.schema;
      const inner = body?.properties?.[entry.route.bodyArg];
      if (inner) operation.requestBody.content["application/json"].schema = inner;
    }
    if (operation.parameters) operation.parameters = operation.parameters.filter((p: { name: string }) => p.name !== "filter");
    (paths[`${base}${sofaPath}`] ??= {})[entry.route.method.toLowerCase()] = operation;
  }
  generated.paths = paths;
  generated.components = {
    ...generated.components,
    schemas: { ...generated.components?.schemas, ErrorBody: ERROR_BODY },
    parameters: { ...generated.components?.parameters, IdempotencyKey: IDEMPOTENCY_KEY },
  };
  generated.servers = [{ url: "/" }];
  return generated;
}

/** A small page that renders the document with Redoc (loaded by the reader's browser). */
export function docsPage(iface: Interface): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${iface} interface</title></head>
<body><redoc spec-url="/v1/${iface}/openapi.json"></redoc>
<script src="https://cdn.redoc.ly/redoc/latest/bundles/redoc.standalone.js"></script></body></html>`;
}
