// Proposals seen from outside: the supplier's create and revise (derived fields, defaults, exact totals,
// attachments), every kind of key (third party, internal team, foreign buyer, other supplier), bad input
// with nothing written, and the buyer's decision over REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filePart, pdf, startCommerceApp, upload, workOrder, type CommerceApp } from "./helpers.ts";

let t: CommerceApp;
let refs: Record<string, number>;
let wo: number;
const PROPOSALS = "/v1/supplier/quote/proposals";
const BUYER_PROPOSALS = "/v1/buyer/quote/proposals";

beforeAll(async () => {
  t = await startCommerceApp();
  refs = t.fixture.refs;
  wo = await workOrder(t, "confirmed");
});
afterAll(() => t?.close());

const propose = (body: Record<string, unknown>, key = "coolco-key") =>
  t.call(key, "POST", PROPOSALS, { workOrderId: wo, ...body });
const count = () => t.db.proposal.count();

describe("POST /v1/supplier/quote/proposals", () => {
  it("creates a pending proposal with fields derived from the work order and unset totals at zero", async () => {
    await t.db.workOrder.update({ where: { id: wo }, data: { requestForProposalId: 4711 } });
    const reply = await propose({
      totalAfterTax: "0.00",
      scope: "Replace the compressor",
      locationId: refs["store-2"],
      buyerCompanyId: refs.globex,
      buyerFacilityId: 999,
      status: "awarded",
    });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.type).toBe("Proposal");
    expect(reply.body.data).toMatchObject({
      workOrderId: wo,
      status: "pending",
      scope: "Replace the compressor",
      supplierFacilityId: refs["coolco-pdx"],
      locationId: refs["store-1"],
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      requestForProposalId: 4711,
      laborLineItems: [],
      laborTaxRate: "0",
      laborTotalBeforeTax: "0.00",
      incurredCostTotalBeforeTax: "0.00",
      totalBeforeTax: "0.00",
      taxRate: "0",
      tax: "0.00",
      totalAfterTax: "0.00",
      attachments: [],
      declineNotes: null,
    });
  });

  it("accepts a proposal of only workOrderId, totalAfterTax and scope: the totals not sent follow the one sent", async () => {
    const reply = await propose({ totalAfterTax: "1385.94", scope: "Lump sum" });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data).toMatchObject({
      laborTotalBeforeTax: "0.00",
      taxRate: "0",
      totalBeforeTax: "1385.94",
      tax: "0.00",
      totalAfterTax: "1385.94",
    });
  });

  it("rolls sections up to before-tax, tax and after-tax totals with exact decimals", async () => {
    const reply = await propose({
      laborLineItems: [
        { description: "2 h technician", amount: "190.10" },
        { description: "helper", amount: "0.10", hours: 1 },
      ],
      materialLineItems: [{ description: "compressor", amount: "1000.20" }],
      materialTaxRate: "8.875",
      travelTotalBeforeTax: "45.00",
      taxRate: "5",
      // labor 190.20 + material 1000.20 + travel 45.00 = 1235.40;
      // tax = (1000.20 × 8.875 + 1235.40 × 5) / 100 = 88.76775 + 61.77 = 150.53775 → 150.54
      totalBeforeTax: "1235.40",
      tax: "150.54",
      totalAfterTax: "1385.94",
    });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data).toMatchObject({
      laborLineItems: [
        { description: "2 h technician", amount: "190.10" },
        { description: "helper", amount: "0.10" },
      ],
      laborTotalBeforeTax: "190.20",
      materialTotalBeforeTax: "1000.20",
      materialTaxRate: "8.875",
      travelTotalBeforeTax: "45.00",
      travelLineItems: [],
      totalBeforeTax: "1235.40",
      taxRate: "5",
      tax: "150.54",
      totalAfterTax: "1385.94",
    });
    // 0.1 + 0.2 style sums stay exact: stored as numeric, not floats.
    const row = await t.db.proposal.findUniqueOrThrow({ where: { id: reply.body.data.id } });
    expect(row.totalAfterTax.toFixed(2)).toBe("1385.94");
  });

  it("refuses totals that do not add up with a 400 naming each, and writes nothing", async () => {
    const before = await count();
    const reply = await propose({
      laborLineItems: [
        { description: "a", amount: "0.10" },
        { description: "b", amount: "0.20" },
      ],
      laborTotalBeforeTax: "0.31",
      totalAfterTax: "0.30",
    });
    expect(reply.status).toBe(400);
    expect(reply.body.type).toBe("invalidInputDataException");
    expect(reply.body.message).toContain("laborTotalBeforeTax is 0.31 but its line items add up to 0.30");
    const tax = await propose({
      materialTotalBeforeTax: "100.00",
      taxRate: "13",
      tax: "13.01",
      totalAfterTax: "113.01",
    });
    expect(tax.status).toBe(400);
    expect(tax.body.message).toContain("tax is 13.01 but the tax rates give 13.00");
    expect(tax.body.message).toContain("totalAfterTax is 113.01 but totalBeforeTax 100.00 + tax 13.00 = 113.00");
    expect(await count()).toBe(before);
  });

  it("400 for amounts that are not decimal strings, negative or over-precise, and for bad line items", async () => {
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ totalAfterTax: 12.5 }, "must be a string"],
      [{ totalAfterTax: "12,50" }, "totalAfterTax must be a decimal string"],
      [{ totalAfterTax: "1e3" }, "totalAfterTax must be a decimal string"],
      [{ totalAfterTax: "-1.00" }, "totalAfterTax must not be negative"],
      [{ totalAfterTax: "1.001" }, "totalAfterTax allows at most 2 digits"],
      [
        { totalAfterTax: "0", laborLineItems: [{ description: "x", amount: 5 }] },
        "laborLineItems[0].amount must be a decimal string",
      ],
      [
        { totalAfterTax: "0", laborLineItems: [{ description: "x", amount: "-5" }] },
        "laborLineItems[0].amount must not be negative",
      ],
      [{ totalAfterTax: "0", laborLineItems: [{ amount: "5" }] }, "laborLineItems[0].description"],
      [{ totalAfterTax: "0", laborLineItems: "5" }, "laborLineItems must be an array"],
      [{ totalAfterTax: "0", taxRate: "101" }, "taxRate is a percentage"],
      [{ totalAfterTax: "0", proposalPdfLink: "not a url" }, "proposalPdfLink must be a valid"],
      [{}, "totalAfterTax"],
    ];
    for (const [body, message] of cases) {
      const reply = await propose(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.message, JSON.stringify(body)).toContain(message);
    }
    expect(await count()).toBe(before);
  });

  it("refuses unknown work orders, work orders of another supplier, and a foreign request for proposal", async () => {
    const other = await workOrder(t, "confirmed", { supplier: "inhouse-west", supplierKey: "inhouse-key" });
    const notYetVisible = await workOrder(t, "assigned", { extra: { needApproval: true } });
    for (const workOrderId of [999999, other, notYetVisible]) {
      const reply = await propose({ workOrderId, totalAfterTax: "0" });
      expect(reply.status, String(workOrderId)).toBe(400);
      expect(reply.body.message).toBe(`workOrderId ${workOrderId} is not a work order assigned to this key's facility`);
    }
    const rfp = await propose({ totalAfterTax: "0", requestForProposalId: 1 });
    expect(rfp.status).toBe(400);
    expect(rfp.body.message).toContain("requestForProposalId 1 is not the request for proposal");
    const elsewhere = await propose({ totalAfterTax: "0" }, "unrelated-supplier-key");
    expect(elsewhere.status).toBe(400);
  });

  it("attaches files the facility uploaded, in order, and refuses anyone else's", async () => {
    const first = await upload(t, "coolco-key", "/v1/supplier/file/upload", [filePart(pdf(), "a.pdf")]);
    const second = await upload(t, "coolco-key", "/v1/supplier/file/upload", [
      filePart("photo", "site.jpg", "image/jpeg"),
    ]);
    const foreign = await upload(t, "unrelated-supplier-key", "/v1/supplier/file/upload", [filePart(pdf(), "x.pdf")]);
    const reply = await propose({ totalAfterTax: "0", attachments: [second.body.data, first.body.data.id] });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data.attachments.map((f: { id: number }) => f.id)).toEqual([
      second.body.data.id,
      first.body.data.id,
    ]);
    expect(reply.body.data.attachments[0]).toMatchObject({ name: "site.jpg", contentType: "image/jpeg", size: 5 });
    const before = await count();
    const refused = await propose({
      totalAfterTax: "0",
      attachments: [first.body.data.id, foreign.body.data.id, 424242],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      `attachments ${foreign.body.data.id}, 424242 are not files uploaded by this key's facility`,
    );
    expect((await propose({ totalAfterTax: "0", attachments: [{ name: "no id" }] })).status).toBe(400);
    expect(await count()).toBe(before);
  });

  it("revises the facility's own pending proposal by id; keeps what is not sent, recomputes totals", async () => {
    const created = await propose({
      materialLineItems: [{ description: "part", amount: "10.00" }],
      taxRate: "10",
      totalAfterTax: "11.00",
      scope: "v1",
    });
    const id = created.body.data.id;
    const revised = await propose({
      id,
      laborLineItems: [{ description: "labor", amount: "5.00" }],
      totalAfterTax: "16.50",
    });
    expect(revised.status, revised.body.message).toBe(200);
    expect(revised.body.data).toMatchObject({
      id,
      scope: "v1",
      materialTotalBeforeTax: "10.00",
      laborTotalBeforeTax: "5.00",
      taxRate: "10",
      tax: "1.50",
      totalAfterTax: "16.50",
    });
    expect(await t.db.proposal.count({ where: { id } })).toBe(1);
    // Someone else's proposal, an unknown id, another work order: refused, unchanged.
    for (const [key, body] of [
      ["unrelated-supplier-key", { id, totalAfterTax: "0" }],
      ["coolco-key", { id: 777777, totalAfterTax: "0" }],
    ] as const) {
      const reply = await propose(body, key);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(/^no proposal \d+ that this key may change$/);
    }
    const moved = await propose({ id, workOrderId: wo + 1000, totalAfterTax: "0" });
    expect(moved.status).toBe(400);
    expect((await t.call("coolco-key", "GET", `${PROPOSALS}/${id}`)).body.data).toMatchObject({
      totalAfterTax: "16.50",
      scope: "v1",
    });
  });

  it("needs the billing permission", async () => {
    const reply = await propose({ totalAfterTax: "0" }, "coolco-tech-key");
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("this key may not write proposals, invoices and files");
  });
});

describe("who sees proposals", () => {
  it("refuses internal service team keys on every proposal path with 403", async () => {
    const own = await workOrder(t, "confirmed", { supplier: "inhouse-west", supplierKey: "inhouse-key" });
    const replies = [
      await t.call("inhouse-key", "POST", PROPOSALS, { workOrderId: own, totalAfterTax: "0" }),
      await t.call("inhouse-key", "GET", PROPOSALS),
      await t.call("inhouse-key", "GET", `${PROPOSALS}/1`),
      await t.call("inhouse-key", "GET", `${PROPOSALS}/count_by`),
      await t.graphql("inhouse-key", "{ proposals { count } }"),
    ];
    for (const reply of replies.slice(0, 4)) {
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({
        type: "ForbiddenException",
        message: "proposals are not available to internal service team keys",
      });
    }
    expect(replies[4].body.errors[0].extensions.code).toBe("ForbiddenException");
    expect(await t.db.proposal.count({ where: { workOrderId: own } })).toBe(0);
  });

  it("lists a supplier's own and a buyer's company's proposals; others get nothing", async () => {
    const mine = await t.call("coolco-key", "GET", `${PROPOSALS}?workOrderId=${wo}&limit=25`);
    expect(mine.body.count).toBeGreaterThan(3);
    const buyer = await t.call("acme-key", "GET", `${BUYER_PROPOSALS}?workOrderId=${wo}&limit=25`);
    expect(buyer.body.count).toBe(mine.body.count);
    expect((await t.call("globex-key", "GET", BUYER_PROPOSALS)).body).toMatchObject({ count: 0, data: [] });
    expect((await t.call("unrelated-supplier-key", "GET", PROPOSALS)).body.count).toBe(0);
    const id = mine.body.data[0].id;
    expect((await t.call("globex-key", "GET", `${BUYER_PROPOSALS}/${id}`)).status).toBe(400);
    expect((await t.call("unrelated-supplier-key", "GET", `${PROPOSALS}/${id}`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${BUYER_PROPOSALS}/999999`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${BUYER_PROPOSALS}?status=bogus`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${BUYER_PROPOSALS}/count_by?group_by=status`)).body.data).toEqual([
      { value: "pending", count: buyer.body.count },
    ]);
  });
});

describe("the buyer's decision", () => {
  const fresh = async () => (await propose({ totalAfterTax: "0" })).body.data.id as number;

  it("awards a pending proposal, once", async () => {
    const id = await fresh();
    const reply = await t.call("acme-key", "PATCH", `${BUYER_PROPOSALS}/award`, { id });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data).toMatchObject({
      id,
      status: "awarded",
      decidedBy: "alice@acme.example",
      declineNotes: null,
    });
    const again = await t.call("acme-key", "PATCH", `${BUYER_PROPOSALS}/decline`, {
      id,
      declineNotes: "changed my mind",
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`cannot decline proposal ${id} in status awarded; allowed from pending`);
    // The supplier can no longer revise it.
    const revise = await propose({ id, totalAfterTax: "0" });
    expect(revise.status).toBe(400);
    expect(revise.body.message).toContain("in status awarded");
  });

  it("declines a pending proposal with its notes, once", async () => {
    const id = await fresh();
    const reply = await t.call("acme-key", "PATCH", `${BUYER_PROPOSALS}/decline`, { id, declineNotes: "over budget" });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toMatchObject({
      type: "Proposal",
      data: { id, status: "declined", declineNotes: "over budget", decidedBy: "alice@acme.example" },
    });
    const again = await t.call("acme-key", "PATCH", `${BUYER_PROPOSALS}/award`, { id });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`cannot award proposal ${id} in status declined; allowed from pending`);
  });

  it("declines with declineNotes (required) over GraphQL too", async () => {
    const id = await fresh();
    const missing = await t.call("acme-key", "PATCH", `${BUYER_PROPOSALS}/decline`, { id });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("declineNotes is required");
    const gql = await t.graphql(
      "acme-key",
      `mutation($id: Int!) { proposalDecline(input: {id: $id, declineNotes: "too expensive"}) { status declineNotes workOrder { id } } }`,
      { id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.proposalDecline).toEqual({
      status: "declined",
      declineNotes: "too expensive",
      workOrder: { id: wo },
    });
    expect((await t.call("coolco-key", "GET", `${PROPOSALS}/${id}`)).body.data).toMatchObject({
      status: "declined",
      declineNotes: "too expensive",
    });
  });

  it("is the buyer company's alone, and needs the approve permission", async () => {
    const id = await fresh();
    const foreign = await t.call("globex-key", "PATCH", `${BUYER_PROPOSALS}/award`, { id });
    const unknown = await t.call("globex-key", "PATCH", `${BUYER_PROPOSALS}/award`, { id: 888888 });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message.replace(String(id), "N")).toBe(unknown.body.message.replace("888888", "N"));
    const denied = await t.call("acme-requester-key", "PATCH", `${BUYER_PROPOSALS}/award`, { id });
    expect(denied.status).toBe(400);
    expect(denied.body.message).toBe(`no proposal ${id} that this key may change`);
    expect((await t.call("coolco-key", "PATCH", `${PROPOSALS}/award`, { id })).status).toBe(404);
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id } })).status).toBe("pending");
  });
});
