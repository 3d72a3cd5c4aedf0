// Checks REST exchanges against the published OpenAPI documents, as a validating proxy (Prism) would:
// the answer's status is declared for the operation, its content type is the declared one and its
// body matches the declared schema; a request the service accepted (2xx) matches the declared
// parameters and body (a refused request is meant to be wrong). test/support/app.ts runs every `call`
// through it; see docs/api.md ("How the documents are checked").
import { Ajv, type ValidateFunction } from "ajv";

type Json = Record<string, any>;

/** One exchange that the document does not describe. */
export interface Violation {
  method: string;
  path: string;
  status: number;
  kind: "status" | "content-type" | "body" | "request";
  message: string;
}

/**
 * OpenAPI 3.0 schema → JSON Schema, reading `nullable` as a validating proxy (Prism) does: beside
 * `type` it adds "null" (an `enum` still has to list null: 3.0.3); beside `allOf: [$ref]` it admits null
 * for an object, but not for a $ref to an enum (the enum admits only what it lists), which is how a
 * nullable work order status (`statusChanges[].from`) failed. `enums` names the enum components.
 */
function toJsonSchema(value: unknown, enums: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => toJsonSchema(v, enums));
  if (!value || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "nullable" || key === "example" || key === "examples") continue;
    out[key] = toJsonSchema(v, enums);
  }
  if ((value as Json).nullable !== true) return out;
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (!out.type) {
    const enumRef = (out.allOf ?? []).some((s: Json) => enums.has(String(s.$ref).split("/").pop() ?? ""));
    if (!enumRef) return { anyOf: [{ type: "null" }, out] };
  }
  return out;
}

interface Operation {
  method: string;
  pattern: RegExp;
  params: string[];
  op: Json;
  pointer: string;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export class OpenApiChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false });
  private readonly paramAjv = new Ajv({ strict: false, coerceTypes: true });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(docs: Record<string, Json>) {
    for (const ajv of [this.ajv, this.paramAjv]) {
      // The formats the documents use (ajv-formats is not a dependency of ours).
      ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/i);
      ajv.addFormat("date", /^\d{4}-\d\d-\d\d$/);
      ajv.addFormat("email", /@/);
      ajv.addFormat("binary", true);
      ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
    }
    for (const [name, doc] of Object.entries(docs)) {
      const enums = new Set(
        Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>)
          .filter(([, schema]) => schema.enum)
          .map(([name]) => name),
      );
      const converted = toJsonSchema(doc, enums) as Json;
      this.ajv.addSchema(converted, name, undefined, false);
      this.paramAjv.addSchema(converted, name, undefined, false);
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
        const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, "([^/]+)")}/?$`);
        for (const [method, op] of Object.entries(methods))
          this.operations.push({
            method: method.toUpperCase(),
            pattern,
            params,
            op,
            pointer: `${name}#/paths/${escapePointer(path)}/${method}`,
          });
      }
    }
    // Static segments win over parameters, as in the service's route table.
    this.operations.sort((a, b) => a.params.length - b.params.length);
  }

  private validator(ref: string): ValidateFunction {
    let fn = this.compiled.get(ref);
    if (!fn) this.compiled.set(ref, (fn = this.ajv.compile({ $ref: ref })));
    return fn;
  }

  private paramValidator(ref: string): ValidateFunction {
    const key = `param:${ref}`;
    let fn = this.compiled.get(key);
    if (!fn)
      this.compiled.set(key, (fn = this.paramAjv.compile({ type: "object", properties: { value: { $ref: ref } } })));
    return fn;
  }

  /** Each example of the documents (request bodies and answers) that its own schema refuses. */
  exampleViolations(): string[] {
    const problems: string[] = [];
    for (const { op, pointer, method } of this.operations) {
      const parts: [string, Json | undefined][] = [
        ["requestBody", op.requestBody],
        ...Object.entries((op.responses ?? {}) as Record<string, Json>).map(
          ([status, r]) => [`responses/${status}`, r] as [string, Json],
        ),
      ];
      for (const [where, part] of parts) {
        const json = part?.content?.["application/json"];
        if (json?.example === undefined) continue;
        const fn = this.validator(`${pointer}/${where}/content/application~1json/schema`);
        if (!fn(json.example))
          problems.push(`${method} ${pointer.split("#/paths/")[1]} ${where}: ${this.ajv.errorsText(fn.errors)}`);
      }
    }
    return problems;
  }

  /** The operation a request is for, as `GET /v1/buyer/asset/assets/{id}`, or undefined. */
  operationOf(method: string, url: string): string | undefined {
    const pathname = new URL(url, "http://x").pathname;
    const found = this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
    return (
      found &&
      `${found.method} ${decodeURIComponent(
        found.pointer
          .split("#/paths/")[1]
          .replace(/\/\w+$/, "")
          .replace(/~1/g, "/")
          .replace(/~0/g, "~"),
      )}`
    );
  }

  /** The violations of one exchange; none for a path or method the documents do not have. */
  check(exchange: {
    method: string;
    url: string;
    requestBody?: unknown;
    status: number;
    contentType: string | null;
    body: unknown;
  }): Violation[] {
    const url = new URL(exchange.url, "http://x");
    const method = exchange.method.toUpperCase();
    const found = this.operations.find((o) => o.method === method && o.pattern.test(url.pathname));
    if (!found) return [];
    const where = { method, path: url.pathname + url.search, status: exchange.status };
    const violations: Violation[] = [];
    const add = (kind: Violation["kind"], message: string) => violations.push({ ...where, kind, message });
    const response = found.op.responses[String(exchange.status)];
    if (!response) {
      add("status", `status ${exchange.status} is not declared`);
    } else if (response.content) {
      const declared = Object.keys(response.content);
      const type = (exchange.contentType ?? "").split(";")[0].trim();
      const matches = (range: string) =>
        range === "*/*" || range === type || (range.endsWith("/*") && type.startsWith(range.slice(0, -1)));
      if (!declared.some(matches)) add("content-type", `${type || "no content type"} where ${declared} is declared`);
      else if (type === "application/json") {
        const fn = this.validator(
          `${found.pointer}/responses/${exchange.status}/content/${escapePointer(type)}/schema`,
        );
        if (!fn(exchange.body)) add("body", this.ajv.errorsText(fn.errors, { dataVar: "body" }));
      }
    }
    if (exchange.status >= 200 && exchange.status < 300) {
      for (const message of this.requestViolations(found, url, exchange.requestBody)) add("request", message);
    }
    return violations;
  }

  private requestViolations(found: Operation, url: URL, body: unknown): string[] {
    const messages: string[] = [];
    const values = found.pattern.exec(url.pathname)!.slice(1).map(decodeURIComponent);
    const pathValues = Object.fromEntries(found.params.map((name, i) => [name, values[i]]));
    for (const [i, p] of ((found.op.parameters ?? []) as Json[]).entries()) {
      if (p.$ref || (p.in !== "path" && p.in !== "query")) continue;
      const present = p.in === "path" ? pathValues[p.name] : url.searchParams.get(p.name);
      if (present === null || present === undefined) {
        if (p.required) messages.push(`${p.in} parameter ${p.name} is required`);
        continue;
      }
      // Inside an object, so that ajv's coercion ("12" → 12, "true" → true) has somewhere to write.
      const fn = this.paramValidator(`${found.pointer}/parameters/${i}/schema`);
      // A comma-separated array (style simple or form, explode false) is checked as its items.
      if (!fn({ value: present }) && !fn({ value: present.split(",") }))
        messages.push(`${p.in} parameter ${p.name}=${present}: ${this.paramAjv.errorsText(fn.errors)}`);
    }
    const json = found.op.requestBody?.content?.["application/json"];
    if (json && body !== undefined) {
      const fn = this.validator(`${found.pointer}/requestBody/content/application~1json/schema`);
      if (!fn(body)) messages.push(`request ${this.ajv.errorsText(fn.errors, { dataVar: "body" })}`);
    }
    return messages;
  }
}
