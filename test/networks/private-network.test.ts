// The supplier's private network from outside: create (409 on a repeat), list, PUT routing emails,
// delete by supplier facility; bad input writes nothing; third-party, internal-team, foreign, buyer and
// partner keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { networkFixture } from "./network-fixture.ts";

let t: TestApp;
let refs: Record<string, number>;
const PATH = "/v1/supplier/private_network/supplier_supplier_relationships";

beforeAll(async () => {
  const fixture = networkFixture();
  fixture.contacts.push({
    ref: "tess",
    email: "tess@coolco.example",
    nameGiven: "Tess",
    nameFamily: "Tech",
    supplierFacility: "coolco-pdx",
    roles: ["technician"],
  });
  fixture.apiKeys.push({
    ref: "coolco-tech-key",
    kind: "supplier",
    contact: "tess",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  t = await startTestApp({ fixture });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const post = (body: unknown, key = "coolco-key") => t.call(key, "POST", PATH, body);
const put = (body: unknown, key = "coolco-key") => t.call(key, "PUT", PATH, body);
const remove = (facility: number | string, key = "coolco-key") =>
  t.call(key, "DELETE", `${PATH}/delete_by_supplier/${facility}`);
const list = async (key = "coolco-key", query = "") => (await t.call(key, "GET", `${PATH}${query}`)).body;
const rows = () => t.db.supplierSupplierRelationship.findMany({ orderBy: { id: "asc" } });

/** Runs a refused request and checks its error body and that nothing was written. */
async function refused(request: () => Promise<{ status: number; body: any }>, status: number, message?: RegExp) {
  const before = await rows();
  const contacts = await t.db.contact.count();
  const reply = await request();
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toMatchObject({ status: "error", type: expect.any(String), traceId: expect.any(String) });
  if (message) expect(reply.body.message).toMatch(message);
  expect(await rows()).toEqual(before);
  expect(await t.db.contact.count()).toBe(contacts);
  return reply;
}

describe("POST /supplier_supplier_relationships", () => {
  it("adds a sub-contractor to the key's facility's network (third-party key)", async () => {
    const reply = await post({ supplierFacilityId: refs["fixit-pdx"], ignored: true });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toEqual({
      type: "SupplierSupplierRelationship",
      status: "ok",
      data: {
        id: expect.any(Number),
        sourceSupplierFacilityId: refs["coolco-pdx"],
        supplierFacilityId: refs["fixit-pdx"],
        supplierFacilityName: "FixIt Portland",
        workOrdersRoutedTo: [],
        supplierAccountEmails: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
  });

  it("takes routing emails: trimmed, lowercased, deduplicated; contacts of either company are fine (internal-team key)", async () => {
    const reply = await post(
      {
        supplierFacilityId: refs["fixit-pdx"],
        workOrdersRoutedTo: [" Dispatch@FixIt.example ", "dispatch@fixit.example", "dana@fixit.example"],
        supplierAccountEmails: ["ivy@acme.example"],
      },
      "inhouse-key",
    );
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data).toMatchObject({
      sourceSupplierFacilityId: refs["inhouse-west"],
      workOrdersRoutedTo: ["dispatch@fixit.example", "dana@fixit.example"],
      supplierAccountEmails: ["ivy@acme.example"],
    });
  });

  it("answers a relationship that already exists with 409, also when two creates race", async () => {
    await refused(() => post({ supplierFacilityId: refs["fixit-pdx"] }), 409, /already in the private network/);
    const replies = await Promise.all(Array.from({ length: 5 }, () => post({ supplierFacilityId: refs["fixit-sea"] })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(replies.find((r) => r.status === 409)!.body.type).toBe("ConflictException");
    expect(
      await t.db.supplierSupplierRelationship.count({
        where: { sourceSupplierFacilityId: refs["coolco-pdx"], supplierFacilityId: refs["fixit-sea"] },
      }),
    ).toBe(1);
  });

  it("refuses unknown, own and malformed facility ids and bad routing emails with 400, writing nothing", async () => {
    await refused(() => post({ supplierFacilityId: 999999 }), 400, /999999 is not a supplier facility/);
    await refused(() => post({ supplierFacilityId: refs["coolco-pdx"] }), 400, /your own facility/);
    await refused(() => post({ supplierFacilityId: "abc" }), 400);
    await refused(() => post({}), 400);
    await refused(
      () => post({ supplierFacilityId: refs["coolco-sea"], workOrdersRoutedTo: ["ok@x.example", "not-an-email"] }),
      400,
      /workOrdersRoutedTo\[1\]/,
    );
    await refused(
      () => post({ supplierFacilityId: refs["coolco-sea"], supplierAccountEmails: "a@x.example" }),
      400,
      /supplierAccountEmails must be an array/,
    );
    await refused(
      () => post({ supplierFacilityId: refs["coolco-sea"], supplierAccountEmails: [42] }),
      400,
      /supplierAccountEmails\[0\]/,
    );
    // Another tenant's contact (a buyer's, or a supplier company outside the relationship) is refused.
    await refused(
      () => post({ supplierFacilityId: refs["coolco-sea"], workOrdersRoutedTo: ["Gina@Globex.example"] }),
      400,
      /workOrdersRoutedTo: gina@globex\.example belong to another company/,
    );
    await refused(
      () => post({ supplierFacilityId: refs["coolco-sea"], supplierAccountEmails: ["dana@fixit.example"] }),
      400,
      /supplierAccountEmails/,
    );
    await refused(
      () =>
        post({
          supplierFacilityId: refs["coolco-sea"],
          workOrdersRoutedTo: Array.from({ length: 51 }, (_, i) => `d${i}@x.example`),
        }),
      400,
      /at most 50/,
    );
  });
});

describe("GET /supplier_supplier_relationships", () => {
  it("lists the key's facility's relationships only, paged and filtered", async () => {
    const coolco = await list();
    expect(coolco).toMatchObject({ type: "SupplierSupplierRelationship", status: "ok", count: 2 });
    expect(coolco.data.map((r: { supplierFacilityId: number }) => r.supplierFacilityId)).toEqual([
      refs["fixit-pdx"],
      refs["fixit-sea"],
    ]);
    expect(
      coolco.data.every((r: { sourceSupplierFacilityId: number }) => r.sourceSupplierFacilityId === refs["coolco-pdx"]),
    ).toBe(true);
    expect((await list("coolco-key", `?supplierFacilityId=${refs["fixit-sea"]}`)).count).toBe(1);
    expect((await list("coolco-key", "?limit=1&offset=1")).data[0].supplierFacilityId).toBe(refs["fixit-sea"]);
    expect((await list("coolco-key", "?sort_by=supplierFacilityId&order=desc")).data[0].supplierFacilityId).toBe(
      refs["fixit-sea"],
    );
    expect((await list("inhouse-key")).data.map((r: { supplierFacilityId: number }) => r.supplierFacilityId)).toEqual([
      refs["fixit-pdx"],
    ]);
    expect(await list("unrelated-supplier-key")).toMatchObject({ data: [], count: 0 });
    expect((await t.call("coolco-key", "GET", `${PATH}?sourceSupplierFacilityId=${refs["inhouse-west"]}`)).status).toBe(
      400,
    );
    // Reading needs no write permission.
    expect((await list("coolco-tech-key")).count).toBe(2);
  });
});

describe("PUT /supplier_supplier_relationships", () => {
  it("updates the routing fields: absent keeps, a list replaces, null or [] clears", async () => {
    const first = await put({
      supplierFacilityId: refs["fixit-pdx"],
      workOrdersRoutedTo: ["Dana@FixIt.example"],
      supplierAccountEmails: ["billing@fixit.example"],
    });
    expect(first.status, first.body.message).toBe(200);
    expect(first.body).toMatchObject({
      type: "SupplierSupplierRelationship",
      data: { workOrdersRoutedTo: ["dana@fixit.example"], supplierAccountEmails: ["billing@fixit.example"] },
    });
    const kept = await put({
      supplierFacilityId: refs["fixit-pdx"],
      workOrdersRoutedTo: ["ops@fixit.example", "bob@coolco.example"],
    });
    expect(kept.body.data).toMatchObject({
      workOrdersRoutedTo: ["ops@fixit.example", "bob@coolco.example"],
      supplierAccountEmails: ["billing@fixit.example"],
    });
    expect(Date.parse(kept.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.body.data.updatedAt));
    const cleared = await put({
      supplierFacilityId: refs["fixit-pdx"],
      workOrdersRoutedTo: null,
      supplierAccountEmails: [],
    });
    expect(cleared.body.data).toMatchObject({ workOrdersRoutedTo: [], supplierAccountEmails: [] });
    // Another facility's relationship with the same sub-contractor is untouched.
    expect((await list("inhouse-key")).data[0].workOrdersRoutedTo).toEqual([
      "dispatch@fixit.example",
      "dana@fixit.example",
    ]);
  });

  it("404 without a relationship of the key's facility; bad emails are a 400; nothing written", async () => {
    await refused(
      () => put({ supplierFacilityId: refs["coolco-sea"], workOrdersRoutedTo: [] }),
      404,
      /^could not find supplier supplier relationship/,
    );
    await refused(
      () => put({ supplierFacilityId: refs["fixit-pdx"] }, "unrelated-supplier-key"),
      404,
      /^could not find supplier supplier relationship/,
    );
    await refused(
      () => put({ supplierFacilityId: refs["fixit-pdx"], workOrdersRoutedTo: ["ok@fixit.example", "nope"] }),
      400,
      /workOrdersRoutedTo\[1\]/,
    );
    await refused(
      () => put({ supplierFacilityId: refs["fixit-pdx"], supplierAccountEmails: ["gina@globex.example"] }),
      400,
      /another company/,
    );
    await refused(() => put({ workOrdersRoutedTo: [] }), 400);
  });
});

describe("DELETE /supplier_supplier_relationships/delete_by_supplier/{supplierFacilityId}", () => {
  it("removes the key's relationship with that facility and answers it; then 404", async () => {
    const reply = await remove(refs["fixit-sea"]);
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toMatchObject({
      type: "SupplierSupplierRelationship",
      data: { supplierFacilityId: refs["fixit-sea"], sourceSupplierFacilityId: refs["coolco-pdx"] },
    });
    expect((await list()).data.map((r: { supplierFacilityId: number }) => r.supplierFacilityId)).toEqual([
      refs["fixit-pdx"],
    ]);
    await refused(() => remove(refs["fixit-sea"]), 404, /^could not find supplier supplier relationship/);
    await refused(() => remove(refs["fixit-pdx"], "unrelated-supplier-key"), 404);
    await refused(() => remove("abc"), 400);
    // A deleted relationship can be created again.
    expect((await post({ supplierFacilityId: refs["fixit-sea"] })).status).toBe(200);
  });
});

describe("keys and permissions", () => {
  it("writes need a role with network.write; reads do not", async () => {
    for (const request of [
      () => post({ supplierFacilityId: refs["coolco-sea"] }, "coolco-tech-key"),
      () => put({ supplierFacilityId: refs["fixit-pdx"], workOrdersRoutedTo: [] }, "coolco-tech-key"),
      () => remove(refs["fixit-pdx"], "coolco-tech-key"),
      () =>
        t.call(
          "coolco-tech-key",
          "POST",
          `${PATH}/${refs["fixit-pdx"]}/invite/bob@coolco.example/x@fixit.example/name/X/Y`,
        ),
    ]) {
      await refused(request, 400, /this key may not manage the private network/);
    }
  });

  it("is a supplier path: buyer and partner keys get 401, GraphQL answers buyers 403", async () => {
    for (const key of ["acme-key", "inhouse-partner-key"]) {
      expect((await t.call(key, "GET", PATH)).status).toBe(401);
      expect((await t.call(key, "POST", PATH, { supplierFacilityId: refs["coolco-sea"] })).status).toBe(401);
    }
    const gql = await t.graphql(
      "acme-key",
      `mutation { createSupplierSupplierRelationship(input: {supplierFacilityId: ${refs["coolco-sea"]}}) { id } }`,
    );
    expect(gql.body.errors[0].extensions.code).toBe("ForbiddenException");
    const own = await t.graphql("unrelated-supplier-key", `{ supplierSupplierRelationships { count } }`);
    expect(own.body.data.supplierSupplierRelationships.count).toBe(0);
  });

  it("documents every path in the supplier OpenAPI document; the invite answers without an envelope", async () => {
    const doc = (await t.call(null, "GET", "/v1/supplier/openapi.json")).body;
    const base = "/v1/supplier/private_network/supplier_supplier_relationships";
    expect(Object.keys(doc.paths[base]).sort()).toEqual(["get", "post", "put"]);
    expect(doc.paths[base].put.requestBody.content["application/json"].schema).toBeDefined();
    expect(doc.paths[`${base}/delete_by_supplier/{supplierFacilityId}`].delete.summary).toMatch(/Removes/);
    const invite = doc.paths[`${base}/{sfId}/invite/{fromEmail}/{toEmail}/name/{fN}/{lN}`].post;
    expect(`${invite.summary} ${invite.description}`).toMatch(/subContractorInviteSent/);
    expect(JSON.stringify(invite.responses["200"].content["application/json"].schema)).not.toContain('"status"');
  });
});
