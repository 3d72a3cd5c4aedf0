// Errors speak the contract, not GraphQL: every REST write route's body failures (a missing required
// field, a value of the wrong type) and every integer path parameter are answered in the contract's
// words, naming the field or parameter in `field`. Routes come from the OpenAPI documents, so a new
// route is checked without editing this test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { discoverOperations, KEYS, type Operation } from "../support/operations.ts";

const JARGON =
  /Variable "\$|of required type|cannot represent|Expected type|does not exist in "|"\w+!"|GRAPHQL_|Syntax Error/;

let t: TestApp;
let operations: Operation[];
beforeAll(async () => {
  t = await startTestApp();
  await t.db.apiKey.updateMany({ data: { rateLimitRequests: 1_000_000, rateLimitWindowSeconds: 1 } });
  await t.keyChangesSeen();
  operations = await discoverOperations(t);
});
afterAll(() => t?.close());

type Schema = NonNullable<Operation["body"]>;

/** A value of the schema's type, so that only the field a case corrupts is wrong. */
function valid(schema: Schema | undefined): unknown {
  if (!schema) return {};
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case "integer":
      return 1;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "string":
      return schema.format === "date-time" ? "2026-11-02T10:00:00Z" : schema.format === "date" ? "2026-11-02" : "text";
    case "array":
      return [];
    default:
      return Object.fromEntries((schema.required ?? []).map((name) => [name, valid(schema.properties?.[name])]));
  }
}

/** A value GraphQL refuses for the schema's type (undefined where every value is accepted). */
function wrong(schema: Schema | undefined): unknown {
  switch (schema?.type) {
    case "integer":
      return "twelve";
    case "number":
      return "a lot";
    case "boolean":
      return "yes";
    case "string":
      return schema.enum ? "NoSuchValue" : { text: 5 };
    default:
      return undefined;
  }
}

const path = (op: Operation) => op.pathParams.reduce((p, param) => p.replace(`{${param.name}}`, "1"), op.path);

function expectContractWords(reply: { status: number; body: any }, field: string, where: string) {
  expect(reply.status, `${where}: ${JSON.stringify(reply.body)}`).toBe(400);
  expect(reply.body.message, where).not.toMatch(JARGON);
  expect(reply.body.field, `${where}: ${JSON.stringify(reply.body)}`).toBe(field);
  expect(reply.body.message, where).toContain(field);
}

describe("REST error wording", () => {
  it("names a missing required body field, on every write route", async () => {
    let checked = 0;
    for (const op of operations.filter((o) => o.body?.required?.length)) {
      const where = `${op.method} ${op.path}`;
      const reply = await t.call(KEYS[op.iface][0], op.method, path(op), {});
      expectContractWords(reply, reply.body.field, where);
      expect(op.body!.required, where).toContain(reply.body.field);
      expect(reply.body.message, where).toMatch(/is required/);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("names a body field of the wrong type, on every write route and field", async () => {
    let checked = 0;
    for (const op of operations.filter((o) => o.body?.properties)) {
      for (const [name, schema] of Object.entries(op.body!.properties!)) {
        const bad = wrong(schema);
        if (bad === undefined) continue;
        const where = `${op.method} ${op.path} ${name}`;
        const body = { ...(valid(op.body) as object), [name]: bad };
        expectContractWords(await t.call(KEYS[op.iface][0], op.method, path(op), body), name, where);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("names an integer path parameter that is not one, on every route", async () => {
    let checked = 0;
    for (const op of operations) {
      for (const param of op.pathParams.filter((p) => p.schema?.type === "integer")) {
        const url = op.pathParams.reduce(
          (p, other) => p.replace(`{${other.name}}`, other === param ? "abc" : "1"),
          op.path,
        );
        expectContractWords(
          await t.call(KEYS[op.iface][0], op.method, url, op.body ? {} : undefined),
          param.name,
          `${op.method} ${op.path}`,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe("GraphQL error wording", () => {
  it("speaks the same words for variables and literals", async () => {
    const variable = await t.graphql(
      "acme-key",
      "mutation($i: AssetTypeInput!) { upsertAssetType(input: $i) { id } }",
      { i: { usesRefrigerant: 1 } },
    );
    expect(variable.body.errors.map((e: { message: string }) => e.message)).toEqual([
      "i.name is required",
      "i.usesRefrigerant must be true or false",
    ]);
    expect(variable.body.errors[0].extensions).toMatchObject({ code: "invalidInputDataException", field: "i.name" });
    const literal = await t.graphql("acme-key", "mutation { upsertAssetType(input: {name: 5}) { id } }");
    expect(literal.body.errors[0].message).not.toMatch(JARGON);
    expect(literal.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });
});

describe("GET /me", () => {
  it("gives the buyerFacilityId a work order create body needs", async () => {
    expect((await t.call("acme-key", "GET", "/v1/buyer/me")).body.data).toMatchObject({
      buyerFacilityId: t.fixture.refs["acme-hq"],
      buyerCompanyId: t.fixture.refs.acme,
    });
  });
});
