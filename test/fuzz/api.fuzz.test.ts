// Property-based fuzzing of every REST operation (from the served OpenAPI documents) and every GraphQL
// mutation (from the schema), with keys of every kind: no answer is a 5xx, and a refused request (4xx)
// writes nothing. In `npm test` with a fixed seed and a bounded count; `npm run test:fuzz` runs longer
// (FUZZ_RUNS per operation, FUZZ_SEED to replay a failure).
import fc from "fast-check";
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  isScalarType,
  type GraphQLInputType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSchemas } from "../../src/schema/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { discoverOperations, INTERFACES, KEYS } from "../support/operations.ts";
import { bodyFor, installWriteCounter, pathValue, queryFor, valueFor } from "./fuzz.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 5);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** Each operation its own sequence (the same seed everywhere would send every route the same choices). */
const seedOf = (label: string) => [...label].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, SEED);

let t: TestApp;
let writes: Awaited<ReturnType<typeof installWriteCounter>>;
let ids: number[];
const stats = {
  requests: 0,
  serverErrors: [] as string[],
  writesOnRefusal: [] as string[],
  byStatus: {} as Record<number, number>,
  /** The fuzz tests whose property ran to the end. */
  fuzzed: new Set<string>(),
};
/** Every fuzz test declared (operations and mutations): the closing check needs each one to have run. */
const declared: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  // Fuzzing sends far more than 10 requests per 20 s; the limit itself is tested elsewhere.
  await t.db.apiKey.updateMany({ data: { rateLimitRequests: 1_000_000, rateLimitWindowSeconds: 1 } });
  await t.keyChangesSeen();
  writes = await installWriteCounter(t.databaseUrl);
  ids = [...new Set(Object.values(t.fixture.refs))].slice(0, 40);
});
afterAll(async () => {
  // The figures of the closing note: requests sent, 5xx found, writes on refused requests.
  console.log(
    `fuzz: ${stats.requests} requests, by status ${JSON.stringify(stats.byStatus)}, ${stats.serverErrors.length} 5xx, ${stats.writesOnRefusal.length} writes on refused requests`,
  );
  await writes?.close();
  await t?.close();
});

async function send(label: string, keyRef: string | null, method: string, path: string, body: string | undefined) {
  const before = await writes.count();
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(keyRef ? t.headers(keyRef) : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: method === "GET" ? undefined : body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  stats.requests++;
  stats.byStatus[response.status] = (stats.byStatus[response.status] ?? 0) + 1;
  const refused = response.status >= 400 || /"errors"\s*:/.test(text);
  const wrote = (await writes.count()) !== before;
  const where = `${label} ${method} ${path} key=${keyRef} body=${(body ?? "").slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
  if (response.status >= 500 || text.includes("InternalServerError") || text.includes("INTERNAL_SERVER_ERROR"))
    stats.serverErrors.push(where);
  if (refused && wrote) stats.writesOnRefusal.push(where);
  return { status: response.status, text, where, refused, wrote };
}

describe("REST operations", async () => {
  // Discovered before the tests are declared, so each operation is a test of its own.
  const probe = await startTestApp();
  const operations = await discoverOperations(probe);
  await probe.close();

  it("are all discovered", () => {
    expect(operations.length).toBeGreaterThan(60);
    for (const iface of INTERFACES) expect(operations.some((o) => o.iface === iface)).toBe(true);
  });

  for (const op of operations) {
    const name = `${op.method} ${op.path}`;
    declared.push(name);
    it(`${name}: never 5xx, and a refusal writes nothing`, async () => {
      const otherKey = INTERFACES.filter((i) => i !== op.iface).map((i) => KEYS[i][0]);
      const key = fc.oneof(
        { arbitrary: fc.constantFrom(...KEYS[op.iface]), weight: 6 },
        { arbitrary: fc.constantFrom<string | null>(null, ...otherKey), weight: 1 },
      );
      const params = fc.tuple(...op.pathParams.map(() => pathValue(ids)));
      await fc.assert(
        fc.asyncProperty(key, params, queryFor(op, ids), bodyFor(op.body, ids), async (keyRef, values, query, body) => {
          let path = op.path;
          for (const [i, p] of op.pathParams.entries()) path = path.replace(`{${p.name}}`, values[i]);
          const search = new URLSearchParams(query).toString();
          const reply = await send(
            "rest",
            keyRef,
            op.method,
            search ? `${path}?${search}` : path,
            op.method === "GET" ? undefined : body,
          );
          expect(reply.status, reply.where).toBeLessThan(500);
          if (reply.refused) expect(reply.wrote, reply.where).toBe(false);
        }),
        { numRuns: RUNS, seed: seedOf(name), endOnFailure: true },
      );
      stats.fuzzed.add(name);
    }, 120_000);
  }
});

/** The fuzz's schema for a GraphQL input type (the same shape as the OpenAPI schemas). */
function schemaOf(type: GraphQLInputType, depth = 0): any {
  const inner = getNullableType(type);
  if (isListType(inner)) return { type: "array", items: schemaOf(inner.ofType, depth + 1) };
  if (isEnumType(inner)) return { enum: inner.getValues().map((v) => v.value) };
  if (isInputObjectType(inner)) {
    if (depth > 4) return {};
    return {
      type: "object",
      properties: Object.fromEntries(
        Object.values(inner.getFields()).map((f) => [f.name, schemaOf(f.type, depth + 1)]),
      ),
    };
  }
  if (isScalarType(inner))
    return (
      {
        Int: { type: "integer" },
        Float: { type: "number" },
        Boolean: { type: "boolean" },
        IdList: { type: "array", items: { type: "integer" } },
      }[inner.name] ?? (inner.name === "JSON" ? {} : { type: "string" })
    );
  return {};
}

describe("GraphQL mutations", () => {
  const mutations = Object.values(buildSchemas().graphql.getMutationType()!.getFields());

  for (const field of mutations) {
    declared.push(field.name);
    it(`${field.name}: never 5xx, and a refusal writes nothing`, async () => {
      const declared = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(", ");
      const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(", ");
      const selection = isObjectType(getNamedType(field.type)) ? "{ __typename }" : "";
      const query = `mutation${declared ? `(${declared})` : ""} { ${field.name}${passed ? `(${passed})` : ""} ${selection} }`;
      const variables = fc.record(Object.fromEntries(field.args.map((a) => [a.name, valueFor(schemaOf(a.type), ids)])));
      const key = fc.constantFrom("acme-key", "globex-key", "coolco-key", "inhouse-key", "inhouse-partner-key");
      await fc.assert(
        fc.asyncProperty(key, variables, async (keyRef, values) => {
          const reply = await send("graphql", keyRef, "POST", "/graphql", JSON.stringify({ query, variables: values }));
          expect(reply.status, reply.where).toBeLessThan(500);
          expect(reply.text, reply.where).not.toMatch(/InternalServerError|INTERNAL_SERVER_ERROR/);
          if (reply.refused) expect(reply.wrote, reply.where).toBe(false);
        }),
        { numRuns: RUNS, seed: seedOf(field.name), endOnFailure: true },
      );
      stats.fuzzed.add(field.name);
    }, 120_000);
  }

  // Run alone (or after a fuzz test was skipped or failed) there is nothing to vouch for: it fails then.
  it("found no 5xx and no write on a refused request, over every operation and mutation", () => {
    expect(declared.length).toBeGreaterThan(60);
    expect(declared.filter((name) => !stats.fuzzed.has(name))).toEqual([]);
    expect(stats.requests).toBeGreaterThanOrEqual(declared.length * RUNS);
    expect(stats.serverErrors).toEqual([]);
    expect(stats.writesOnRefusal).toEqual([]);
  });
});
