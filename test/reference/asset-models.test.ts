// Asset models: POST validation and tenant rules; the fuzzy match by pg_trgm similarity within one
// asset type, with the 0.3 threshold tested from both sides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { issueKey } from "../../src/operator/keys.ts";

let t: TestApp;
let refs: Record<string, number>;
let viewerHeaders: Record<string, string>;
const POST = "/v1/buyer/asset/asset_models";
const fuzzy = (name: string, typeId: number | string, key = "acme-key") =>
  t.call(key, "GET", `/v1/buyer/asset/asset_models/fuzzy/${encodeURIComponent(name)}/${typeId}`);

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
  await t.db.contact.create({
    data: {
      email: "viewer@acme.example",
      nameGiven: "Vera",
      nameFamily: "Viewer",
      roles: ["viewer"],
      buyerFacilityId: refs["acme-hq"],
    },
  });
  const key = await issueKey(t.db, {
    contactEmail: "viewer@acme.example",
    kind: "buyer",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  viewerHeaders = { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey };
});
afterAll(() => t?.close());

describe("POST asset model", () => {
  it("creates a model with attachments; buyerCompanyId comes from the key", async () => {
    const body = {
      modelName: "  Lennox XC25  ",
      assetTypeId: refs.rtu,
      buyerCompanyId: refs.globex,
      manuals: [{ name: "IOM", url: "https://docs.example.com/xc25/iom.pdf" }],
      specs: [{ name: "Spec sheet", url: "http://docs.example.com/xc25/spec.pdf", contentType: "application/pdf" }],
    };
    const reply = await t.call("acme-key", "POST", POST, body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "AssetModel",
      status: "ok",
      data: {
        modelName: "Lennox XC25",
        assetTypeId: refs.rtu,
        buyerCompanyId: refs.acme,
        manuals: body.manuals,
        specs: body.specs,
      },
    });
    const stored = await t.db.assetModel.findUniqueOrThrow({ where: { id: reply.body.data.id } });
    expect(stored).toMatchObject({ modelName: "Lennox XC25", buyerCompanyId: refs.acme, manuals: body.manuals });
  });

  it("defaults manuals and specs to empty lists", async () => {
    const reply = await t.call("acme-key", "POST", POST, {
      modelName: "Bare model",
      assetTypeId: refs.rtu,
      specs: null,
    });
    expect(reply.body.data).toMatchObject({ modelName: "Bare model", manuals: [], specs: [] });
  });

  it("rejects missing or blank fields, bad attachments and bad urls with 400, creating nothing", async () => {
    const before = await t.db.assetModel.count();
    const ok = { modelName: "X", assetTypeId: refs.rtu };
    const bodies: unknown[] = [
      undefined,
      {},
      { modelName: "X" },
      { assetTypeId: refs.rtu },
      { ...ok, modelName: "   " },
      { ...ok, modelName: 5 },
      { ...ok, assetTypeId: "abc" },
      { ...ok, assetTypeId: 1.5 },
      { ...ok, manuals: "x" },
      { ...ok, manuals: [{ url: "https://a.example/x" }] },
      { ...ok, manuals: [{ name: "m" }] },
      { ...ok, manuals: [{ name: " ", url: "https://a.example/x" }] },
      ...["not a url", "ftp://a.example/x.pdf", "javascript:alert(1)", "https://", "/relative/x.pdf", ""].map(
        (url) => ({ ...ok, specs: [{ name: "s", url }] }),
      ),
      [ok],
      "{oops",
    ];
    for (const body of bodies) {
      const reply = await t.call("acme-key", "POST", POST, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    expect(await t.db.assetModel.count()).toBe(before);
  });

  it("needs an asset type of the key's company and asset write permission", async () => {
    const before = await t.db.assetModel.count();
    for (const [key, typeId] of [
      ["acme-key", refs["g-rtu"]],
      ["acme-key", 987654],
      ["globex-key", refs.rtu],
    ] as const) {
      const reply = await t.call(key, "POST", POST, { modelName: "Sneaky", assetTypeId: typeId });
      expect(reply.status, `${key} ${typeId}`).toBe(400);
      expect(reply.body.message).toContain(String(typeId));
    }
    const denied = await t.call(null, "POST", POST, { modelName: "Read only", assetTypeId: refs.rtu }, viewerHeaders);
    expect(denied.status).toBe(400);
    expect(await t.db.assetModel.count()).toBe(before);
    // The same key reads fine: the 400 above is the permission, not the key.
    expect(
      (await t.call(null, "GET", `/v1/buyer/asset/asset_types/${refs.rtu}`, undefined, viewerHeaders)).status,
    ).toBe(200);
  });

  it("is not on the supplier interface", async () => {
    expect(
      (
        await t.call("inhouse-key", "POST", "/v1/supplier/asset/asset_models", {
          modelName: "X",
          assetTypeId: refs.rtu,
        })
      ).status,
    ).toBe(404);
  });
});

describe("fuzzy model match", () => {
  const model = async (modelName: string, assetTypeId: number, buyerCompanyId = refs.acme) =>
    (await t.db.assetModel.create({ data: { modelName, assetTypeId, buyerCompanyId } })).id;
  const ids: Record<string, number> = {};
  let chiller: number;

  beforeAll(async () => {
    chiller = (await t.db.assetType.create({ data: { buyerCompanyId: refs.acme, name: "Chiller" } })).id;
    ids.carrier = await model("Carrier 48TC-D08", refs.rtu);
    ids.trane = await model("Trane Voyager YSC", refs.rtu);
    ids.york = await model("York YK Chiller", chiller);
    ids.twinA = await model("Daikin Rebel", chiller);
    ids.twinB = await model("Daikin Rebel", chiller);
    ids.globex = await model("Carrier 48TC-D08", refs["g-rtu"], refs.globex);
  });

  it("returns the closest model of the asset type; URL-encoded spaces work", async () => {
    const reply = await fuzzy("Carrier 48TC", refs.rtu);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "AssetModel",
      status: "ok",
      data: { id: ids.carrier, modelName: "Carrier 48TC-D08", assetTypeId: refs.rtu, buyerCompanyId: refs.acme },
    });
    expect(
      (await t.call("acme-key", "GET", `/v1/buyer/asset/asset_models/fuzzy/trane%20voyager/${refs.rtu}`)).body.data.id,
    ).toBe(ids.trane);
  });

  it("404s below the threshold: '48TC' scores 0.29 against 'Carrier 48TC-D08', 'Carrier' 0.47", async () => {
    expect((await fuzzy("Carrier", refs.rtu)).body.data.id).toBe(ids.carrier);
    for (const name of ["48TC", "zzzz qqqq"]) {
      const reply = await fuzzy(name, refs.rtu);
      expect(reply.status, name).toBe(404);
      expect(reply.body.type).toBe("NotFoundException");
      expect(reply.body.message).toContain(JSON.stringify(name)); // the path parameter arrives decoded
    }
  });

  it("looks only within the asset type, and breaks ties by id", async () => {
    expect((await fuzzy("York Chiller", refs.rtu)).status).toBe(404);
    expect((await fuzzy("York Chiller", chiller)).body.data.id).toBe(ids.york);
    expect((await fuzzy("Daikin Rebel", chiller)).body.data.id).toBe(ids.twinA);
  });

  it("keeps to the key's company: a foreign asset type is 400, an unknown one 404", async () => {
    expect((await fuzzy("Carrier 48TC", refs["g-rtu"], "globex-key")).body.data.id).toBe(ids.globex);
    expect((await fuzzy("Carrier 48TC", refs["g-rtu"])).status).toBe(400);
    expect((await fuzzy("Carrier 48TC", refs.rtu, "globex-key")).status).toBe(400);
    expect((await fuzzy("Carrier 48TC", 987654)).status).toBe(404);
  });

  it("rejects a blank name or a non-integer asset type with 400", async () => {
    expect((await fuzzy("  ", refs.rtu)).status).toBe(400);
    expect((await fuzzy("Carrier", "abc")).status).toBe(400);
  });
});
