// Hostile input gets the contract's 4xx, never a 500, and writes nothing: one case per family of the
// black-box probe (issue #18), and contact e-mails of another tenant refused where a body names a contact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrderBody } from "../support/work-order-events.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const expect400 = (reply: { status: number; body: any }, field?: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(reply.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
  if (field) expect(reply.body.message).toContain(field);
};

const workOrderBody = (extra: Record<string, unknown> = {}) => acmeWorkOrderBody(refs, { title: "Hostile", ...extra });

async function rowCounts() {
  const [workOrders, notes, assetTypes, subscribers] = await Promise.all([
    t.db.workOrder.count(),
    t.db.workOrderNote.count(),
    t.db.assetType.count(),
    t.db.workOrderSubscriber.count(),
  ]);
  return { workOrders, notes, assetTypes, subscribers };
}

describe("REST paths and query parameters", () => {
  it("routes a trailing slash like the path without it", async () => {
    expect((await t.call("acme-key", "GET", "/v1/buyer/ping/")).body).toMatchObject({ type: "pingpong", data: "pong" });
    expect((await t.call("acme-key", "GET", "/v1/buyer/location/locations/")).status).toBe(200);
    expect400(await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders/", {}), "title");
  });

  it("answers an empty path id with the contract's 404", async () => {
    const reply = await t.call("acme-key", "PUT", "/v1/buyer/asset/assets//labels", { ids: [] });
    expect(reply.status).toBe(404);
    expect(reply.body.type).toBe("NotFoundException");
  });

  it("refuses query parameters named like Object prototype properties as unknown filters", async () => {
    for (const name of ["toString", "constructor", "hasOwnProperty", "__proto__", "valueOf"]) {
      expect400(await t.call("acme-key", "GET", `/v1/buyer/location/locations?${name}=1`), name);
      expect400(await t.call("acme-key", "GET", `/v1/buyer/asset/assets?${name}=1`), name);
    }
    expect400(await t.call("acme-key", "GET", "/v1/buyer/location/locations/count_by?group_by=__proto__"), "__proto__");
    expect400(await t.call("acme-key", "GET", "/v1/buyer/work_order/work_orders?toString=1"), "toString");
  });

  it("refuses integers past 32 bits where an id or integer column is expected, naming the field", async () => {
    expect400(await t.call("acme-key", "GET", "/v1/buyer/location/locations?regionId=99999999999"), "regionId");
    expect400(
      await t.call("acme-key", "PUT", `/v1/buyer/asset/assets/${refs["rtu-1"]}/labels`, { ids: [2147483648] }),
      "ids",
    );
    expect400(
      await t.call("acme-key", "PUT", `/v1/buyer/work_order/work_orders/1/labels`, { ids: [2 ** 53 + 2] }),
      "ids",
    );
  });
});

describe("NUL characters and deep JSON", () => {
  it("are 400 naming the field, in bodies, nested fields, query text and paths, and nothing is written", async () => {
    const before = await rowCounts();
    expect400(
      await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", workOrderBody({ title: "a\u0000b" })),
      "title",
    );
    expect400(await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "x\u0000" }), "name");
    const wo = await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", workOrderBody());
    expect(wo.status).toBe(200);
    const afterCreate = await rowCounts();
    expect400(
      await t.call("acme-key", "PATCH", "/v1/buyer/work_order/work_orders/append_notes", {
        id: wo.body.data.id,
        note: { text: "x\u0000", noteAddedBy: "alice@acme.example" },
      }),
      "note.text",
    );
    expect400(await t.call("acme-key", "GET", "/v1/buyer/work_order/work_orders?search=%00"), "search");
    expect400(await t.call("acme-key", "GET", "/v1/buyer/asset/asset_models/fuzzy/a%00b/1"), "path");
    expect(await rowCounts()).toEqual(afterCreate);
    expect(afterCreate.workOrders).toBe(before.workOrders + 1);
  });

  it("refuses a lone UTF-16 surrogate in a JSON string, naming the field, and writes nothing", async () => {
    const before = await rowCounts();
    expect400(
      await t.call(
        "acme-key",
        "POST",
        "/v1/buyer/user/provision",
        '{"email":"lone@acme.example","nameGiven":"\\ud800x","nameFamily":"Y","roles":["viewer"]}',
      ),
      "nameGiven",
    );
    expect400(await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", '{"name":"low \\udc00 half"}'), "name");
    expect(await rowCounts()).toEqual(before);
    expect(await t.db.contact.count({ where: { email: "lone@acme.example" } })).toBe(0);
    const paired = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", '{"name":"pair \\ud83d\\ude00"}');
    expect(paired.status).toBe(200);
    expect(paired.body.data.name).toBe("pair \u{1F600}");
  });

  it("refuses JSON nested deeper than the documented limit", async () => {
    const deep = "[".repeat(10_000) + "1" + "]".repeat(10_000);
    expect400(
      await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", `{"name":"x","extra":${deep}}`),
      "nests deeper than 32",
    );
    expect400(
      await t.call(
        "acme-key",
        "PATCH",
        `/v1/buyer/location/locations/${refs["store-1"]}`,
        `{"locationTypeDetails":${deep}}`,
      ),
      "locationTypeDetails",
    );
    expect(
      (
        await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", {
          name: "thirty-two",
          extra: JSON.parse("[".repeat(31) + "]".repeat(31)),
        })
      ).status,
    ).toBe(200);
  });
});

describe("GraphQL", () => {
  it("answers broken GET variables and NUL characters in variables or literals with 400, never 500", async () => {
    const broken = await t.call("acme-key", "GET", "/graphql?query=%7B&variables=%7B");
    expect(broken.status).toBe(400);
    const nulVariable = await t.graphql(
      "acme-key",
      "mutation($i: AssetTypeInput!) { upsertAssetType(input: $i) { id } }",
      { i: { name: "a\u0000b" } },
    );
    expect(nulVariable.status).toBe(400);
    expect(nulVariable.body.errors[0]).toMatchObject({ extensions: { code: "invalidInputDataException" } });
    expect(nulVariable.body.errors[0].message).toContain("variables.i.name");
    const nulLiteral = await t.graphql("acme-key", 'mutation { upsertAssetType(input: {name: "a\\u0000b"}) { id } }');
    expect(nulLiteral.status).toBe(400);
    expect(await t.db.assetType.count({ where: { name: { startsWith: "a" } } })).toBe(0);
  });

  it("refuses a document nested deeper than 64 brackets before parsing it, never a 500", async () => {
    for (const levels of [65, 3_000, 9_000]) {
      const deep = "[".repeat(levels) + "1" + "]".repeat(levels);
      const reply = await t.graphql("acme-key", `{ locationsMultiple(ids: ${deep}) { data { id } } }`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({
        message: "the document nests deeper than 64 levels",
        extensions: { code: "invalidInputDataException" },
      });
    }
    // Brackets inside strings and comments do not count; 60 levels are within the limit.
    const literal = `"${"[".repeat(100)}"`;
    const fine = await t.graphql(
      "acme-key",
      `# ${"{".repeat(100)}\n{ locationsMultiple(ids: ${"[".repeat(60)}${refs["store-1"]}${"]".repeat(60)}) { data { id } } locations(filter: {name: ${literal}}) { count } }`,
    );
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
    expect(fine.body.data.locationsMultiple.data).toEqual([{ id: refs["store-1"] }]);
  });

  it("limits aliases and cost, so a thousand copies of a list are refused before running", async () => {
    const aliases = Array.from(
      { length: 1000 },
      (_, i) => `a${i}: workOrders(limit: 25) { count data { id title } }`,
    ).join(" ");
    const started = performance.now();
    const reply = await t.graphql("acme-key", `{ ${aliases} }`);
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/alias|cost|character limit/i);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(
      (await t.graphql("acme-key", "{ a: workOrders(limit: 2) { count } b: locations { count } }")).body.errors,
    ).toBeUndefined();
    // Under the document length limit, the alias limit applies.
    const sixteen = Array.from({ length: 16 }, (_, i) => `a${i}: ping`).join(" ");
    expect((await t.graphql("acme-key", `{ ${sixteen} }`)).body.errors[0].message).toMatch(/aliases/i);
  });

  it("refuses a megabyte model name before comparing it", async () => {
    const reply = await t.graphql(
      "acme-key",
      "query($n: String!, $t: Int!) { assetModelFuzzy(name: $n, assetTypeId: $t) { id } }",
      { n: "m".repeat(1_000_000), t: refs.rtu },
    );
    expect(reply.body.errors[0]).toMatchObject({ extensions: { code: "invalidInputDataException" } });
    expect(reply.body.errors[0].message).toContain("200 characters");
  });

  it("refuses a body over the limit before parsing it, and never echoes the request", async () => {
    const big = JSON.stringify({ query: `{ ping }`, variables: { x: "y".repeat(2 * 1024 * 1024) } });
    const tooBig = await t.call(null, "POST", "/graphql", big);
    expect(tooBig.status).toBe(400);
    expect(JSON.stringify(tooBig.body).length).toBeLessThan(1_000);
    const invalid = await t.call("acme-key", "POST", "/graphql", `{not json ${"z".repeat(10_000)}`);
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).not.toContain("zzzz");
  });

  it("refuses a subscription sent over HTTP without Accept: text/event-stream instead of holding the connection", async () => {
    const reply = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...t.headers("acme-key"), "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: "subscription { workOrderEvents { eventType } }" }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(reply.status).toBe(400);
    expect((await reply.json()).errors[0].message).toContain("text/event-stream");
  });
});

describe("contact e-mails of another tenant", () => {
  const NOTES = "/v1/buyer/work_order/work_orders/append_notes";
  let woId: number;
  beforeAll(async () => {
    woId = (
      await t.call(
        "acme-key",
        "POST",
        "/v1/buyer/work_order/work_orders",
        workOrderBody({ supplierFacilityId: refs["coolco-pdx"] }),
      )
    ).body.data.id;
  });

  it("are refused in taggedUsers, note authors and createdBy, naming the field; people without an account are fine", async () => {
    const before = await rowCounts();
    expect400(
      await t.call("acme-key", "PATCH", NOTES, {
        id: woId,
        note: { text: "hi", noteAddedBy: "alice@acme.example" },
        taggedUsers: ["gina@globex.example"],
      }),
      "taggedUsers[0]",
    );
    expect400(
      await t.call("acme-key", "PATCH", NOTES, { id: woId, note: { text: "hi", noteAddedBy: "gina@globex.example" } }),
      "note.noteAddedBy",
    );
    expect400(
      await t.call("acme-key", "PATCH", NOTES, {
        id: woId,
        note: { text: "hi", noteAddedBy: "alice@acme.example" },
        taggedUsers: ["sam@coolco.example"],
      }),
      "taggedUsers[0]",
    );
    expect400(
      await t.call(
        "acme-key",
        "POST",
        "/v1/buyer/work_order/work_orders",
        workOrderBody({ createdBy: "gina@globex.example" }),
      ),
      "createdBy",
    );
    // A supplier's contact may create only a work order dispatched to that supplier; case does not hide a contact.
    expect400(
      await t.call(
        "acme-key",
        "POST",
        "/v1/buyer/work_order/work_orders",
        workOrderBody({ createdBy: "bob@coolco.example" }),
      ),
      "createdBy",
    );
    expect400(
      await t.call("acme-key", "PATCH", NOTES, { id: woId, note: { text: "hi", noteAddedBy: " Gina@Globex.Example" } }),
      "note.noteAddedBy",
    );
    expect(await rowCounts()).toEqual(before);
    const bySupplier = await t.call(
      "acme-key",
      "POST",
      "/v1/buyer/work_order/work_orders",
      workOrderBody({ createdBy: "bob@coolco.example", supplierFacilityId: refs["coolco-pdx"] }),
    );
    expect(bySupplier.status).toBe(200);
    const fine = await t.call("acme-key", "PATCH", NOTES, {
      id: woId,
      note: { text: "hi", noteAddedBy: "alice@acme.example" },
      taggedUsers: ["bob@coolco.example", "outside.tech@gmail.example"],
    });
    expect(fine.status).toBe(200);
  });

  it("are refused where the body's field would be ignored: a PATCH naming only a contact, technicianEmail on confirm", async () => {
    const id = (
      await t.call(
        "acme-key",
        "POST",
        "/v1/buyer/work_order/work_orders",
        workOrderBody({ supplierFacilityId: refs["coolco-pdx"] }),
      )
    ).body.data.id;
    const before = await t.db.workOrder.findUniqueOrThrow({ where: { id } });
    expect400(
      await t.call("acme-key", "PATCH", `/v1/buyer/work_order/work_orders/${id}`, {
        supplierPrimaryContactEmail: "ivy@acme.example",
      }),
      "supplierPrimaryContactEmail",
    );
    expect400(
      await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/confirm", {
        id,
        technicianEmail: "ivy@acme.example",
      }),
      "technicianEmail",
    );
    expect(await t.db.workOrder.findUniqueOrThrow({ where: { id } })).toEqual(before);
    const alone = await t.call("acme-key", "PATCH", `/v1/buyer/work_order/work_orders/${id}`, {
      supplierPrimaryContactEmail: "bob@coolco.example",
    });
    expect(alone.status).toBe(200);
    expect(alone.body.data.supplierPrimaryContactEmail ?? null).toBe(before.supplierPrimaryContactEmail);
    const confirmed = await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/confirm", {
      id,
      technicianEmail: "bob@coolco.example",
    });
    expect(confirmed.status).toBe(200);
  });

  it("are refused as supplierPrimaryContactEmail (another supplier's contact) and technicianEmail", async () => {
    const reassign = await t.call("acme-key", "PATCH", `/v1/buyer/work_order/work_orders/${woId}`, {
      supplierFacilityId: refs["inhouse-west"],
      supplierPrimaryContactEmail: "bob@coolco.example",
    });
    expect400(reassign, "supplierPrimaryContactEmail");
    expect((await t.db.workOrder.findUniqueOrThrow({ where: { id: woId } })).supplierFacilityId).toBe(
      refs["coolco-pdx"],
    );
    expect(
      (await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/confirm", { id: woId })).status,
    ).toBe(200);
    expect400(
      await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/assign_tech", {
        id: woId,
        technicianEmail: "ivy@acme.example",
      }),
      "technicianEmail",
    );
    expect(
      (
        await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/assign_tech", {
          id: woId,
          technicianEmail: "bob@coolco.example",
        })
      ).status,
    ).toBe(200);
  });
});
