// GraphQL serves the same schema and data as REST, over HTTP and over graphql-ws.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

describe("GraphQL over HTTP", () => {
  it("returns the same locations as REST, with relations", async () => {
    const rest = await t.call("acme-key", "GET", "/v1/buyer/location/locations?sort_by=name");
    const gql = await t.graphql(
      "acme-key",
      `{ locations(sort_by: "name") { count data { id name currency region { name } } } }`,
    );
    expect(gql.body.data.locations.count).toBe(rest.body.count);
    expect(gql.body.data.locations.data.map((l: { id: number }) => l.id)).toEqual(
      rest.body.data.map((l: { id: number }) => l.id),
    );
    expect(gql.body.data.locations.data[0].region).toEqual({ name: "West" });
  });

  it("filters with the same rules", async () => {
    const gql = await t.graphql("acme-key", `query($f: JSON) { locations(filter: $f) { count } }`, {
      f: { currency: "CAD,USD", id: [refs["store-2"]] },
    });
    expect(gql.body.data.locations.count).toBe(1);
    const bad = await t.graphql("acme-key", `{ locations(filter: {colour: "red"}) { count } }`);
    expect(bad.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });

  it("runs mutations with the REST rules and checks the key's interface", async () => {
    const created = await t.graphql(
      "acme-key",
      `mutation($i: AssetTypeInput!) { upsertAssetType(input: $i) { id name buyerCompanyId } }`,
      { i: { name: "Ice machine" } },
    );
    expect(created.body.data.upsertAssetType).toMatchObject({ name: "Ice machine", buyerCompanyId: refs.acme });
    const negative = await t.graphql(
      "acme-key",
      `mutation { upsertAssetType(input: {name: "x", fullChargeLb: -1}) { id } }`,
    );
    expect(negative.body.errors[0].extensions.code).toBe("invalidInputDataException");
    const supplier = await t.graphql("coolco-key", `mutation { upsertAssetType(input: {name: "x"}) { id } }`);
    expect(supplier.body.errors[0].extensions.code).toBe("ForbiddenException");
    expect(await t.db.assetType.count({ where: { name: "x" } })).toBe(0);
  });

  it("answers a foreign id with REST's error, as a field that failed (docs/api.md)", async () => {
    const reply = await t.graphql("globex-key", `{ location(id: ${refs["store-1"]}) { name } }`);
    expect(reply.body.data).toEqual({ location: null });
    expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });

  it("resolves nested relations on every row of a page", async () => {
    await t.db.location.createMany({
      data: Array.from({ length: 8 }, (_, i) => ({ buyerCompanyId: refs.acme, name: `N+1 ${i}`, regionId: refs.west })),
    });
    const gql = await t.graphql(
      "acme-key",
      `{ locations(limit: 10) { data { id region { id name locations { id } } } } }`,
    );
    expect(gql.body.data.locations.data).toHaveLength(10);
    expect(gql.body.data.locations.data.every((l: { region: { name: string } }) => l.region.name === "West")).toBe(
      true,
    );
  });
});

describe("GraphQL over websockets", () => {
  function client(connectionParams: Record<string, string>) {
    return createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: true,
    });
  }

  it("authenticates with connectionParams and runs operations", async () => {
    const ws = client(t.headers("acme-key"));
    const result = await new Promise<any>((resolve, reject) => {
      ws.subscribe({ query: "{ me { email } ping }" }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(result.data).toEqual({ me: { email: "alice@acme.example" }, ping: "pong" });
    await ws.dispose();
  });

  it("closes the connection for a bad key", async () => {
    const ws = client({ "X-API-KEY": "wrong", "SVC-KEY": "wrong" });
    const error = await new Promise<any>((resolve) => {
      ws.subscribe(
        { query: "{ ping }" },
        { next: () => resolve(new Error("got data")), error: resolve, complete: () => undefined },
      );
    });
    expect(error.code).toBe(4403);
    await ws.dispose();
  });
});

describe("query depth", () => {
  it("refuses queries nested deeper than the limit", async () => {
    const nest = (levels: number) => {
      let selection = "id";
      // From the outside in: region(id) { locations { region { locations { … id } } } }
      for (let i = levels - 1; i >= 0; i--)
        selection = i % 2 ? `region { ${selection} }` : `locations { ${selection} }`;
      return `{ region(id: ${refs.west}) { ${selection} } }`;
    };
    const shallow = await t.graphql("acme-key", nest(4));
    expect(shallow.body.errors).toBeUndefined();
    const deep = await t.graphql("acme-key", nest(12));
    expect(deep.body.data).toBeUndefined();
    expect(deep.body.errors[0].message).toMatch(/depth/i);
  });
});
