// GraphQL over HTTP answers an ordinary request without yoga's fetch layer (http/graphql.ts serveDirect)
// and must answer it exactly as yoga does. Two instances of the service, each with its own database
// (the same fixture, so the same ids) and its own rate-limit windows: one as deployed, one with every
// GraphQL request forced through yoga (Config.graphqlThroughYoga). Every request of the corpus goes to
// both, one after the other, and the status, the raw headers (names as sent, in order) and the
// body bytes must be the same, as must the request's log line. Each case also says which path the
// first instance must have taken (the log line's graphqlDirect) and what its answer is about, so the
// corpus cannot quietly stop testing what it names.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ALIASES, MAX_DOCUMENT_LENGTH } from "../../src/http/graphql.ts";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";
import { compareCorpus, rawRequest, type Answer } from "../support/raw-http.ts";

/** The base fixture plus a key allowed 2 GraphQL points a minute (the third ping is a 429). */
const fixture = structuredClone(BASE_FIXTURE);
fixture.apiKeys.push({
  ref: "tight-key",
  kind: "buyer",
  contact: "alice",
  graphqlBudget: { points: 2, windowSeconds: 60 },
});

let direct: TestApp;
let yoga: TestApp;
beforeAll(async () => {
  [direct, yoga] = await Promise.all([
    startTestApp({ fixture }),
    startTestApp({ fixture, configure: (config) => void (config.graphqlThroughYoga = true) }),
  ]);
});
afterAll(async () => {
  await Promise.all([direct?.close(), yoga?.close()]);
});

interface Case {
  name: string;
  /** POST unless said otherwise. */
  method?: string;
  /** GET: the query string's parameters. */
  params?: Record<string, string>;
  /** POST: the body, a string as it is, anything else as JSON (content-type application/json unless `headers` say otherwise). */
  body?: unknown;
  /** A fixture key, "wrong" (a pair that does not authenticate) or none. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Whether the deployed instance answers it directly (else it declines and yoga does). */
  direct: boolean;
  /** What the answer is: the status and a pattern its body must match. */
  status: number;
  about: RegExp;
}

/** The fixture's ids, the same on both instances (asserted below). */
const refs = () => direct.fixture.refs;
/** region → locations → region … `levels` deep. */
const nested = (levels: number) => {
  let selection = "id";
  for (let i = levels - 1; i >= 0; i--) selection = i % 2 ? `region { ${selection} }` : `locations { ${selection} }`;
  return `{ region(id: ${refs().west}) { ${selection} } }`;
};
/** Nested lists with many fields at the bottom: 15 of them cost about 21,000 (graphql-armor's count). */
// Over the document cost (5,000: objects 2, scalars 1) within the length limit, spread over the aliases.
const COSTLY = `locations { data { region { locations { region { locations { ${"id ".repeat(360)}} } } } } }`;
const LOCATIONS =
  "query Locations($limit: Int) { locations(limit: $limit) { count data { id name currency region { id name } } } }";

/** The persisted-query extension naming a document by its hash. */
const apq = (query: string) => ({
  persistedQuery: { version: 1, sha256Hash: crypto.createHash("sha256").update(query).digest("hex") },
});

const corpus = (): Case[] => [
  // Answered directly.
  { name: "a query", body: { query: "{ ping }" }, direct: true, status: 200, about: /"ping":"pong"/ },
  {
    name: "a list with variables",
    body: { query: LOCATIONS, variables: { limit: 3 } },
    direct: true,
    status: 200,
    about: /"count":/,
  },
  {
    name: "operationName picks one of two",
    body: { query: "query A { ping } query B { me { email } }", operationName: "B" },
    direct: true,
    status: 200,
    about: /alice@acme/,
  },
  {
    name: "null variables, extensions and operationName",
    body: { query: "{ ping }", variables: null, extensions: null, operationName: null },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "extensions",
    body: { query: "{ __typename }", extensions: { persistedQuery: null } },
    direct: true,
    status: 200,
    about: /"Query"/,
  },
  {
    name: "Accept: application/graphql-response+json",
    body: { query: "{ ping }" },
    headers: { accept: "application/graphql-response+json" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "Accept: application/*",
    body: { query: "{ ping }" },
    headers: { accept: "application/*" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "Accept: the first JSON type decides",
    body: { query: "{ ping }" },
    headers: { accept: "text/event-stream;q=0.1, application/graphql-response+json, application/json" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "content-type with a charset",
    body: { query: "{ ping }" },
    headers: { "content-type": "application/json; charset=utf-8" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "an unknown field",
    body: { query: "{ nope }" },
    direct: true,
    status: 400,
    about: /invalidInputDataException/,
  },
  {
    name: "an unknown field, graphql-response+json",
    body: { query: "{ nope }" },
    headers: { accept: "application/graphql-response+json" },
    direct: true,
    status: 400,
    about: /invalidInputDataException/,
  },
  {
    name: "a literal of the wrong type",
    body: { query: '{ locations(limit: "ten") { count } }' },
    direct: true,
    status: 400,
    about: /must be a whole number/,
  },
  {
    name: "an Int literal out of range",
    body: { query: "{ locations(limit: 99999999999) { count } }" },
    direct: true,
    status: 400,
    about: /whole number between/,
  },
  {
    name: "a variable of the wrong type",
    body: { query: LOCATIONS, variables: { limit: "ten" } },
    direct: true,
    status: 400,
    about: /must be a whole number/,
  },
  {
    name: "a required variable missing",
    body: { query: "query($id: Int!) { location(id: $id) { name } }" },
    direct: true,
    status: 400,
    about: /is required/,
  },
  {
    name: "a NUL in a string literal (sanitation)",
    body: { query: '{ locations(filter: {name: "a\\u0000b"}) { count } }' },
    direct: true,
    status: 400,
    about: /NUL/,
  },
  {
    name: "a NUL in variables (sanitation)",
    body: { query: "query($f: JSON) { locations(filter: $f) { count } }", variables: { f: { name: "a\u0000b" } } },
    direct: true,
    status: 400,
    about: /NUL/,
  },
  {
    name: "an integer beyond 2^53 in variables (sanitation)",
    body: { query: "query($f: JSON) { locations(filter: $f) { count } }", variables: { f: { id: 2 ** 60 } } },
    direct: true,
    status: 400,
    about: /too large/,
  },
  {
    name: "an execution error (a foreign id)",
    key: "globex-key",
    body: { query: `{ location(id: ${refs()["store-1"]}) { name } }` },
    direct: true,
    status: 200,
    about: /"data":\{"location":null\}/,
  },
  {
    name: "a filter the rules refuse",
    body: { query: '{ locations(filter: {colour: "red"}) { count } }' },
    direct: true,
    status: 200,
    about: /colour.*"data":\{"locations":null\}/,
  },
  {
    name: "no key (401)",
    key: null,
    body: { query: "{ ping }" },
    direct: true,
    status: 401,
    about: /UnauthorizedException/,
  },
  {
    name: "a wrong key (401)",
    key: "wrong",
    body: { query: "{ ping }" },
    direct: true,
    status: 401,
    about: /UnauthorizedException/,
  },
  {
    name: "no key and an invalid document (validation first)",
    key: null,
    body: { query: "{ nope }" },
    direct: true,
    status: 400,
    about: /invalidInputDataException/,
  },
  {
    name: "rate limit: first",
    key: "tight-key",
    body: { query: "{ ping }" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "rate limit: second",
    key: "tight-key",
    body: { query: "{ ping }" },
    direct: true,
    status: 200,
    about: /pong/,
  },
  {
    name: "rate limit: third (429)",
    key: "tight-key",
    body: { query: "{ ping }" },
    direct: true,
    status: 429,
    about: /TooManyRequestsException/,
  },
  {
    name: "a mutation by POST",
    body: { query: 'mutation { upsertAssetType(input: {name: "Ice machine"}) { id name buyerCompanyId } }' },
    direct: true,
    status: 200,
    about: /Ice machine/,
  },
  {
    name: "a mutation the key may not make",
    key: "coolco-key",
    body: { query: 'mutation { upsertAssetType(input: {name: "x"}) { id } }' },
    direct: true,
    status: 200,
    about: /ForbiddenException.*"upsertAssetType":null/,
  },
  {
    name: "a mutation with invalid input",
    body: { query: 'mutation { upsertAssetType(input: {name: "x", fullChargeLb: -1}) { id } }' },
    direct: true,
    status: 200,
    about: /invalidInputDataException.*"upsertAssetType":null/,
  },
  { name: "GET: a query", method: "GET", params: { query: "{ ping }" }, direct: true, status: 200, about: /pong/ },
  {
    name: "GET: variables and operationName",
    method: "GET",
    params: { query: `${LOCATIONS} query Other { ping }`, variables: '{"limit":2}', operationName: "Locations" },
    direct: true,
    status: 200,
    about: /"count":/,
  },
  {
    name: "GET: graphql-response+json and a validation error",
    method: "GET",
    params: { query: "{ nope }" },
    headers: { accept: "application/graphql-response+json" },
    direct: true,
    status: 400,
    about: /invalidInputDataException/,
  },
  // Automatic persisted queries: the document is resolved before either path (persisted-operations.ts).
  {
    name: "APQ: a document registered with its hash",
    body: { query: "{ me { email } }", extensions: apq("{ me { email } }") },
    direct: true,
    status: 200,
    about: /alice@acme/,
  },
  {
    name: "APQ: the hash alone by GET (cache headers)",
    method: "GET",
    params: { extensions: JSON.stringify(apq("{ me { email } }")) },
    direct: true,
    status: 200,
    about: /alice@acme/,
  },
  {
    name: "APQ: an unknown hash",
    body: { extensions: apq("{ unknown }") },
    direct: false,
    status: 404,
    about: /PersistedQueryNotFound/,
  },
  // Declined: yoga answers on both instances.
  {
    name: "GET: a mutation",
    method: "GET",
    params: { query: 'mutation { upsertAssetType(input: {name: "y"}) { id } }' },
    direct: false,
    status: 400,
    about: /POST/,
  },
  { name: "GET: no query", method: "GET", params: {}, direct: false, status: 400, about: /query/ },
  {
    name: "GET: the GraphiQL page",
    method: "GET",
    params: {},
    headers: { accept: "text/html" },
    direct: false,
    status: 200,
    about: /<html/i,
  },
  { name: "bad JSON", body: "{ not json", direct: false, status: 400, about: /JSON/ },
  { name: "no query", body: {}, direct: false, status: 400, about: /query/ },
  { name: "a query that is not a string", body: { query: 42 }, direct: false, status: 400, about: /string/ },
  {
    name: "variables that are not an object",
    body: { query: "{ ping }", variables: [1] },
    direct: false,
    status: 400,
    about: /variables/,
  },
  {
    name: "an unknown parameter",
    body: { query: "{ ping }", colour: "red" },
    direct: false,
    status: 400,
    about: /colour/,
  },
  { name: "a batch", body: [{ query: "{ ping }" }], direct: false, status: 400, about: /[Bb]atch/ },
  { name: "a syntax error", body: { query: "{ ping" }, direct: false, status: 400, about: /Syntax Error/ },
  // graphql-armor's limits are thrown while parsing or validating; yoga words them.
  { name: "too deep", body: { query: nested(12) }, direct: false, status: 400, about: /depth/i },
  {
    name: "too many aliases",
    body: { query: `{ ${Array.from({ length: MAX_ALIASES + 1 }, (_, i) => `p${i}: ping`).join(" ")} }` },
    direct: false,
    status: 400,
    about: /Aliases limit/,
  },
  {
    name: "too costly",
    body: { query: `{ ${Array.from({ length: MAX_ALIASES }, (_, i) => `l${i}: ${COSTLY}`).join(" ")} }` },
    direct: false,
    status: 400,
    about: /Cost limit/,
  },
  {
    name: "a document over the length limit",
    body: { query: `{ ping ${" ".repeat(MAX_DOCUMENT_LENGTH)}}` },
    direct: false,
    status: 400,
    about: /[Cc]haracter limit/,
  },
  {
    name: "two operations, no operationName",
    body: { query: "query A { ping } query B { ping }" },
    direct: false,
    status: 400,
    about: /operation/,
  },
  {
    name: "an operationName that is not there",
    body: { query: "query A { ping }", operationName: "B" },
    direct: false,
    status: 400,
    about: /operation/,
  },
  {
    name: "a subscription without a stream",
    body: { query: "subscription { workOrderEvents { eventType } }" },
    direct: false,
    status: 400,
    about: /server-sent events/,
  },
  {
    name: "Accept: text/html too",
    body: { query: "{ ping }" },
    headers: { accept: "text/html, application/json" },
    direct: false,
    status: 200,
    about: /pong/,
  },
  {
    name: "Accept: not JSON (406)",
    body: { query: "{ ping }" },
    headers: { accept: "application/xml" },
    direct: false,
    status: 406,
    about: /^$/,
  },
  {
    name: "Accept: another charset (406)",
    body: { query: "{ ping }" },
    headers: { accept: "application/json; charset=iso-8859-1" },
    direct: false,
    status: 406,
    about: /^$/,
  },
  {
    name: "a cross-origin request (CORS headers)",
    body: { query: "{ ping }" },
    headers: { origin: "https://dashboard.example" },
    direct: false,
    status: 200,
    about: /pong/,
  },
  {
    name: "content-type application/graphql+json",
    body: { query: "{ ping }" },
    headers: { "content-type": "application/graphql+json" },
    direct: false,
    status: 200,
    about: /pong/,
  },
  {
    name: "content-type text/plain (415)",
    body: JSON.stringify({ query: "{ ping }" }),
    headers: { "content-type": "text/plain" },
    direct: false,
    status: 415,
    about: /^$/,
  },
  { name: "PUT", method: "PUT", body: { query: "{ ping }" }, direct: false, status: 400, about: /GET and POST/ },
];

function send(app: TestApp, c: Case, traceId: string): Promise<Answer> {
  const method = c.method ?? "POST";
  const credentials =
    c.key === null
      ? {}
      : c.key === "wrong"
        ? { "X-API-KEY": "wrong", "SVC-KEY": "wrong" }
        : app.headers(c.key ?? "acme-key");
  const body = method === "GET" ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  const search = new URLSearchParams(c.params ?? {}).toString();
  const headers = {
    ...credentials,
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    "x-request-id": traceId,
    ...c.headers,
  };
  return rawRequest(`${app.url}/graphql${search ? `?${search}` : ""}`, { method, headers, body });
}

describe("GraphQL over HTTP: the direct path answers as yoga does", () => {
  it("starts both instances with the same fixture ids", () => {
    expect(direct.fixture.refs).toEqual(yoga.fixture.refs);
  });

  it("gives the same status, headers, body and log line for every request of the corpus", async () => {
    const cases = corpus();
    expect(cases.length).toBeGreaterThanOrEqual(25);
    const mismatches = await compareCorpus({
      cases,
      prefix: "graphql-direct",
      direct: direct,
      reference: yoga,
      send,
      flag: "graphqlDirect",
      expectDirect: (c) => c.direct,
    });
    expect(mismatches).toEqual([]);
  });
});
