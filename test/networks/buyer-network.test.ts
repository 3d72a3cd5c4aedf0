// The buyer side of the supplier network from outside: GET /supplier_facilities (filters, sorting,
// 404/400) and the ranking endpoint (rank = array order across pages, sort_by dropped, ties, unranked
// and deleted relationships), with buyer, foreign-buyer and supplier keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { applyFixture } from "../../src/operator/apply.ts";
import { BULK, networkFixture } from "./network-fixture.ts";

let t: TestApp;
let refs: Record<string, number>;
const NETWORK = "/v1/buyer/supplier_facilities";
const ranked = (location: string, problemType: string, query = "", key = "acme-key") =>
  t.call(
    key,
    "GET",
    `/v1/buyer/private_network/buyer_supplier_relationships/ranked/${refs[location] ?? location}/${refs[problemType] ?? problemType}${query}`,
  );

beforeAll(async () => {
  t = await startTestApp({ fixture: networkFixture() });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const ids = (reply: { body: { data: { id: number }[] } }) => reply.body.data.map((d) => d.id);
const facilities = (...names: string[]) => names.map((n) => refs[n]);
const withDeleted = async (relationshipRef: string, work: () => Promise<void>) => {
  await t.db.buyerSupplierRelationship.update({
    where: { id: refs[relationshipRef] },
    data: { deletedAt: new Date() },
  });
  try {
    await work();
  } finally {
    await t.db.buyerSupplierRelationship.update({ where: { id: refs[relationshipRef] }, data: { deletedAt: null } });
  }
};

describe("GET /v1/buyer/supplier_facilities", () => {
  it("lists every live relationship of the company as its supplier facility, hydrated with the relationship", async () => {
    const reply = await t.call("acme-key", "GET", `${NETWORK}?limit=25`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "SupplierFacility", status: "ok", count: 5 + BULK });
    expect(reply.body.data).toHaveLength(25);
    const sorted = [...ids(reply)].sort((a, b) => a - b);
    expect(ids(reply)).toEqual(sorted);
    expect(reply.body.data[0]).toEqual({
      id: refs["coolco-pdx"],
      name: "CoolCo Portland",
      relationshipId: refs["rel-1"],
      buyerCompanyId: refs.acme,
      supplierFacilityId: refs["coolco-pdx"],
      supplierFacilityName: "CoolCo Portland",
      supplierCompanyId: refs.coolco,
      supplierCompanyName: "CoolCo Mechanical",
      currency: "USD",
      isInternalTeam: false,
      isPreferred: true,
      trades: ["HVAC", "Refrigeration"],
      workOrdersRoutedTo: ["dispatch@coolco.example"],
      supplierAccountEmails: ["accounts@coolco.example"],
      contacts: [{ id: refs.bob, email: "bob@coolco.example", nameGiven: "Bob", nameFamily: "Tech" }],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const inhouse = reply.body.data.find((d: { id: number }) => d.id === refs["inhouse-west"]);
    expect(inhouse).toMatchObject({
      isInternalTeam: true,
      isPreferred: false,
      trades: ["HVAC", "Plumbing"],
      workOrdersRoutedTo: [],
    });
    expect(ids(reply)).not.toContain(refs["fixit-tac"]);
    // Paging: the second page continues the first.
    const second = await t.call("acme-key", "GET", `${NETWORK}?offset=25&limit=25`);
    expect(second.body.data).toHaveLength(5 + BULK - 25);
    expect(ids(second)[0]).toBeGreaterThan(ids(reply).at(-1)!);
  });

  it("filters by id, supplierFacilityId, supplierCompanyId, name, isPreferred, trade, problemTypeId and locationId", async () => {
    const q = async (query: string) => {
      const reply = await t.call("acme-key", "GET", `${NETWORK}?limit=25&${query}`);
      expect(reply.status, `${query}: ${reply.body.message}`).toBe(200);
      return reply.body;
    };
    expect(ids({ body: await q(`id=${refs["fixit-pdx"]},${refs["fixit-sea"]}`) })).toEqual(
      facilities("fixit-pdx", "fixit-sea"),
    );
    expect(ids({ body: await q(`supplierFacilityId=${refs["inhouse-west"]}`) })).toEqual(facilities("inhouse-west"));
    expect(ids({ body: await q(`supplierCompanyId=${refs.coolco}`) })).toEqual(facilities("coolco-pdx", "coolco-sea"));
    expect(ids({ body: await q("name=fixit") })).toEqual(facilities("fixit-pdx", "fixit-sea"));
    expect(ids({ body: await q("name=SEATTLE,team") })).toEqual(facilities("coolco-sea", "fixit-sea"));
    expect(ids({ body: await q("isPreferred=true") })).toEqual(facilities("coolco-pdx"));
    expect((await q("isPreferred=false")).count).toBe(4 + BULK);
    expect((await q("isPreferred=true,false")).count).toBe(5 + BULK);
    expect(ids({ body: await q("trade=Plumbing") })).toEqual(facilities("inhouse-west", "fixit-pdx"));
    expect(ids({ body: await q("trade=Refrigeration,Plumbing") })).toEqual(
      facilities("coolco-pdx", "inhouse-west", "fixit-pdx"),
    );
    expect((await q("trade=plumbing")).count).toBe(0); // trades match exactly
    expect((await q(`problemTypeId=${refs.plumbing}`)).count).toBe(2 + BULK);
    expect(ids({ body: await q(`problemTypeId=${refs.plumbing}&locationId=${refs["store-1"]}`) })).toEqual(
      facilities("inhouse-west", "fixit-pdx"),
    );
    expect(ids({ body: await q(`locationId=${refs["store-2"]}&problemTypeId=${refs.hvac}`) })).toEqual(
      facilities("coolco-pdx"),
    );
    expect(ids({ body: await q(`name=fixit&trade=Plumbing`) })).toEqual(facilities("fixit-pdx"));
  });

  it("refuses unknown filters and values that do not parse (400)", async () => {
    for (const query of ["color=red", "isPreferred=maybe", "id=abc", "sort_by=rank", "order=sideways", "limit=0"]) {
      const reply = await t.call("acme-key", "GET", `${NETWORK}?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
    }
  });

  it("sorts by id (default), name, isPreferred and createdAt", async () => {
    const byName = await t.call("acme-key", "GET", `${NETWORK}?sort_by=name&limit=5`);
    expect(byName.body.data.map((d: { name: string }) => d.name)).toEqual([
      "Acme Facilities West",
      "Bulk 01",
      "Bulk 02",
      "Bulk 03",
      "Bulk 04",
    ]);
    const desc = await t.call("acme-key", "GET", `${NETWORK}?sort_by=name&order=desc&limit=2`);
    expect(desc.body.data.map((d: { name: string }) => d.name)).toEqual(["FixIt Seattle", "FixIt Portland"]);
    const preferred = await t.call("acme-key", "GET", `${NETWORK}?sort_by=isPreferred&order=desc&limit=1`);
    expect(ids(preferred)).toEqual(facilities("coolco-pdx"));
    const newest = await t.call("acme-key", "GET", `${NETWORK}?order=desc&limit=1`);
    expect(ids(newest)).toEqual([Math.max(...facilities("coolco-pdx", "fixit-sea", `bulk-${BULK}`))]);
  });

  it("leaves deleted relationships out of the list and out of scope", async () => {
    await withDeleted("rel-fixit-sea", async () => {
      expect(ids(await t.call("acme-key", "GET", `${NETWORK}?name=fixit`))).toEqual(facilities("fixit-pdx"));
      expect((await t.call("acme-key", "GET", `${NETWORK}/${refs["fixit-sea"]}`)).status).toBe(400);
    });
  });

  it("reads one by supplier facility id: 404 when no such facility exists, 400 when it is not in the network", async () => {
    const one = await t.call("acme-key", "GET", `${NETWORK}/${refs["fixit-pdx"]}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      type: "SupplierFacility",
      status: "ok",
      data: {
        id: refs["fixit-pdx"],
        relationshipId: refs["rel-fixit-pdx"],
        name: "FixIt Portland",
        contacts: [{ email: "dana@fixit.example" }],
      },
    });
    const absent = await t.call("acme-key", "GET", `${NETWORK}/999999`);
    expect(absent.status).toBe(404);
    expect(absent.body.type).toBe("NotFoundException");
    const outside = await t.call("acme-key", "GET", `${NETWORK}/${refs["fixit-tac"]}`);
    expect(outside.status).toBe(400);
    expect(outside.body.message).toContain("not in this company's supplier network");
  });

  it("is scoped to the key's company: another buyer sees only its own network", async () => {
    const globex = await t.call("globex-key", "GET", NETWORK);
    expect(globex.body.count).toBe(1);
    expect(globex.body.data[0]).toMatchObject({
      id: refs["coolco-pdx"],
      relationshipId: refs["rel-g"],
      buyerCompanyId: refs.globex,
      isPreferred: false,
      workOrdersRoutedTo: [],
    });
    expect((await t.call("globex-key", "GET", `${NETWORK}/${refs["fixit-pdx"]}`)).status).toBe(400);
    expect((await t.call("globex-key", "GET", `${NETWORK}?buyerCompanyId=${refs.acme}`)).status).toBe(400);
  });

  it("is a buyer path: supplier keys get 401 over REST and 403 over GraphQL", async () => {
    for (const key of ["coolco-key", "inhouse-key", "inhouse-partner-key"])
      expect((await t.call(key, "GET", NETWORK)).status).toBe(401);
    const gql = await t.graphql("coolco-key", "{ supplierFacilities { count } }");
    expect(gql.body.errors[0].extensions.code).toBe("ForbiddenException");
    const buyer = await t.graphql(
      "acme-key",
      '{ supplierFacilities(filter: {trade: "Plumbing"}) { count data { id name contacts { email } } } }',
    );
    expect(buyer.body.data.supplierFacilities).toEqual({
      count: 2,
      data: [
        { id: refs["inhouse-west"], name: "Acme Facilities West", contacts: [{ email: "ivy@acme.example" }] },
        { id: refs["fixit-pdx"], name: "FixIt Portland", contacts: [{ email: "dana@fixit.example" }] },
      ],
    });
  });
});

describe("GET /v1/buyer/private_network/buyer_supplier_relationships/ranked/{locationId}/{problemTypeId}", () => {
  it("ranks the live relationships for the pair, hydrated; rank equals array order; ties by relationship id; unranked left out", async () => {
    const reply = await ranked("store-1", "hvac");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "BuyerSupplierRelationship", status: "ok", count: 4 });
    expect(
      reply.body.data.map((d: { supplierFacilityId: number; rank: number }) => [d.supplierFacilityId, d.rank]),
    ).toEqual([
      [refs["coolco-pdx"], 1],
      [refs["inhouse-west"], 2],
      [refs["fixit-pdx"], 3],
      [refs["coolco-sea"], 4],
    ]);
    expect(reply.body.data[0]).toEqual({
      id: refs["rel-1"],
      rank: 1,
      buyerCompanyId: refs.acme,
      supplierFacilityId: refs["coolco-pdx"],
      supplierFacilityName: "CoolCo Portland",
      supplierCompanyId: refs.coolco,
      supplierCompanyName: "CoolCo Mechanical",
      currency: "USD",
      isInternalTeam: false,
      isPreferred: true,
      trades: ["HVAC", "Refrigeration"],
      workOrdersRoutedTo: ["dispatch@coolco.example"],
      supplierAccountEmails: ["accounts@coolco.example"],
      contacts: [{ id: refs.bob, email: "bob@coolco.example", nameGiven: "Bob", nameFamily: "Tech" }],
      createdAt: expect.any(String),
    });
    expect(reply.body.data[1]).toMatchObject({
      id: refs["rel-2"],
      isInternalTeam: true,
      contacts: [{ email: "ivy@acme.example" }],
    });
    expect(reply.body.data.map((d: { supplierFacilityId: number }) => d.supplierFacilityId)).not.toContain(
      refs["fixit-sea"],
    );
    expect((await ranked("store-1", "plumbing")).body.data.map((d: { id: number }) => d.id)).toEqual([
      refs["rel-2"],
      refs["rel-fixit-pdx"],
    ]);
  });

  it("keeps the tie order when the operator re-applies the rankings (ranking rows are re-created)", async () => {
    await applyFixture(
      t.db,
      {
        buyerSupplierRelationships: [
          {
            ref: "rel-2",
            buyer: "acme",
            supplierFacility: "inhouse-west",
            trades: ["HVAC", "Plumbing"],
            rankings: [
              { location: "store-1", problemType: "hvac", rank: 2 },
              { location: "store-1", problemType: "plumbing", rank: 1 },
            ],
          },
        ],
      },
      { allowInsecureWebhooks: true },
    );
    const rows = await t.db.supplierRanking.findMany({
      where: { locationId: refs["store-1"], problemTypeId: refs.hvac, rank: 2 },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => r.relationshipId)).toEqual([refs["rel-fixit-pdx"], refs["rel-2"]]); // newer row for rel-2 now
    const reply = await ranked("store-1", "hvac");
    expect(reply.body.data.map((d: { id: number; rank: number }) => [d.id, d.rank])).toEqual([
      [refs["rel-1"], 1],
      [refs["rel-2"], 2],
      [refs["rel-fixit-pdx"], 3],
      [refs["rel-coolco-sea"], 4],
    ]);
  });

  it("pages 10 by default and 25 at most; rank continues across pages; sort_by and order are dropped", async () => {
    const first = await ranked("store-2", "plumbing");
    expect(first.body.count).toBe(BULK);
    expect(first.body.data.map((d: { rank: number }) => d.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.body.data.map((d: { supplierFacilityId: number }) => d.supplierFacilityId)).toEqual(
      Array.from({ length: 10 }, (_, i) => refs[`bulk-${i + 1}`]),
    );
    // bulk-5 and bulk-6 share the stored rank 5: relationship id decides, and each gets its own position.
    expect(first.body.data[4]).toMatchObject({ rank: 5, supplierFacilityId: refs["bulk-5"] });
    expect(first.body.data[5]).toMatchObject({ rank: 6, supplierFacilityId: refs["bulk-6"] });
    const second = await ranked("store-2", "plumbing", "?offset=10");
    expect(second.body.data[0]).toMatchObject({ rank: 11, supplierFacilityId: refs["bulk-11"] });
    expect(second.body.data.map((d: { rank: number }) => d.rank)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    const window = await ranked("store-2", "plumbing", "?offset=3&limit=4");
    expect(
      window.body.data.map((d: { rank: number; supplierFacilityId: number }) => [d.rank, d.supplierFacilityId]),
    ).toEqual([4, 5, 6, 7].map((rank) => [rank, refs[`bulk-${rank}`]]));
    const clamped = await ranked("store-2", "plumbing", "?limit=100");
    expect(clamped.body.data).toHaveLength(25);
    expect(clamped.body.data.at(-1).rank).toBe(25);
    const last = await ranked("store-2", "plumbing", "?offset=25&limit=25");
    expect(last.body.data.map((d: { rank: number }) => d.rank)).toEqual([26, 27]);
    for (const sort of [
      "?sort_by=name&order=desc",
      "?sort_by=nonsense",
      "?order=desc",
      "?sort_by=rank&order=sideways",
    ]) {
      const reply = await ranked("store-2", "plumbing", sort);
      expect(reply.status, sort).toBe(200);
      expect(
        reply.body.data.map((d: { id: number }) => d.id),
        sort,
      ).toEqual(first.body.data.map((d: { id: number }) => d.id));
    }
  });

  it("answers bad paging and unknown filters with 400", async () => {
    for (const query of ["?limit=0", "?offset=-1", "?limit=abc", "?trade=HVAC"]) {
      const reply = await ranked("store-1", "hvac", query);
      expect(reply.status, query).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
  });

  it("leaves out deleted relationships; an empty ranking is an empty list", async () => {
    await withDeleted("rel-1", async () => {
      const reply = await ranked("store-1", "hvac");
      expect(reply.body.count).toBe(3);
      expect(reply.body.data[0]).toMatchObject({ supplierFacilityId: refs["inhouse-west"], rank: 1 });
    });
    const empty = await ranked("store-2", "hvac", "", "acme-key");
    expect(empty.body.data.map((d: { id: number }) => d.id)).toEqual([refs["rel-1"]]);
    await t.db.supplierRanking.deleteMany({ where: { relationshipId: refs["rel-1"], locationId: refs["store-2"] } });
    expect((await ranked("store-2", "hvac")).body).toMatchObject({ data: [], count: 0 });
  });

  it("404 for an unknown location or problem type, 400 for another company's; scoped to the key's company", async () => {
    const cases: [string, string, number][] = [
      ["999999", "hvac", 404],
      ["store-1", "999999", 404],
      ["g-store", "hvac", 400],
      ["store-1", "g-hvac", 400],
      ["abc", "hvac", 400],
    ];
    for (const [location, problemType, status] of cases) {
      const reply = await ranked(location, problemType);
      expect(reply.status, `${location}/${problemType}`).toBe(status);
      expect(reply.body.status).toBe("error");
    }
    const globex = await ranked("g-store", "g-hvac", "", "globex-key");
    expect(
      globex.body.data.map((d: { id: number; rank: number; buyerCompanyId: number }) => [
        d.id,
        d.rank,
        d.buyerCompanyId,
      ]),
    ).toEqual([[refs["rel-g"], 1, refs.globex]]);
    expect((await ranked("store-1", "hvac", "", "globex-key")).status).toBe(400);
    expect((await ranked("store-1", "hvac", "", "coolco-key")).status).toBe(401);
  });

  it("is in the buyer OpenAPI document with its summary", async () => {
    const doc = await t.call(null, "GET", "/v1/buyer/openapi.json");
    const path =
      doc.body.paths["/v1/buyer/private_network/buyer_supplier_relationships/ranked/{locationId}/{problemTypeId}"];
    expect(`${path.get.summary} ${path.get.description}`).toContain("rank equals array order");
    expect(doc.body.paths["/v1/buyer/supplier_facilities/{id}"].get).toBeDefined();
  });
});
