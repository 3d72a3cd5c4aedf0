// One request pipeline for REST, GraphQL over HTTP and websockets: the same trace id header, the same
// rate-limit headers and window, and the same 429.
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
    expect(reply.headers.get("ratelimit-limit")).toBe("1000");
    expect(Number(reply.headers.get("ratelimit-remaining"))).toBeLessThan(1000);
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
  it("is one window for REST, GraphQL and websockets, with the same 429", async () => {
    const headers = t.headers("acme-key-default-limit");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${t.url}/v1/buyer/me`, { headers })).status);
    for (let i = 0; i < 4; i++) statuses.push((await gql(headers)).status);
    const ws = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: headers,
      retryAttempts: 0,
      lazy: true,
    });
    const run = () =>
      new Promise<any>((resolve) =>
        // A refused operation ends with graphql-ws's error message: the list of GraphQL errors.
        ws.subscribe(
          { query: "{ ping }" },
          { next: resolve, error: (errors) => resolve({ errors }), complete: () => undefined },
        ),
      );
    for (let i = 0; i < 2; i++) statuses.push((await run()).errors ? 429 : 200);
    expect(statuses).toEqual(Array(10).fill(200));

    const rest = await fetch(`${t.url}/v1/buyer/me`, { headers });
    const graphql = await gql(headers);
    const overWs = await run();
    await ws.dispose();
    expect([rest.status, graphql.status]).toEqual([429, 429]);
    const restBody = await rest.json();
    const graphqlBody = await graphql.json();
    expect(restBody).toMatchObject({ type: "TooManyRequestsException", status: "error" });
    expect(graphqlBody.errors[0].extensions.code).toBe(restBody.type);
    const same = (message: string) => message.replace(/retry after \d+ s/, "retry after S s");
    expect(same(graphqlBody.errors[0].message)).toBe(same(restBody.message));
    expect(same(overWs.errors[0].message)).toBe(same(restBody.message));
    for (const reply of [rest, graphql]) {
      expect(reply.headers.get("ratelimit-limit")).toBe("10");
      expect(reply.headers.get("ratelimit-remaining")).toBe("0");
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});
