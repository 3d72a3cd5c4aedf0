// One request pipeline for REST, GraphQL over HTTP and websockets: the same trace id header, the same
// rate-limit headers and the same 429; REST counts requests, GraphQL spends points (docs/api.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

const gql = (headers: Record<string, string>, query = "{ me { email } }") =>
  fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });

describe("GraphQL answers", () => {
  it("carry X-Trace-Id (the caller's X-Request-Id when given) and the RateLimit-* headers", async () => {
    const reply = await gql({ ...t.headers("acme-key"), "X-Request-Id": "trace-graphql-0001" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-trace-id")).toBe("trace-graphql-0001");
    // GraphQL's budget, in points (the fixture's test keys have a large one).
    expect(reply.headers.get("ratelimit-limit")).toBe("1000000");
    expect(Number(reply.headers.get("ratelimit-remaining"))).toBeLessThan(1000000);
    expect(Number(reply.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    const fresh = await gql(t.headers("acme-key"));
    expect(fresh.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("carry X-Trace-Id on errors too", async () => {
    const reply = await gql({ "X-API-KEY": "nope", "SVC-KEY": "nope" });
    expect(reply.status).toBe(401);
    expect(reply.headers.get("x-trace-id")).toBeTruthy();
  });
});

describe("the rate limit", () => {
  const ws = (headers: Record<string, string>) =>
    createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: headers,
      retryAttempts: 0,
      lazy: true,
    });
  const run = (client: ReturnType<typeof ws>) =>
    new Promise<any>((resolve) =>
      // A refused operation ends with its errors; the connection stays open.
      client.subscribe(
        { query: "{ ping }" },
        { next: resolve, error: (errors) => resolve({ errors }), complete: () => undefined },
      ),
    );

  it("counts REST requests (10 per 20 s) apart from GraphQL's points, which HTTP and websockets share", async () => {
    const headers = t.headers("acme-key-default-limit");
    const client = ws(headers);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${t.url}/v1/buyer/me`, { headers })).status);
    for (let i = 0; i < 12; i++) statuses.push((await gql(headers)).status);
    for (let i = 0; i < 2; i++) statuses.push((await run(client)).errors ? 429 : 200);
    for (let i = 0; i < 7; i++) statuses.push((await fetch(`${t.url}/v1/buyer/me`, { headers })).status);
    expect(statuses).toEqual([...Array(24).fill(200), 429]);
    // REST's window is full; GraphQL's budget is not: 14 operations of 1 point spent.
    const graphql = await gql(headers);
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get("ratelimit-limit")).toBe("5000");
    expect(graphql.headers.get("ratelimit-remaining")).toBe("4985");
    expect((await graphql.json()).extensions.cost).toMatchObject({ requested: 1, remaining: 4985, limit: 5000 });
    await client.dispose();
  });

  it("answers an operation over the GraphQL budget with the same 429 over HTTP and websockets", async () => {
    await t.db.apiKey.update({
      where: { apiKey: t.fixture.keys["globex-key"].apiKey },
      data: { graphqlBudgetPoints: 3, graphqlBudgetWindowSeconds: 60 },
    });
    await t.keyChangesSeen();
    const headers = t.headers("globex-key");
    const client = ws(headers);
    expect((await gql(headers)).status).toBe(200);
    expect((await gql(headers)).status).toBe(200);
    expect((await run(client)).errors).toBeUndefined();
    const graphql = await gql(headers);
    const overWs = await run(client);
    await client.dispose();
    expect(graphql.status).toBe(429);
    const body = await graphql.json();
    expect(body.errors[0].extensions.code).toBe("TooManyRequestsException");
    const same = (message: string) => message.replace(/retry after \d+ s/, "retry after S s");
    expect(same(body.errors[0].message)).toBe(
      "GraphQL budget of 3 points per 60 s exceeded: this operation costs 1 points and 0 are left; retry after S s",
    );
    expect(same(overWs.errors[0].message)).toBe(same(body.errors[0].message));
    expect(graphql.headers.get("ratelimit-limit")).toBe("3");
    expect(graphql.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(graphql.headers.get("retry-after"))).toBeGreaterThan(0);
    // REST's own window is untouched.
    expect((await fetch(`${t.url}/v1/buyer/me`, { headers })).status).toBe(200);
  });
});
