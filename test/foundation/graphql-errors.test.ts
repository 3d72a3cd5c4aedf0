// GraphQL over HTTP answers errors one way whatever JSON type the client accepts (docs/api.md, "GraphQL
// errors and statuses"): a request error is a 4xx without data; once execution started the answer is
// 200 with data, and a field that failed is null beside the others. Every error has the contract's
// extensions.code and the request's traceId. The REST cuts keep their non-null roots.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

const ACCEPTS = ["application/json", "application/graphql-response+json"];

async function post(body: unknown, accept: string, traceId: string, key: string | null = "acme-key") {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: {
      ...(key ? t.headers(key) : {}),
      "content-type": "application/json",
      accept,
      "x-request-id": traceId,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const REQUEST_ERRORS: { name: string; body: unknown; status: number; code: string; message: RegExp }[] = [
  {
    name: "a syntax error",
    body: { query: "{ ping" },
    status: 400,
    code: "invalidInputDataException",
    message: /Syntax/,
  },
  {
    name: "an unknown field",
    body: { query: "{ nope }" },
    status: 400,
    code: "invalidInputDataException",
    message: /nope/,
  },
  {
    name: "a missing argument",
    body: { query: "{ location { name } }" },
    status: 400,
    code: "invalidInputDataException",
    message: /id/,
  },
  {
    name: "a literal of the wrong type",
    body: { query: '{ locations(limit: "ten") { count } }' },
    status: 400,
    code: "invalidInputDataException",
    message: /whole number/,
  },
  {
    name: "a variable of the wrong type",
    body: { query: "query($l: Int) { locations(limit: $l) { count } }", variables: { l: "ten" } },
    status: 400,
    code: "invalidInputDataException",
    message: /whole number/,
  },
  {
    name: "a required variable missing",
    body: { query: "query($id: Int!) { location(id: $id) { name } }" },
    status: 400,
    code: "invalidInputDataException",
    message: /required/,
  },
  { name: "a body that is not JSON", body: "{ no", status: 400, code: "invalidInputDataException", message: /JSON/ },
  { name: "no query", body: {}, status: 400, code: "invalidInputDataException", message: /query/ },
  {
    name: "too deep",
    body: {
      query:
        "{ me { email } regions { data { locations { region { locations { region { locations { region { locations { region { id } } } } } } } } } } }",
    },
    status: 400,
    code: "invalidInputDataException",
    message: /depth/i,
  },
];

describe("request errors: 4xx, no data, code and traceId, whatever the Accept header", () => {
  for (const accept of ACCEPTS) {
    for (const c of REQUEST_ERRORS) {
      it(`${c.name} (${accept})`, async () => {
        const traceId = `errors-${c.name.replace(/\W+/g, "-")}-${accept.length}`;
        const reply = await post(c.body, accept, traceId);
        expect(reply.status).toBe(c.status);
        expect(reply.body.data).toBeUndefined();
        expect(reply.body.errors.length).toBeGreaterThan(0);
        for (const error of reply.body.errors) {
          expect(error.extensions).toMatchObject({ code: c.code, traceId });
          expect(error.extensions.http).toBeUndefined();
        }
        expect(reply.body.errors[0].message).toMatch(c.message);
      });
    }

    it(`GET with variables that are not JSON (${accept})`, async () => {
      const response = await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ ping }")}&variables=%7Bno`, {
        headers: { ...t.headers("acme-key"), accept, "x-request-id": "errors-get-variables" },
      });
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.errors[0].extensions).toEqual({ code: "invalidInputDataException", traceId: "errors-get-variables" });
    });

    it(`a body over 1 MiB (${accept})`, async () => {
      const reply = await post({ query: `{ ping }${" ".repeat(1_100_000)}` }, accept, "errors-body-size");
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].extensions).toEqual({
        code: "invalidInputDataException",
        traceId: "errors-body-size",
      });
    });

    it(`no key: 401 UnauthorizedException (${accept})`, async () => {
      const reply = await post({ query: "{ ping }" }, accept, "errors-no-key", null);
      expect(reply.status).toBe(401);
      expect(reply.body.errors[0].extensions).toMatchObject({
        code: "UnauthorizedException",
        traceId: "errors-no-key",
      });
    });
  }
});

describe("partial results: a field that fails is null beside the others", () => {
  for (const accept of ACCEPTS) {
    it(`{ me, workOrder(id: unknown) } answers me and an error for workOrder (${accept})`, async () => {
      const reply = await post(
        { query: "{ me { email } workOrder(id: 999999) { id } ping }" },
        accept,
        "errors-partial",
      );
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({ me: { email: "alice@acme.example" }, workOrder: null, ping: "pong" });
      expect(reply.body.errors).toHaveLength(1);
      expect(reply.body.errors[0]).toMatchObject({
        path: ["workOrder"],
        extensions: { code: "NotFoundException", traceId: "errors-partial" },
      });
    });
  }

  it("a foreign id: null with the contract's 400 code, the other fields answered", async () => {
    const reply = await post(
      { query: `{ location(id: ${t.fixture.refs["store-1"]}) { name } me { email } }` },
      "application/json",
      "errors-foreign",
      "globex-key",
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data.location).toBeNull();
    expect(reply.body.data.me.email).toBeTruthy();
    expect(reply.body.errors[0].extensions).toMatchObject({
      code: "invalidInputDataException",
      traceId: "errors-foreign",
    });
  });

  it("two mutations: the one that fails does not hide the one that was made", async () => {
    const reply = await post(
      {
        query:
          'mutation { a: upsertAssetType(input: {name: "Partial A"}) { name } b: upsertAssetType(input: {name: "x", fullChargeLb: -1}) { name } }',
      },
      "application/graphql-response+json",
      "errors-mutations",
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ a: { name: "Partial A" }, b: null });
    expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });

  it("root fields are nullable in the GraphQL schema; REST answers as before", async () => {
    const gql = await t.graphql("acme-key", '{ __type(name: "Query") { fields { name type { kind } } } }');
    const me = gql.body.data.__type.fields.find((f: { name: string }) => f.name === "me");
    expect(me.type.kind).toBe("OBJECT");
    const rest = await t.call("acme-key", "GET", "/v1/buyer/me");
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ type: "Me", status: "ok" });
  });
});
