// Automatic persisted queries over POST and GET, and the caching headers of GraphQL answers (docs/api.md,
// "GraphQL persisted queries and caching"): register with the document and its hash, then send the hash
// alone; an unknown hash is 404 PersistedQueryNotFound; a GET query's answer may be kept privately and
// revalidated with its ETag (304); POST answers and mutations are never cached.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");
const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

async function post(body: unknown, key: string | null = "acme-key") {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { ...(key ? t.headers(key) : {}), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function get(params: Record<string, unknown>, headers: Record<string, string> = {}, key = "acme-key") {
  const search = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  const response = await fetch(`${t.url}/graphql?${search}`, { headers: { ...t.headers(key), ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const LOCATIONS = "query Board($limit: Int) { locations(limit: $limit) { count data { id name } } }";

describe("automatic persisted queries", () => {
  it("answers an unknown hash with PersistedQueryNotFound (404), over POST and GET", async () => {
    const query = "{ me { email } __typename }";
    for (const reply of [await post({ extensions: persisted(query) }), await get({ extensions: persisted(query) })]) {
      expect(reply.status).toBe(404);
      const body = JSON.parse(reply.text);
      expect(body.data).toBeUndefined();
      expect(body.errors[0].message).toBe("PersistedQueryNotFound");
      expect(body.errors[0].extensions).toEqual({
        code: "NotFoundException",
        traceId: reply.headers.get("x-trace-id"),
      });
      expect(reply.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("registers a document sent with its hash, then serves the hash alone over POST and GET", async () => {
    const registered = await post({ query: LOCATIONS, variables: { limit: 2 }, extensions: persisted(LOCATIONS) });
    expect(registered.status).toBe(200);
    const expected = JSON.parse(registered.text).data;
    expect(expected.locations.data).toHaveLength(2);
    const byPost = await post({ variables: { limit: 2 }, extensions: persisted(LOCATIONS) });
    expect(byPost.status).toBe(200);
    expect(JSON.parse(byPost.text).data).toEqual(expected);
    const byGet = await get({ variables: { limit: 2 }, extensions: persisted(LOCATIONS) });
    expect(byGet.status).toBe(200);
    expect(JSON.parse(byGet.text).data).toEqual(expected);
    // Another key uses the same document with its own data.
    const other = await get({ variables: { limit: 2 }, extensions: persisted(LOCATIONS) }, {}, "globex-key");
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text).data).not.toEqual(expected);
  });

  it("refuses a hash that does not match the document, and another version (400)", async () => {
    const wrong = await post({
      query: "{ ping }",
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256("{ me { email } }") } },
    });
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.text).errors[0]).toMatchObject({
      message: "provided sha does not match query",
      extensions: { code: "invalidInputDataException" },
    });
    const version = await post({ extensions: { persistedQuery: { version: 2, sha256Hash: sha256("{ ping }") } } });
    expect(version.status).toBe(400);
    expect(JSON.parse(version.text).errors[0].message).toMatch(/version must be 1/);
  });

  it("stores nothing for a request whose key does not authenticate", async () => {
    const query = "{ ping __typename }";
    const refused = await post({ query, extensions: persisted(query) }, null);
    expect(refused.status).toBe(401);
    expect((await post({ extensions: persisted(query) })).status).toBe(404);
  });

  it("serves persisted mutations by POST only, never cached", async () => {
    const mutation = 'mutation { upsertAssetType(input: {name: "Persisted"}) { name } }';
    const first = await post({ query: mutation, extensions: persisted(mutation) });
    expect(first.status).toBe(200);
    const again = await post({ extensions: persisted(mutation) });
    expect(JSON.parse(again.text).data).toEqual({ upsertAssetType: { name: "Persisted" } });
    expect(again.headers.get("cache-control")).toBe("no-store");
    const byGet = await get({ extensions: persisted(mutation) });
    expect(byGet.status).toBeGreaterThanOrEqual(400);
    expect(byGet.headers.get("cache-control")).toBe("no-store");
    expect(byGet.headers.get("etag")).toBeNull();
  });
});

describe("caching headers", () => {
  it("lets a client keep a GET query's answer privately and revalidate it with its ETag (304)", async () => {
    await post({ query: LOCATIONS, variables: { limit: 3 }, extensions: persisted(LOCATIONS) });
    const params = { variables: { limit: 3 }, extensions: persisted(LOCATIONS) };
    const first = await get(params);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("private, max-age=10");
    expect(first.headers.get("vary")).toBe("Accept, X-API-KEY, SVC-KEY");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const revalidated = await get(params, { "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
    expect(revalidated.headers.get("etag")).toBe(etag);
    // Other data (another page size): another ETag, answered in full.
    const other = await get({ ...params, variables: { limit: 1 } }, { "if-none-match": etag });
    expect(other.status).toBe(200);
    expect(other.headers.get("etag")).not.toBe(etag);
    // A plain GET query is cached the same way.
    const plain = await get({ query: "{ me { email } }" });
    expect(plain.headers.get("cache-control")).toBe("private, max-age=10");
  });

  it("never caches POST answers, errors or partial answers", async () => {
    const byPost = await post({ query: "{ ping }" });
    expect(byPost.headers.get("cache-control")).toBe("no-store");
    expect(byPost.headers.get("etag")).toBeNull();
    const failed = await get({ query: "{ me { email } workOrder(id: 999999) { id } }" });
    expect(failed.status).toBe(200);
    expect(failed.headers.get("cache-control")).toBe("no-store");
    const invalid = await get({ query: "{ nope }" });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("cache-control")).toBe("no-store");
  });
});
