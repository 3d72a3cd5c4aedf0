// Every `<plural>Connection` root field of the dashboard graph, found by introspection so a new one is
// covered without being listed here: it answers a key of its interfaces (and refuses the others), pages
// by each of its order fields in both directions without repeating a row, and an empty id list in its
// filter matches nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const KEYS = ["acme-key", "coolco-key", "inhouse-partner-key"];

interface Field {
  name: string;
  args: { name: string; type: { name: string | null; ofType: { ofType: { name: string } | null } | null } }[];
}

async function introspect() {
  const reply = await t.graphql(
    "acme-key",
    "{ __schema { queryType { fields { name args { name type { name ofType { ofType { name } } } } } } } }",
  );
  return reply.body.data.__schema.queryType.fields as Field[];
}

async function enumValues(name: string): Promise<string[]> {
  const reply = await t.graphql("acme-key", `query($n: String!) { __type(name: $n) { enumValues { name } } }`, {
    n: name,
  });
  return reply.body.data.__type.enumValues.map((v: { name: string }) => v.name);
}

async function inputFields(name: string): Promise<string[]> {
  const reply = await t.graphql("acme-key", `query($n: String!) { __type(name: $n) { inputFields { name } } }`, {
    n: name,
  });
  return reply.body.data.__type.inputFields.map((f: { name: string }) => f.name);
}

describe("every connection root field", () => {
  it("answers its interfaces' keys, pages by every order field both ways, and narrows by an empty id list", async () => {
    const connections = (await introspect()).filter((f) => f.name.endsWith("Connection"));
    expect(connections.length).toBeGreaterThan(20);
    for (const field of connections) {
      const filterType = field.args.find((a) => a.name === "filter")?.type.name as string;
      const orderType = field.args.find((a) => a.name === "orderBy")?.type.ofType?.ofType?.name as string;
      const orderFields = await enumValues(`${orderType}Field`);
      const query = `query($first: Int, $after: String, $orderBy: [${orderType}!], $filter: ${filterType}) {
        ${field.name}(first: $first, after: $after, orderBy: $orderBy, filter: $filter) {
          totalCount edges { cursor node { __typename } } pageInfo { hasNextPage endCursor }
        }
      }`;
      const answers = await Promise.all(KEYS.map((key) => t.graphql(key, query, { first: 2 })));
      const readers = KEYS.filter((_, i) => !answers[i].body.errors);
      for (const [i, reply] of answers.entries())
        if (reply.body.errors)
          expect(reply.body.errors[0].extensions.code, `${field.name} ${KEYS[i]}`).toBe("ForbiddenException");
      expect(readers.length, field.name).toBeGreaterThan(0);
      const key = readers[0];
      for (const orderField of orderFields) {
        for (const direction of ["asc", "desc"]) {
          const orderBy = [{ field: orderField, direction }];
          const first = await t.graphql(key, query, { first: 1, orderBy });
          expect(first.body.errors, `${field.name} ${orderField} ${direction}`).toBeUndefined();
          const page = first.body.data[field.name];
          if (!page.pageInfo.hasNextPage) continue;
          const next = await t.graphql(key, query, { first: 1, orderBy, after: page.pageInfo.endCursor });
          expect(next.body.errors, `${field.name} ${orderField} ${direction} page 2`).toBeUndefined();
          const seen = [...page.edges, ...next.body.data[field.name].edges].map((e: { cursor: string }) => e.cursor);
          expect(new Set(seen).size).toBe(seen.length);
        }
      }
      expect(await inputFields(filterType), filterType).toContain("ids");
      const none = await t.graphql(key, query, { filter: { ids: [] } });
      expect(none.body.data[field.name].totalCount, field.name).toBe(0);
    }
  });
});
