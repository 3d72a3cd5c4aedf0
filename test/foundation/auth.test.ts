import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { issueKey, revokeKey } from "../../src/operator/keys.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

const expectError = (reply: { status: number; body: any }, status: number, type: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body).toMatchObject({ type, status: "error" });
  expect(typeof reply.body.message).toBe("string");
  expect(reply.body.traceId).toMatch(/.{8,}/);
};

describe("authentication", () => {
  it("answers ping with both headers", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/ping");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ type: "pingpong", data: "pong", status: "ok" });
  });

  it("gives 401 without headers, with one header, or with a wrong secret", async () => {
    const good = t.headers("acme-key");
    expectError(await t.call(null, "GET", "/v1/buyer/ping"), 401, "UnauthorizedException");
    expectError(
      await t.call(null, "GET", "/v1/buyer/ping", undefined, { "X-API-KEY": good["X-API-KEY"] }),
      401,
      "UnauthorizedException",
    );
    expectError(
      await t.call(null, "GET", "/v1/buyer/ping", undefined, { "SVC-KEY": good["SVC-KEY"] }),
      401,
      "UnauthorizedException",
    );
    const wrong = { ...good, "SVC-KEY": `${good["SVC-KEY"].slice(0, -2)}xx` };
    expectError(
      await t.call(null, "GET", "/v1/buyer/location/locations", undefined, wrong),
      401,
      "UnauthorizedException",
    );
    expectError(
      await t.call(null, "GET", "/v1/buyer/me", undefined, { "X-API-KEY": "nope", "SVC-KEY": "nope" }),
      401,
      "UnauthorizedException",
    );
  });

  it("checks the key before anything else, even before a malformed body or an unknown route", async () => {
    expectError(
      await t.call(null, "PATCH", "/v1/buyer/location/locations/1", "{not json"),
      401,
      "UnauthorizedException",
    );
    expectError(await t.call(null, "GET", "/v1/buyer/no/such/route"), 401, "UnauthorizedException");
  });

  it("keeps buyer, supplier and partner keys apart", async () => {
    expectError(await t.call("acme-key", "GET", "/v1/partners/ping"), 401, "UnauthorizedException");
    expectError(await t.call("inhouse-partner-key", "GET", "/v1/buyer/ping"), 401, "UnauthorizedException");
    expectError(await t.call("coolco-key", "GET", "/v1/buyer/location/locations"), 401, "UnauthorizedException");
    expectError(await t.call("acme-key", "GET", "/v1/supplier/location/locations"), 401, "UnauthorizedException");
    expect((await t.call("inhouse-partner-key", "GET", "/v1/partners/ping")).body).toEqual({
      type: "pingpong",
      data: "pong",
      status: "ok",
    });
  });

  it("stores secrets only as hashes", async () => {
    const svcKey = t.fixture.keys["acme-key"].svcKey!;
    const rows = await t.db.apiKey.findMany();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.secretHash).not.toContain(svcKey);
    }
  });

  it("rejects revoked and expired keys", async () => {
    const issued = await issueKey(t.db, { contactEmail: "alice@acme.example", kind: "buyer" });
    const headers = { "X-API-KEY": issued.apiKey, "SVC-KEY": issued.svcKey };
    expect((await t.call(null, "GET", "/v1/buyer/ping", undefined, headers)).status).toBe(200);
    await revokeKey(t.db, issued.apiKey);
    await t.keyChangesSeen();
    expectError(await t.call(null, "GET", "/v1/buyer/ping", undefined, headers), 401, "UnauthorizedException");

    const expiring = await issueKey(t.db, {
      contactEmail: "alice@acme.example",
      kind: "buyer",
      expiresAt: new Date(Date.now() + 60_000),
    });
    const expHeaders = { "X-API-KEY": expiring.apiKey, "SVC-KEY": expiring.svcKey };
    expect((await t.call(null, "GET", "/v1/buyer/ping", undefined, expHeaders)).status).toBe(200);
    await t.db.apiKey.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await t.keyChangesSeen();
    expectError(await t.call(null, "GET", "/v1/buyer/ping", undefined, expHeaders), 401, "UnauthorizedException");
  });

  it("returns the key's identity from /me", async () => {
    const reply = await t.call("acme-key", "GET", "/v1/buyer/me");
    expect(reply.body).toEqual({
      type: "Me",
      status: "ok",
      data: {
        email: "alice@acme.example",
        name: "Alice Admin",
        contactType: "buyer",
        buyerFacilityId: t.fixture.refs["acme-hq"],
        buyerFacilityName: "Acme HQ",
        buyerCompanyId: t.fixture.refs.acme,
        buyerCompanyName: "Acme Foods",
      },
    });
    expect((await t.call("globex-key", "GET", "/v1/buyer/me")).body.data.buyerCompanyId).toBe(t.fixture.refs.globex);
  });

  it("authenticates GraphQL with the same headers", async () => {
    const denied = await t.graphql(null, "{ ping }");
    expect(denied.status).toBe(401);
    expect(denied.body.errors[0].extensions.code).toBe("UnauthorizedException");
    const ok = await t.graphql("acme-key", "{ ping }");
    expect(ok.body.data).toEqual({ ping: "pong" });
    expect(ok.body.errors).toBeUndefined();
  });
});
