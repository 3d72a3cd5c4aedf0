// What a client generator (openapi-typescript 7) makes of an OpenAPI document, read from the document
// itself: the schemas it would type `unknown` (no type, $ref, enum, composition, properties or items),
// objects it would type `Record<string, never>`, arrays of `unknown`. A schema that is free-form by
// contract says so: its description contains "Free-form" (docs/api.md lists them).

type Json = Record<string, any>;

export interface Finding {
  where: string;
  problem: string;
}

const SHAPED = ["type", "$ref", "enum", "oneOf", "anyOf", "allOf", "properties", "items", "not"];
const freeForm = (schema: Json) => /free-form/i.test(schema.description ?? "");

function lintSchema(schema: unknown, where: string, out: Finding[]): void {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return;
  const s = schema as Json;
  if (s.$ref) return;
  if (!SHAPED.some((k) => k in s) && !freeForm(s)) out.push({ where, problem: "unknown (no type)" });
  if (s.type === "object" && !s.properties && s.additionalProperties === undefined && !freeForm(s))
    out.push({ where, problem: "object without properties" });
  if (s.type === "array" && !s.items) out.push({ where, problem: "array without items" });
  for (const [name, p] of Object.entries((s.properties ?? {}) as Json)) lintSchema(p, `${where}.${name}`, out);
  if (s.items) lintSchema(s.items, `${where}[]`, out);
  if (typeof s.additionalProperties === "object") lintSchema(s.additionalProperties, `${where}{}`, out);
  for (const key of ["allOf", "anyOf", "oneOf"])
    for (const [i, member] of (s[key] ?? []).entries()) lintSchema(member, `${where}.${key}[${i}]`, out);
}

/** Every schema position of the document: components, parameters, request and answer bodies. */
export function schemasOf(doc: Json): [string, Json][] {
  const found: [string, Json][] = Object.entries(doc.components?.schemas ?? {}).map(([name, s]) => [
    `#/components/schemas/${name}`,
    s as Json,
  ]);
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>))
    for (const [method, op] of Object.entries(methods as Record<string, Json>)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) if (p.schema) found.push([`${at} parameter ${p.name}`, p.schema]);
      for (const [type, c] of Object.entries((op.requestBody?.content ?? {}) as Json))
        found.push([`${at} request ${type}`, c.schema]);
      for (const [status, r] of Object.entries((op.responses ?? {}) as Json))
        for (const [type, c] of Object.entries((r.content ?? {}) as Json))
          found.push([`${at} ${status} ${type}`, c.schema]);
    }
  return found;
}

/**
 * `nullable` beside a `$ref` (allOf) to an enum: under OpenAPI 3.0 it does not admit null (an enum admits
 * only what it lists), so a validating proxy refuses null there. A nullable enum lists null itself.
 */
export function nullableEnumRefs(doc: Json): Finding[] {
  const out: Finding[] = [];
  const isEnumRef = (s: Json) =>
    typeof s?.$ref === "string" && doc.components.schemas[s.$ref.split("/").pop() as string]?.enum;
  const walk = (s: unknown, where: string) => {
    if (!s || typeof s !== "object") return;
    const schema = s as Json;
    if (schema.nullable && !schema.type && (schema.allOf ?? []).some(isEnumRef))
      out.push({ where, problem: "nullable beside a $ref to an enum admits no null" });
    for (const [key, v] of Object.entries(schema)) walk(v, key === "properties" ? where : `${where}.${key}`);
  };
  for (const [where, schema] of schemasOf(doc)) walk(schema, where);
  return out;
}

/** What openapi-typescript would type `unknown` (or as an empty object), free-form-by-contract schemas aside. */
export function unknownTypes(doc: Json): Finding[] {
  const out: Finding[] = [];
  for (const [where, schema] of schemasOf(doc)) lintSchema(schema, where, out);
  return out;
}
