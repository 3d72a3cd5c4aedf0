// GraphQL cost and budget (docs/api.md, "GraphQL cost and budget"): an operation costs the most objects
// its answer can hold (page sizes × nested lists), reported in extensions.cost with the key's remaining
// budget; GraphQL keys spend points per window (Redis, shared by instances; per-key budgets set by the
// operator) while REST keeps 10 requests per 20 s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";
import { operatorCli } from "../support/operator-cli.ts";

/** The base fixture plus a key with a small GraphQL budget set by the operator (fixture = `operator apply`). */
const fixture = structuredClone(BASE_FIXTURE);
fixture.apiKeys.push({
  ref: "small-budget-key",
  kind: "buyer",
  contact: "alice",
  graphqlBudget: { points: 30, windowSeconds: 60 },
});

let t: TestApp;
beforeAll(async () => (t = await startTestApp({ fixture })));
afterAll(() => t?.close());

const gql = async (key: string | Record<string, string>, query: string, variables?: unknown, base = t.url) => {
  const response = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { ...(typeof key === "string" ? t.headers(key) : key), "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
};

/** locations(limit) { data { id region { name } } }: 1 (locations) + limit × (1 row + 1 region). */
const PAGE = "query($limit: Int) { locations(limit: $limit) { count data { id name region { name } } } }";

describe("the cost of an operation", () => {
  it("counts page sizes and nested lists, from literals and variables", async () => {
    const cases: [string, unknown, number][] = [
      ["{ ping }", undefined, 1],
      ["{ me { email } }", undefined, 1],
      [PAGE, { limit: 5 }, 1 + 5 * 2],
      [PAGE, { limit: 20 }, 1 + 20 * 2],
      [PAGE, {}, 1 + 10 * 2], // the default page, 10
      [PAGE, { limit: 500 }, 1 + 25 * 2], // a page is at most 25 rows
      ["{ locations(limit: 3) { data { id } } }", undefined, 1 + 3],
      // A list without a page size counts 10: 1 + 2 × (1 + 1 region + 10 locations).
      ["{ locations(limit: 2) { data { region { locations { id } } } } }", undefined, 1 + 2 * (1 + 1 + 10)],
      [
        "fragment R on Location { region { name } } { a: locations(limit: 4) { data { ...R } } b: me { email } }",
        undefined,
        1 + 4 * 2 + 1,
      ],
    ];
    for (const [query, variables, cost] of cases) {
      const reply = await gql("acme-key", query, variables);
      expect(reply.status, query).toBe(200);
      expect(reply.body.extensions.cost.requested, query).toBe(cost);
    }
  });

  it("reports the key's budget and what is left, and sends RateLimit-* headers in points", async () => {
    // A key without overrides: the default budget.
    const first = await gql("acme-key-default-limit", PAGE, { limit: 5 });
    expect(first.body.extensions.cost).toEqual({ requested: 11, limit: 5000, windowSeconds: 20, remaining: 4989 });
    const second = await gql("acme-key-default-limit", "{ ping }");
    expect(second.body.extensions.cost).toEqual({ requested: 1, limit: 5000, windowSeconds: 20, remaining: 4988 });
    expect(second.headers.get("ratelimit-limit")).toBe("5000");
    expect(second.headers.get("ratelimit-remaining")).toBe("4988");
    expect(Number(second.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
  });
});

describe("the budget", () => {
  it("answers 429 with Retry-After once the operation's cost is over what is left, on every instance", async () => {
    const second = await t.secondInstance();
    const replies = [
      await gql("small-budget-key", PAGE, { limit: 5 }), // 11
      await gql("small-budget-key", PAGE, { limit: 5 }, second.url), // 22
      await gql("small-budget-key", PAGE, { limit: 5 }), // 33 > 30
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(replies[1].body.extensions.cost).toMatchObject({ requested: 11, limit: 30, remaining: 8 });
    const refused = replies[2];
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "TooManyRequestsException" });
    expect(refused.body.errors[0].extensions.traceId).toBe(refused.headers.get("x-trace-id"));
    expect(refused.body.errors[0].message).toMatch(
      /^GraphQL budget of 30 points per 60 s exceeded: this operation costs 11 points and 8 are left; retry after \d+ s$/,
    );
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("8");
    // What still fits is answered: 8 points are left.
    const small = await gql("small-budget-key", PAGE, { limit: 3 }, second.url);
    expect(small.status).toBe(200);
    expect(small.body.extensions.cost.remaining).toBe(1);
    await second.close();
  });

  it("refuses an operation costing more than the whole budget with a 400 (waiting would not help)", async () => {
    const reply = await gql("small-budget-key", PAGE, { limit: 25 });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
    expect(reply.body.errors[0].message).toBe(
      "this operation costs 51 points, more than the key's GraphQL budget of 30 points per 60 s",
    );
  });

  it("frees points as spends age out of the window", async () => {
    await t.db.apiKey.update({
      where: { apiKey: t.fixture.keys["globex-key"].apiKey },
      data: { graphqlBudgetPoints: 2, graphqlBudgetWindowSeconds: 1 },
    });
    await t.keyChangesSeen();
    const ping = () => gql("globex-key", "{ ping }").then((r) => r.status);
    expect([await ping(), await ping(), await ping()]).toEqual([200, 200, 429]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await ping()).toBe(200);
  });

  it("takes a per-key budget from the operator's keys issue --graphql-budget", async () => {
    const issued = JSON.parse(
      (
        await operatorCli(t.databaseUrl, [
          "keys",
          "issue",
          "--contact",
          "alice@acme.example",
          "--kind",
          "buyer",
          "--graphql-budget",
          "5/60",
        ])
      ).stdout,
    );
    const headers = { "X-API-KEY": issued.apiKey, "SVC-KEY": issued.svcKey };
    const reply = await gql(headers, "{ ping }");
    expect(reply.body.extensions.cost).toEqual({ requested: 1, limit: 5, windowSeconds: 60, remaining: 4 });
    const listed = JSON.parse(
      (await operatorCli(t.databaseUrl, ["keys", "list", "--contact", "alice@acme.example"])).stdout,
    );
    expect(listed.find((k: { apiKey: string }) => k.apiKey === issued.apiKey).graphqlBudget).toEqual({
      points: 5,
      windowSeconds: 60,
    });
  });

  it("leaves REST at exactly 10 requests per 20 s, whatever GraphQL spends", async () => {
    const headers = t.headers("acme-key-default-limit");
    for (let i = 0; i < 15; i++) expect((await gql(headers, "{ ping }")).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await fetch(`${t.url}/v1/buyer/location/locations`, { headers })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    const rest = await fetch(`${t.url}/v1/buyer/location/locations`, { headers });
    expect(rest.headers.get("ratelimit-limit")).toBe("10");
    expect(await rest.json()).toMatchObject({ type: "TooManyRequestsException" });
  });
});
