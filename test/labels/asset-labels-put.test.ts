// PUT /asset/assets/{assetId}/labels: body validation, the live-catalog rule, full replacement in one
// transaction, the write permission (read-only contacts), foreign records, and the supplier side.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { issueKey } from "../../src/operator/keys.ts";

let t: TestApp;
let refs: Record<string, number>;
const L: Record<string, number> = {};
/** Headers of keys issued by the tests (read-only contacts). */
const issued: Record<string, Record<string, string>> = {};

const put = (key: string, assetId: number | string, body?: unknown, iface = "buyer") =>
  t.call(issued[key] ? null : key, "PUT", `/v1/${iface}/asset/assets/${assetId}/labels`, body, issued[key]);
const linked = async (assetId: number) =>
  (await t.db.assetLabelLink.findMany({ where: { assetId }, orderBy: { labelId: "asc" } })).map((l) => l.labelId);
const setLinks = async (assetId: number, labelIds: number[]) => {
  await t.db.assetLabelLink.deleteMany({ where: { assetId } });
  await t.db.assetLabelLink.createMany({ data: labelIds.map((labelId) => ({ assetId, labelId })) });
};

async function readOnlyKey(
  ref: string,
  facility: { buyerFacilityId?: number; supplierFacilityId?: number },
  kind: "buyer" | "supplier",
) {
  const email = `${ref}@example.test`;
  await t.db.contact.create({ data: { email, nameGiven: "Read", nameFamily: "Only", roles: ["viewer"], ...facility } });
  const key = await issueKey(t.db, { contactEmail: email, kind, rateLimit: { requests: 1000, windowSeconds: 20 } });
  issued[ref] = { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey };
}

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
  const label = async (
    ref: string,
    buyerCompanyId: number,
    kind: "asset" | "work_order" = "asset",
    deletedAt: Date | null = null,
  ) => (L[ref] = (await t.db.label.create({ data: { buyerCompanyId, kind, name: ref, deletedAt } })).id);
  await label("a", refs.acme);
  await label("b", refs.acme);
  await label("c", refs.acme);
  await label("deleted", refs.acme, "asset", new Date());
  await label("g", refs.globex);
  await readOnlyKey("viewer", { buyerFacilityId: refs["acme-hq"] }, "buyer");
  await readOnlyKey("inhouse-viewer", { supplierFacilityId: refs["inhouse-west"] }, "supplier");
});
afterAll(() => t?.close());

describe("buyer PUT labels", () => {
  it("applies the set and returns the active labels as a list envelope", async () => {
    const reply = await put("acme-key", refs["rtu-1"], { ids: [L.b, L.a] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      type: "Label",
      status: "ok",
      count: 2,
      data: [
        { id: L.a, name: "a", color: null, buyerCompanyId: refs.acme },
        { id: L.b, name: "b", color: null, buyerCompanyId: refs.acme },
      ],
    });
    expect(await linked(refs["rtu-1"])).toEqual([L.a, L.b]);
  });

  it("replaces the whole set: links outside it go, missing ones are added", async () => {
    await setLinks(refs["rtu-1"], [L.a, L.b]);
    const reply = await put("acme-key", refs["rtu-1"], { ids: [L.b, L.c, refs.critical] });
    expect(reply.body.count).toBe(3);
    expect(reply.body.data.map((l: { id: number }) => l.id)).toEqual([refs.critical, L.b, L.c].sort((x, y) => x - y));
    expect(await linked(refs["rtu-1"])).toEqual([refs.critical, L.b, L.c].sort((x, y) => x - y));
  });

  it("an empty array clears every label", async () => {
    await setLinks(refs["rtu-1"], [L.a, L.c]);
    const reply = await put("acme-key", refs["rtu-1"], { ids: [] });
    expect(reply.body).toEqual({ type: "Label", status: "ok", count: 0, data: [] });
    expect(await linked(refs["rtu-1"])).toEqual([]);
  });

  it("accepts up to 1000 ids", async () => {
    const reply = await put("acme-key", refs["rtu-1"], {
      ids: Array.from({ length: 1000 }, (_, i) => [L.a, L.b][i % 2]),
    });
    expect(reply.body).toMatchObject({ count: 2 });
  });

  it("treats a repeated id as one", async () => {
    const reply = await put("acme-key", refs["rtu-1"], { ids: [L.a, L.a] });
    expect(reply.body).toMatchObject({ count: 1, data: [{ id: L.a }] });
    expect(await linked(refs["rtu-1"])).toEqual([L.a]);
  });

  it("drops a link to a label deleted since it was applied", async () => {
    const doomed = (await t.db.label.create({ data: { buyerCompanyId: refs.acme, kind: "asset", name: "doomed" } })).id;
    await setLinks(refs["rtu-1"], [L.a, doomed]);
    await t.db.label.update({ where: { id: doomed }, data: { deletedAt: new Date() } });
    const reply = await put("acme-key", refs["rtu-1"], { ids: [L.a] });
    expect(reply.body).toMatchObject({ count: 1, data: [{ id: L.a }] });
    expect(await linked(refs["rtu-1"])).toEqual([L.a]);
  });

  it("rejects a missing, non-array or non-whole-number ids with 400, never 500, writing nothing", async () => {
    await setLinks(refs["rtu-1"], [L.a]);
    const bodies: unknown[] = [
      undefined,
      {},
      { ids: null },
      { ids: "1" },
      { ids: 5 },
      { ids: { 0: L.a } },
      { ids: [1.5] },
      { ids: [String(L.b)] },
      { ids: [null] },
      { ids: [true] },
      { ids: [[L.b]] },
      { ids: [L.b, 2.5] },
      { ids: [1e300] },
      { idz: [L.b] },
      [L.b],
      "ids",
      "{not json",
      "null",
      { ids: Array.from({ length: 1001 }, () => L.b) },
    ];
    for (const body of bodies) {
      const reply = await put("acme-key", refs["rtu-1"], body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type, JSON.stringify(body)).toBe("invalidInputDataException");
    }
    expect(await linked(refs["rtu-1"])).toEqual([L.a]);
  });

  it("rejects unknown, deleted, work order and other companies' label ids, listing each offender, writing nothing", async () => {
    await setLinks(refs["rtu-1"], [L.a]);
    const offenders = [987654, L.deleted, refs.urgent, L.g];
    for (const bad of offenders) {
      const reply = await put("acme-key", refs["rtu-1"], { ids: [L.b, bad] });
      expect(reply.status, String(bad)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
      expect(reply.body.message).toContain(String(bad));
    }
    const all = await put("acme-key", refs["rtu-1"], { ids: [L.b, ...offenders] });
    expect(all.status).toBe(400);
    const listed = all.body.message.match(/\d+/g).map(Number);
    expect(listed).toEqual(expect.arrayContaining(offenders));
    expect(listed).not.toContain(L.b);
    expect(await linked(refs["rtu-1"])).toEqual([L.a]);
  });

  it("gives an unknown or foreign asset the same 400 as a denied write", async () => {
    const unknown = await put("acme-key", 987654, { ids: [L.a] });
    const foreign = await put("acme-key", refs["g-asset"], { ids: [L.g] });
    const denied = await put("viewer", refs["rtu-1"], { ids: [L.a] });
    for (const reply of [unknown, foreign, denied]) {
      expect(reply.status).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    const shape = (message: string, id: number) => message.replace(String(id), "N");
    expect(shape(foreign.body.message, refs["g-asset"])).toBe(shape(unknown.body.message, 987654));
    expect(shape(denied.body.message, refs["rtu-1"])).toBe(shape(unknown.body.message, 987654));
    expect(await linked(refs["g-asset"])).toEqual([]);
    expect((await put("acme-key", "abc", { ids: [] })).status).toBe(400);
  });

  it("needs asset write permission: a read-only contact's key reads the catalog but cannot write", async () => {
    await setLinks(refs["rtu-1"], [L.a]);
    expect(
      (await t.call(null, "GET", "/v1/buyer/asset/asset_labels", undefined, issued.viewer)).body.count,
    ).toBeGreaterThan(0);
    for (const ids of [[L.b], []]) {
      expect((await put("viewer", refs["rtu-1"], { ids })).status).toBe(400);
    }
    expect(await linked(refs["rtu-1"])).toEqual([L.a]);
  });

  it("lets another buyer label its own asset with its own labels only", async () => {
    expect((await put("globex-key", refs["g-asset"], { ids: [L.a] })).status).toBe(400);
    const reply = await put("globex-key", refs["g-asset"], { ids: [L.g] });
    expect(reply.body).toMatchObject({ count: 1, data: [{ id: L.g, buyerCompanyId: refs.globex }] });
    expect(await linked(refs["g-asset"])).toEqual([L.g]);
  });

  it("serialises concurrent replacements: the result is always one request's set, never a mix", async () => {
    for (let round = 0; round < 8; round++) {
      await setLinks(refs["rtu-1"], []);
      const replies = await Promise.all([
        put("acme-key", refs["rtu-1"], { ids: [L.a] }),
        put("acme-key", refs["rtu-1"], { ids: [L.b, L.c] }),
      ]);
      expect(replies.map((r) => r.status)).toEqual([200, 200]);
      expect([[L.a], [L.b, L.c]]).toContainEqual(await linked(refs["rtu-1"]));
    }
  });
});

describe("supplier PUT labels", () => {
  it("lets an internal-team key with write permission label its buyer's assets", async () => {
    await setLinks(refs["rtu-1"], []);
    const reply = await put("inhouse-key", refs["rtu-1"], { ids: [L.c] }, "supplier");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "Label", count: 1, data: [{ id: L.c }] });
    expect(await linked(refs["rtu-1"])).toEqual([L.c]);
  });

  it("applies the same rules to an internal team: catalog, foreign assets, permission", async () => {
    await setLinks(refs["rtu-1"], [L.c]);
    expect((await put("inhouse-key", refs["rtu-1"], { ids: [L.g] }, "supplier")).status).toBe(400);
    expect((await put("inhouse-key", refs["rtu-1"], { ids: [1.5] }, "supplier")).status).toBe(400);
    expect((await put("inhouse-key", refs["g-asset"], { ids: [] }, "supplier")).status).toBe(400);
    expect((await put("inhouse-viewer", refs["rtu-1"], { ids: [] }, "supplier")).status).toBe(400);
    expect(await linked(refs["rtu-1"])).toEqual([L.c]);
    expect(await linked(refs["g-asset"])).toEqual([L.g]);
  });

  it("gives a third-party supplier key 400 even with asset write permission", async () => {
    await setLinks(refs["rtu-1"], [L.c]);
    for (const key of ["coolco-key", "unrelated-supplier-key"]) {
      for (const ids of [[L.a], []]) {
        const reply = await put(key, refs["rtu-1"], { ids }, "supplier");
        expect(reply.status, key).toBe(400);
        expect(reply.body.type).toBe("invalidInputDataException");
      }
    }
    expect(await linked(refs["rtu-1"])).toEqual([L.c]);
  });
});
