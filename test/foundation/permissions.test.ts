// Permissions are enforced the same way on REST and GraphQL: a key whose contact lacks the permission a
// write declares gets the contract's 400 and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, withReadOnlyKey, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp({ fixture: withReadOnlyKey() }); // plus a read-only Acme key
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

describe("asset types need asset write permission", () => {
  it("refuses a read-only key on REST and GraphQL, writing nothing", async () => {
    const before = await t.db.assetType.count();
    const rest = await t.call("acme-readonly-key", "POST", "/v1/buyer/asset/asset_types", { name: "Read-only type" });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
    expect(rest.body.message).toMatch(/may not write assets/);
    const gql = await t.graphql(
      "acme-readonly-key",
      `mutation { upsertAssetType(input: {name: "Read-only type"}) { id } }`,
    );
    expect(gql.body.errors[0].extensions.code).toBe("invalidInputDataException");
    expect(gql.body.errors[0].message).toBe(rest.body.message);
    const update = await t.call("acme-readonly-key", "POST", "/v1/buyer/asset/asset_types", {
      id: refs.rtu,
      name: "Renamed",
    });
    expect(update.status).toBe(400);
    expect(await t.db.assetType.count()).toBe(before);
    expect((await t.db.assetType.findUniqueOrThrow({ where: { id: refs.rtu } })).name).not.toBe("Renamed");
  });

  it("still lets a writer upsert", async () => {
    expect((await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "Writer type" })).status).toBe(200);
  });
});

describe("location PATCH needs location write permission", () => {
  it("answers a read-only key like an unknown location, writing nothing", async () => {
    const path = (id: number) => `/v1/buyer/location/locations/${id}`;
    const denied = await t.call("acme-readonly-key", "PATCH", path(refs["store-2"]), {
      locationTypeDetails: { storeNumber: "999" },
    });
    const unknown = await t.call("acme-key", "PATCH", path(999_999), { locationTypeDetails: { storeNumber: "999" } });
    expect(denied.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(denied.body.message.replace(String(refs["store-2"]), "N")).toBe(unknown.body.message.replace("999999", "N"));
    const stored = await t.db.location.findUniqueOrThrow({ where: { id: refs["store-2"] } });
    expect((stored.locationTypeDetails as Record<string, unknown> | null)?.storeNumber).not.toBe("999");
  });
});
