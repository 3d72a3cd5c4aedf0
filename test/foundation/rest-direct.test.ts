// A REST GET is answered without SOFA's fetch layer (rest/sofa.ts `direct`) and must be answered exactly
// as SOFA answers it. Two instances of the service, each with its own database (the same fixture, so
// the same ids) and its own rate-limit windows: one as deployed, one with every REST request through
// SOFA's router (Config.restThroughSofa). Every request of the corpus goes to both, one after the other,
// and the status, the raw headers (names as sent, in order), the body bytes and the request's log line
// must be the same. Each case also says whether the first instance must have answered it directly (the
// log line's restDirect) and what its answer is about, so the corpus cannot quietly stop testing what
// it names.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";
import { compareCorpus, rawRequest, type Answer } from "../support/raw-http.ts";

/** The base fixture plus a key allowed 2 requests a minute (the third is a 429). */
const fixture = structuredClone(BASE_FIXTURE);
fixture.apiKeys.push({
  ref: "tight-key",
  kind: "buyer",
  contact: "alice",
  rateLimit: { requests: 2, windowSeconds: 60 },
});

let direct: TestApp;
let sofa: TestApp;
beforeAll(async () => {
  [direct, sofa] = await Promise.all([
    startTestApp({ fixture }),
    startTestApp({ fixture, configure: (config) => void (config.restThroughSofa = true) }),
  ]);
  // The same work orders on both (ids included): created through the API, in the same order.
  for (const app of [direct, sofa]) {
    const refs = app.fixture.refs;
    for (const [title, location] of [
      ["Walk-in cooler leaking", "store-1"],
      ["Door gasket torn", "store-2"],
      ["Ice machine noisy", "store-1"],
    ]) {
      const reply = await app.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
        title,
        locationId: refs[location],
        problemTypeId: refs.hvac,
        buyerFacilityId: refs["acme-hq"],
        buyerCompanyId: refs.acme,
        createdBy: "alice@acme.example",
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
  }
});
afterAll(async () => {
  await Promise.all([direct?.close(), sofa?.close()]);
});

interface Case {
  name: string;
  /** Path and query string under /v1/<interface>. */
  path: string;
  iface?: "buyer" | "supplier" | "partners";
  /** GET unless said otherwise. */
  method?: string;
  /** A fixture key, "wrong" (a pair that does not authenticate) or none. */
  key?: string | null;
  /** Whether the deployed instance answers it directly (else SOFA does). */
  direct: boolean;
  /** What the answer is: the status and a pattern its body must match. */
  status: number;
  about: RegExp;
}

const refs = () => direct.fixture.refs;
const LOCATIONS = "/location/locations";
const WORK_ORDERS = "/work_order/work_orders";

const corpus = (): Case[] => [
  // Answered directly.
  { name: "a list", path: LOCATIONS, direct: true, status: 200, about: /"type":"Location".*"count":2/ },
  {
    name: "paged and sorted",
    path: `${LOCATIONS}?limit=1&offset=1&sort_by=name&order=desc`,
    direct: true,
    status: 200,
    about: /"count":2/,
  },
  { name: "an empty value of a filter", path: `${LOCATIONS}?name=`, direct: true, status: 400, about: /has no value/ },
  {
    name: "a repeated parameter",
    path: `${LOCATIONS}?limit=1&limit=2`,
    direct: true,
    status: 400,
    about: /"status":"error"/,
  },
  {
    name: "a bracketed parameter (qs reads an array)",
    path: `${LOCATIONS}?limit[]=1`,
    direct: true,
    status: 400,
    about: /"status":"error"/,
  },
  {
    name: "a nested bracket (qs reads an object)",
    path: `${LOCATIONS}?limit[a]=1`,
    direct: true,
    status: 400,
    about: /"status":"error"/,
  },
  {
    name: "a second question mark",
    path: `${LOCATIONS}?sort_by=name?order=desc`,
    direct: true,
    status: 200,
    about: /"count":2/,
  },
  { name: "a filter", path: `${LOCATIONS}?regionId=${refs().west}`, direct: true, status: 200, about: /"count":2/ },
  { name: "an unknown filter", path: `${LOCATIONS}?bogus=1`, direct: true, status: 400, about: /unknown filter/ },
  { name: "a bad order", path: `${LOCATIONS}?order=sideways`, direct: true, status: 400, about: /asc/ },
  {
    name: "one row",
    path: `${LOCATIONS}/${refs()["store-1"]}`,
    direct: true,
    status: 200,
    about: /"type":"Location","data":\{"id"/,
  },
  { name: "a missing row", path: `${LOCATIONS}/999999`, direct: true, status: 404, about: /"status":"error"/ },
  {
    name: "another tenant's row",
    path: `${LOCATIONS}/${refs()["g-store"]}`,
    direct: true,
    status: 400,
    about: /"status":"error"/,
  },
  {
    name: "a path parameter list",
    path: `${LOCATIONS}/multiple/${refs()["store-1"]},${refs()["store-2"]}`,
    direct: true,
    status: 200,
    about: /"type":"Location"/,
  },
  { name: "a trailing slash", path: `${LOCATIONS}/`, direct: true, status: 200, about: /"count":2/ },
  {
    name: "work orders filtered, searched and sorted",
    path: `${WORK_ORDERS}?status=Unassigned,TechAssigned&search=cooler&sort_by=createdAt&order=desc`,
    direct: true,
    status: 200,
    about: /Walk-in cooler/,
  },
  {
    name: "a phrase",
    path: `${WORK_ORDERS}?search=${encodeURIComponent('"door gasket"')}`,
    direct: true,
    status: 200,
    about: /"count":1/,
  },
  {
    name: "a bad time window",
    path: `${WORK_ORDERS}?createdAtStart=garbage`,
    direct: true,
    status: 400,
    about: /ISO 8601/,
  },
  { name: "past the window", path: `${WORK_ORDERS}?offset=9999&limit=25`, direct: true, status: 400, about: /10000/ },
  {
    name: "count_by",
    path: `${WORK_ORDERS}/count_by?group_by=status`,
    direct: true,
    status: 200,
    about: /"value":"Unassigned"/,
  },
  {
    name: "count_by on a bad field",
    path: `${WORK_ORDERS}/count_by?group_by=bogus`,
    direct: true,
    status: 400,
    about: /cannot group by/,
  },
  {
    name: "a work order of another tenant",
    path: `${WORK_ORDERS}?search=cooler`,
    key: "globex-key",
    direct: true,
    status: 200,
    about: /"count":0/,
  },
  { name: "ping (not rate limited)", path: "/ping", direct: true, status: 200, about: /pong/i },
  {
    name: "a supplier's list",
    path: WORK_ORDERS,
    iface: "supplier",
    key: "coolco-key",
    direct: true,
    status: 200,
    about: /"type":"WorkOrder"/,
  },
  // Declined before or by the direct path: answered alike either way.
  {
    name: "a bad whole number (checked before SOFA)",
    path: `${LOCATIONS}?limit=abc`,
    direct: false,
    status: 400,
    about: /limit must be a whole number/,
  },
  { name: "a non-number id", path: `${LOCATIONS}/abc`, direct: false, status: 400, about: /id must be a whole number/ },
  {
    name: "a %-escaped path (SOFA decodes it)",
    path: `${LOCATIONS}/%3${String(refs()["store-1"]).slice(-1)}`,
    direct: false,
    status: 200,
    about: /"type":"Location"/,
  },
  {
    name: "an empty whole number (checked before SOFA)",
    path: `${LOCATIONS}?limit=`,
    direct: false,
    status: 400,
    about: /limit must be a whole number/,
  },
  {
    name: "a second question mark in a whole number",
    path: `${LOCATIONS}?limit=1?offset=1`,
    direct: false,
    status: 400,
    about: /limit must be a whole number/,
  },
  { name: "no key", path: LOCATIONS, key: null, direct: false, status: 401, about: /"status":"error"/ },
  { name: "a wrong key", path: LOCATIONS, key: "wrong", direct: false, status: 401, about: /"status":"error"/ },
  { name: "an unknown path", path: "/location/nowhere", direct: false, status: 404, about: /no route/ },
  { name: "rate limit 1", path: LOCATIONS, key: "tight-key", direct: true, status: 200, about: /"count":2/ },
  { name: "rate limit 2", path: LOCATIONS, key: "tight-key", direct: true, status: 200, about: /"count":2/ },
  {
    name: "rate limit 3 (429)",
    path: LOCATIONS,
    key: "tight-key",
    direct: false,
    status: 429,
    about: /"status":"error"/,
  },
  {
    name: "a write (always SOFA)",
    method: "PATCH",
    path: `${WORK_ORDERS}/append_notes`,
    direct: false,
    status: 400,
    about: /"status":"error"/,
  },
];

/** Rows made while the instances started (the fixture, the work orders above) differ in their times only. */
const TIMESTAMP = /"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g;

async function send(app: TestApp, c: Case, traceId: string): Promise<Answer> {
  const credentials =
    c.key === null
      ? {}
      : c.key === "wrong"
        ? { "X-API-KEY": "wrong", "SVC-KEY": "wrong" }
        : app.headers(c.key ?? "acme-key");
  const method = c.method ?? "GET";
  const body = method === "GET" ? undefined : "{}";
  const headers = {
    ...credentials,
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    "x-request-id": traceId,
  };
  const answer = await rawRequest(`${app.url}/v1/${c.iface ?? "buyer"}${c.path}`, { method, headers, body });
  return { ...answer, body: answer.body.replace(TIMESTAMP, '"<time>"') };
}

describe("REST GET: the direct path answers as SOFA does", () => {
  it("starts both instances with the same fixture ids", () => {
    expect(direct.fixture.refs).toEqual(sofa.fixture.refs);
  });

  it("gives the same status, headers, body and log line for every request of the corpus", async () => {
    const cases = corpus();
    const mismatches = await compareCorpus({
      cases,
      prefix: "rest-direct",
      direct: direct,
      reference: sofa,
      send,
      flag: "restDirect",
      expectDirect: (c) => c.direct,
    });
    expect(mismatches).toEqual([]);
  });
});
