// A query that graphql-jit compiles (http/graphql-jit.ts) must answer exactly as graphql-js does. Two
// instances of the service with the same fixture: one as deployed, one that compiles nothing
// (Config.graphqlInterpreted). Every request of the corpus goes to both, and the status, raw headers,
// body bytes and log line must be the same; each case also says whether the first instance compiled it
// (the log line's graphqlCompiled) and what the answer is about, so the corpus cannot quietly stop
// testing what it names.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";
import { compareCorpus, rawRequest, type Answer } from "../support/raw-http.ts";

let compiled: TestApp;
let interpreted: TestApp;
/** The same work orders on both instances (their own databases, so the same ids). */
async function workOrders(t: TestApp) {
  const { refs } = t.fixture;
  const rows = [
    { status: "Unassigned", location: "store-1", hoursAgo: 30, priority: 4 },
    { status: "TechAssigned", location: "store-1", hoursAgo: 20, priority: 48 },
    { status: "TechAssigned", location: "store-2", hoursAgo: 10, priority: null },
    { status: "WaitingForReview", location: "store-2", hoursAgo: 5, priority: 24 },
  ] as const;
  for (const [i, row] of rows.entries()) {
    const at = new Date(Date.UTC(2026, 10, 1) + i * 3_600_000);
    await t.db.workOrder.create({
      data: {
        labels: { create: { labelId: refs.urgent } },
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs[row.location],
        problemTypeId: refs.hvac,
        supplierFacilityId: refs["coolco-pdx"],
        title: `Compiled ${i}`,
        status: row.status,
        woPriority: row.priority,
        createdBy: "alice@acme.example",
        createdAt: at,
        statusChangedAt: at,
      },
    });
  }
}

beforeAll(async () => {
  [compiled, interpreted] = await Promise.all([
    startTestApp({ fixture: BASE_FIXTURE, countStatements: true }),
    startTestApp({
      fixture: BASE_FIXTURE,
      countStatements: true,
      configure: (config) => void (config.graphqlInterpreted = true),
    }),
  ]);
  await Promise.all([workOrders(compiled), workOrders(interpreted)]);
});
afterAll(async () => {
  await Promise.all([compiled?.close(), interpreted?.close()]);
});

interface Case {
  name: string;
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
  key?: string;
  /** Whether the deployed instance runs it compiled. */
  compiled: boolean;
  status: number;
  about: RegExp;
}

const refs = () => compiled.fixture.refs;
const globalIdOf = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString("base64");

const corpus = (): Case[] => [
  {
    name: "a chart: typed rows with named keys and the service-level figures",
    body: {
      query: `{ workOrderStats(groupBy: [STATUS, LOCATION]) { rows { status location { id name } count overdue medianHoursToCompletion } } }`,
    },
    compiled: true,
    status: 200,
    about: /"rows":\[\{"status":"\w+","location":\{"id":\d+/,
  },
  {
    name: "a list with its total, a variable for the page size",
    body: { query: "query($l: Int) { locations(limit: $l) { count data { id name } } }", variables: { l: 2 } },
    compiled: true,
    status: 200,
    about: /"count":\d+,"data":\[\{"id":\d+,"name"/,
  },
  {
    name: "a connection filtered by an enum list in a variable, with cursors and its total",
    body: {
      query: `query($f: WorkOrderFilter) { workOrdersConnection(first: 3, filter: $f) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id status createdAt } } } }`,
      variables: { f: { status: ["Unassigned", "TechAssigned"] } },
    },
    compiled: true,
    status: 200,
    about: /"totalCount":\d+.*"cursor":"[\w-]+"/,
  },
  {
    name: "fragments, aliases, __typename and @include",
    body: {
      query: `query($with: Boolean!) { first: me { ...who } again: me @include(if: $with) { __typename } skipped: ping @include(if: false) }
              fragment who on Me { __typename email }`,
      variables: { with: true },
    },
    compiled: true,
    status: 200,
    about: /"first":\{"__typename":"Me","email":"[^"]+"\},"again":\{"__typename":"Me"\}\}/,
  },
  {
    name: "an interface resolved to its type (node)",
    body: {
      query: `query($id: ID!) { node(id: $id) { __typename globalId ... on Location { id name } } }`,
      variables: { id: globalIdOf("Location", refs()["store-1"]) },
    },
    compiled: true,
    status: 200,
    about: /"node":\{"__typename":"Location","globalId":"[^"]+","id":\d+,"name"/,
  },
  {
    name: "a field that fails alone: null with its error, path and location; the rest answered",
    body: { query: "{ me { email } workOrder(id: 999999) { id } }" },
    compiled: true,
    status: 200,
    about:
      /"errors":\[\{"message":"[^"]+","locations":\[\{"line":1,"column":16\}\],"path":\["workOrder"\].*"data":\{"me":\{"email"/,
  },
  {
    name: "a filter the rules refuse",
    body: { query: '{ locations(filter: {colour: "red"}) { count } }' },
    compiled: true,
    status: 200,
    about: /colour.*"data":\{"locations":null\}/,
  },
  {
    name: "a variable of the wrong type: graphql-js reports it",
    body: { query: "query($l: Int) { locations(limit: $l) { count } }", variables: { l: "ten" } },
    compiled: false,
    status: 400,
    about: /whole number/,
  },
  {
    name: "a relation plugin-prisma plans with its parent, under a connection's rows: compiled",
    body: { query: "{ workOrdersConnection(first: 2) { edges { node { id supplierFacility { name } } } } }" },
    compiled: true,
    status: 200,
    about: /"edges":\[.*"supplierFacility":\{"name"/,
  },
  {
    name: "relations under a list's rows: compiled",
    body: { query: "{ workOrders(limit: 3) { data { id location { name } asset { name } } } }" },
    compiled: true,
    status: 200,
    about: /"location":\{"name"/,
  },
  {
    name: "relations under relations (the supplier facility's company, a label link's label, notes)",
    body: {
      query: `{ workOrdersConnection(first: 4) { edges { node { id supplierFacility { name company { name } }
                labels(first: 5) { edges { node { label { name } } } } notes(last: 2) { edges { node { text } } } } } } }`,
    },
    compiled: true,
    status: 200,
    about: /"company":\{"name".*"label":\{"name":"Urgent"\}/,
  },
  {
    name: "relations under relations in a fragment",
    body: {
      query: `{ workOrdersConnection(first: 4) { edges { node { ...row } } } }
              fragment row on WorkOrder { id location { name region { name } } labels(first: 5) { edges { node { label { name } } } } }`,
    },
    compiled: true,
    status: 200,
    about: /"region":\{"name".*"label":\{"name":"Urgent"\}/,
  },
  {
    name: "one of two operations: not compiled",
    body: { query: "query A { ping } query B { me { email } }", operationName: "B" },
    compiled: false,
    status: 200,
    about: /"me":\{"email"/,
  },
  {
    name: "a supplier key's masked list",
    key: "coolco-key",
    body: { query: "{ workOrdersConnection(first: 5) { edges { node { id title nte } } } }" },
    compiled: true,
    status: 200,
    about: /"edges":\[/,
  },
];

function send(app: TestApp, c: Case, traceId: string): Promise<Answer> {
  return rawRequest(`${app.url}/graphql`, {
    method: "POST",
    headers: { ...app.headers(c.key ?? "acme-key"), "content-type": "application/json", "x-request-id": traceId },
    body: JSON.stringify(c.body),
  });
}

describe("GraphQL queries compiled by graphql-jit answer as graphql-js does", () => {
  it("starts both instances with the same fixture ids", () => {
    expect(compiled.fixture.refs).toEqual(interpreted.fixture.refs);
  });

  it("gives the same status, headers, body and log line for every request of the corpus", async () => {
    const cases = corpus();
    const mismatches = await compareCorpus({
      cases,
      prefix: "graphql-compiled",
      direct: compiled,
      reference: interpreted,
      send,
      flag: "graphqlCompiled",
      expectDirect: (c) => c.compiled,
    });
    expect(mismatches).toEqual([]);
  });

  it("sends as many SQL statements compiled as interpreted for every request of the corpus", async () => {
    // Compiled execution must not lose plugin-prisma's plan and load relations again (http/graphql-jit.ts).
    const counts = [];
    for (const c of corpus()) {
      const counted = [];
      for (const app of [compiled, interpreted]) {
        await send(app, c, crypto.randomUUID()); // caches and one-off lookups are not counted
        const before = app.statements!.statements;
        await send(app, c, crypto.randomUUID());
        counted.push(app.statements!.statements - before);
      }
      counts.push({ name: c.name, compiled: counted[0], interpreted: counted[1] });
    }
    expect(counts.filter((c) => c.compiled !== c.interpreted)).toEqual([]);
    expect(counts.some((c) => c.interpreted > 0)).toBe(true);
  });
});
