// Idempotency-Key on REST writes: the same key and request within 24 hours answers the stored first
// answer without doing the work again; another request with the key is 422; keys are per API key;
// concurrent duplicates do the work once; the answer commits with the work or not at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { once, requestFingerprint } from "../../src/schema/core/idempotency.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const TYPES = "/v1/buyer/asset/asset_types";
let n = 0;
const freshKey = () => `key-${Date.now()}-${++n}`;
const withKey = (key: string) => ({ "Idempotency-Key": key });
const typesNamed = (name: string) => t.db.assetType.count({ where: { name } });

describe("Idempotency-Key", () => {
  it("answers a repeated request with the stored first answer, without doing the work again", async () => {
    const key = freshKey();
    const first = await t.call(
      "acme-key",
      "POST",
      TYPES,
      { name: "Idempotent chiller", usesRefrigerant: true },
      withKey(key),
    );
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same body written another way is the same request.
    const again = await t.call(
      "acme-key",
      "POST",
      TYPES,
      `{ "usesRefrigerant": true,  "name": "Idempotent chiller" }`,
      withKey(key),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await typesNamed("Idempotent chiller")).toBe(1);
    // Without a key, the same request is another write.
    await t.call("acme-key", "POST", TYPES, { name: "Idempotent chiller", usesRefrigerant: true });
    expect(await typesNamed("Idempotent chiller")).toBe(2);
  });

  it("refuses the key for another request (body, path or method) with 422, doing nothing", async () => {
    const key = freshKey();
    expect((await t.call("acme-key", "POST", TYPES, { name: "Keyed A" }, withKey(key))).status).toBe(200);
    const other = await t.call("acme-key", "POST", TYPES, { name: "Keyed B" }, withKey(key));
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      message: expect.stringContaining("Idempotency-Key"),
      type: "UnprocessableEntityException",
      status: "error",
      traceId: expect.any(String),
    });
    const otherPath = await t.call(
      "acme-key",
      "PATCH",
      `/v1/buyer/location/locations/${refs["store-1"]}`,
      { locationTypeDetails: { sqft: 1 } },
      withKey(key),
    );
    expect(otherPath.status).toBe(422);
    expect(await typesNamed("Keyed B")).toBe(0);
    expect(
      (await t.db.location.findUniqueOrThrow({ where: { id: refs["store-1"] } })).locationTypeDetails,
    ).not.toMatchObject({ sqft: 1 });
  });

  it("keeps keys per API key", async () => {
    const key = freshKey();
    const acme = await t.call("acme-key", "POST", TYPES, { name: "Per key" }, withKey(key));
    const globex = await t.call("globex-key", "POST", TYPES, { name: "Per key" }, withKey(key));
    expect(globex.status).toBe(200);
    expect(globex.headers.get("idempotent-replayed")).toBeNull();
    expect(globex.body.data.id).not.toBe(acme.body.data.id);
    expect(globex.body.data.buyerCompanyId).toBe(refs.globex);
  });

  it("does the work once for concurrent duplicates: the others wait and get the same answer", async () => {
    const key = freshKey();
    const body = {
      title: "Concurrent retries",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
    };
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.call("acme-key-default-limit", "POST", "/v1/buyer/work_order/work_orders", body, withKey(key)),
      ),
    );
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length + replies.filter((r) => r.status === 429).length).toBe(8); // the default limit may refuse some
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    expect(ok.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(ok.length - 1);
    const created = await t.db.workOrder.findMany({ where: { title: "Concurrent retries" } });
    expect(created).toHaveLength(1);
    // …and its events were written once, with it.
    expect(await t.db.outboxEvent.count({ where: { workOrderId: created[0].id } })).toBe(1);
  });

  it("stores no error answer: nothing was done, so the corrected request with the same key runs", async () => {
    const key = freshKey();
    const refused = await t.call("acme-key", "POST", TYPES, { name: " " }, withKey(key));
    expect(refused.status).toBe(400);
    expect((await t.call("acme-key", "POST", TYPES, { name: " " }, withKey(key))).status).toBe(400);
    const fixed = await t.call("acme-key", "POST", TYPES, { name: "Fixed later" }, withKey(key));
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
  });

  it("forgets an answer after 24 hours", async () => {
    const key = freshKey();
    await t.call("acme-key", "POST", TYPES, { name: "Day old" }, withKey(key));
    await t.db.idempotencyKey.updateMany({
      where: { key },
      data: { createdAt: new Date(Date.now() - 24 * 3_600_000 - 1_000) },
    });
    const later = await t.call("acme-key", "POST", TYPES, { name: "Day old" }, withKey(key));
    expect(later.status).toBe(200);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(await typesNamed("Day old")).toBe(2);
  });

  it("refuses a malformed key with 400 and ignores keys on reads", async () => {
    for (const bad of ["", "x".repeat(256), "naïve"]) {
      const reply = await t.call("acme-key", "POST", TYPES, { name: "Bad key" }, withKey(bad));
      expect(reply.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await typesNamed("Bad key")).toBe(0);
    expect((await t.call("acme-key", "GET", TYPES, undefined, withKey("read-key"))).status).toBe(200);
  });

  it("commits the answer with the work: when storing the answer fails, the work is rolled back too", async () => {
    const viewerKey = await t.db.apiKey.findFirstOrThrow();
    const request = {
      apiKeyId: viewerKey.id,
      key: freshKey(),
      fingerprint: requestFingerprint("POST", "/x", {}),
      now: new Date(),
    };
    // PostgreSQL text cannot hold NUL: the answer's UPDATE fails after the work ran in the transaction.
    const attempt = once(t.db, request, async (db) => {
      await db.assetType.create({ data: { buyerCompanyId: refs.acme, name: "Rolled back with its answer" } });
      return { status: 200, body: "\u0000" };
    });
    await expect(attempt).rejects.toThrow();
    expect(await typesNamed("Rolled back with its answer")).toBe(0);
    expect(await t.db.idempotencyKey.count({ where: { key: request.key } })).toBe(0);
  });
});

describe("the OpenAPI document", () => {
  it("declares the Idempotency-Key header on every write and on no read", async () => {
    const doc = (await t.call(null, "GET", "/v1/buyer/openapi.json")).body;
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      name: "Idempotency-Key",
      in: "header",
      required: false,
    });
    let writes = 0;
    for (const [path, operations] of Object.entries(
      doc.paths as Record<
        string,
        Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, unknown> }>
      >,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation.parameters ?? []).some((p) => p.$ref === "#/components/parameters/IdempotencyKey");
        expect(declared, `${method} ${path}`).toBe(method !== "get");
        if (method !== "get") {
          writes++;
          expect(operation.responses["422"], `${method} ${path}`).toBeDefined();
        }
        expect(operation.responses["503"], `${method} ${path}`).toBeDefined();
      }
    }
    expect(writes).toBeGreaterThan(5);
  });
});
