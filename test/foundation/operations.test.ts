// Health, readiness, metrics, structured logs with the trace id, graceful shutdown.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "../../src/app.ts";
import pino from "pino";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

describe("operations endpoints", () => {
  it("reports liveness and readiness", async () => {
    expect(await (await fetch(`${t.url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ database: "ok", redis: "ok" });
  });

  it("is ready as soon as it listens: a probe during the Redis connection waits for it", async () => {
    const app = await startApp({ ...t.config, port: 0 }, { db: t.db, logger: pino({ level: "silent" }) });
    try {
      const ready = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      expect(await ready.json()).toEqual({ database: "ok", redis: "ok" });
      expect(ready.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("is not ready when Redis is unreachable", async () => {
    const config = { ...t.config, port: 0, redisUrl: "redis://127.0.0.1:1" };
    const app = await startApp(config, { db: t.db, logger: pino({ level: "silent" }) });
    try {
      const ready = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ database: "ok", redis: "down" });
    } finally {
      await app.close();
    }
  });

  it("exports request counts and latency by route and status", async () => {
    await t.call("acme-key", "GET", "/v1/buyer/location/locations");
    await t.call("acme-key", "GET", "/v1/buyer/location/locations/999999");
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/v1\/buyer\/location\/locations",status="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/v1\/buyer\/location\/locations\/:id",status="404"\} 1/,
    );
    expect(text).toContain("http_request_duration_seconds_bucket");
  });
});

describe("structured logs", () => {
  it("logs every request as JSON with the trace id the client saw", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/location/locations/999999");
    const traceId = reply.headers.get("x-trace-id");
    expect(reply.body.traceId).toBe(traceId);
    const line = t.logs.find((l) => l.traceId === traceId && l.msg === "request");
    expect(line).toMatchObject({ method: "GET", status: 404, url: "/v1/buyer/location/locations/999999" });
  });

  it("says which key and tenant made the request, the error type, and the GraphQL operation", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/location/locations/999999");
    const line = t.logs.find((l) => l.traceId === reply.headers.get("x-trace-id") && l.msg === "request");
    const key = await t.db.apiKey.findUniqueOrThrow({ where: { apiKey: t.fixture.keys["acme-key"].apiKey } });
    expect(line).toMatchObject({
      keyId: key.id,
      keyKind: "buyer",
      tenant: { buyerCompanyId: t.fixture.refs.acme },
      errorType: "NotFoundException",
    });
    const gql = await t.graphql("coolco-key", "query DashboardLocations { locations { count } }");
    const gqlLine = t.logs.find((l) => l.traceId === gql.headers.get("x-trace-id") && l.msg === "request");
    expect(gqlLine).toMatchObject({
      url: "/graphql",
      operation: "DashboardLocations",
      keyKind: "supplier",
      tenant: { supplierFacilityId: t.fixture.refs["coolco-pdx"] },
    });
    expect(gqlLine).not.toHaveProperty("errorType");
  });

  it("keeps a caller's X-Request-Id as the trace id", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/nothing", undefined, { "X-Request-Id": "req-1234567890" });
    expect(reply.body.traceId).toBe("req-1234567890");
    expect(t.logs.some((l) => l.traceId === "req-1234567890")).toBe(true);
  });
});

describe("graceful shutdown", () => {
  it("finishes an in-flight request, then refuses new connections", async () => {
    const app = await startApp({ ...t.config, port: 0 }, { db: t.db, logger: pino({ level: "silent" }) });
    const headers = t.headers("acme-key");
    const body = JSON.stringify({ name: "Shutdown-safe" });
    // Send the headers and half the body, so the request is in flight when shutdown starts.
    const socket = net.connect(app.port!, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(
      `POST /v1/buyer/asset/asset_types HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${headers["X-API-KEY"]}\r\nSVC-KEY: ${headers["SVC-KEY"]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 100));
    const refused = await fetch(`http://127.0.0.1:${app.port}/healthz`).then(
      () => "answered",
      () => "refused",
    );
    let response = "";
    socket.on("data", (d) => (response += d));
    const ended = new Promise((r) => socket.once("end", r));
    socket.write(body.slice(5));
    await ended;
    await closing;
    expect(refused).toBe("refused");
    expect(response).toMatch(/^HTTP\/1.1 200/);
    expect(response).toContain('"name":"Shutdown-safe"');
  });
});

describe("Redis outage", () => {
  it("keeps answering (the rate limiter fails open) and says so in the log", async () => {
    const logs: Record<string, unknown>[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => logs.push(JSON.parse(line)) } as never);
    const app = await startApp({ ...t.config, port: 0, redisUrl: "redis://127.0.0.1:1" }, { db: t.db, logger });
    try {
      const reply = await fetch(`http://127.0.0.1:${app.port}/v1/buyer/location/locations`, {
        headers: t.headers("acme-key-default-limit"),
      });
      expect(reply.status).toBe(200);
      expect(logs.some((l) => l.msg === "rate limiter unavailable; allowing the request")).toBe(true);
    } finally {
      await app.close();
    }
  });
});
