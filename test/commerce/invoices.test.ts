// Invoices seen from outside: the supplier's draft (derived fields and defaults, tax lines per currency,
// 406 save-level failures with nothing written), masking for third parties, the internal-team refusal,
// the buyer's progress through the one transition table (paid moves the work order to PaymentMade with
// its event), disputes, and the auto-publish of flagged drafts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommerceApp, workOrder, type CommerceApp } from "./helpers.ts";
import { waitFor } from "../support/wait.ts";
import { autoPublishRound } from "../../src/schema/invoices/rules/status.ts";
import { startInvoiceJobs } from "../../src/schema/invoices/public.ts";

let t: CommerceApp;
let refs: Record<string, number>;
const INVOICES = "/v1/supplier/invoice/invoices";
const BUYER_INVOICES = "/v1/buyer/invoice/invoices";
const WO = "/v1/buyer/work_order/work_orders";

beforeAll(async () => {
  t = await startCommerceApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const save = (body: Record<string, unknown>, key = "coolco-key") => t.call(key, "POST", INVOICES, body);
const buyer = (action: string, body: Record<string, unknown>, key = "acme-key") =>
  t.call(key, "PATCH", `${BUYER_INVOICES}/${action}`, body);
/** A published invoice: saved with autoPublishOnApproval on a work order already Completed. */
async function published(
  until: "WaitingForReview" | "WorkReviewedAndCompleted" = "WorkReviewedAndCompleted",
  extra: Record<string, unknown> = {},
) {
  const wo = await workOrder(t, until);
  const reply = await save({
    workOrderId: wo,
    laborLineItems: [{ description: "repair", amount: "100.00" }],
    autoPublishOnApproval: true,
    ...extra,
  });
  expect(reply.status, reply.body.message).toBe(200);
  expect(reply.body.data.status).toBe("pending");
  return { wo, id: reply.body.data.id as number };
}

describe("POST /v1/supplier/invoice/invoices", () => {
  it("creates a draft with everything derived from the work order, invisible to the buyer", async () => {
    const wo = await workOrder(t, "WaitingForReview", { extra: { poNumber: "PO-77" } });
    await t.db.workOrder.update({ where: { id: wo }, data: { spendCategoryId: 31 } });
    const calls = await t.db.serviceCall.findMany({ where: { workOrderId: wo } });
    expect(calls).toHaveLength(1);
    const reply = await save({
      workOrderId: wo,
      invoiceNumber: " INV-1 ",
      serviceCallIds: [],
      locationId: refs["store-2"],
      buyerCompanyId: refs.globex,
      spendCategoryId: 1,
      problemTypeId: refs.plumbing,
      status: "paid",
    });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.type).toBe("Invoice");
    expect(reply.body.data).toMatchObject({
      workOrderId: wo,
      status: "draft",
      invoiceNumber: "INV-1",
      poNumber: "PO-77",
      serviceCallIds: [calls[0].id],
      currency: "USD",
      locationId: refs["store-1"],
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      spendCategoryId: 31,
      problemTypeId: refs.hvac,
      invoiceTotalBeforeTax: "0.00",
      invoiceTaxRate: "0",
      invoiceTax: "0.00",
      invoiceTotalAfterTax: "0.00",
      taxLineItems: [],
      invoicePDFLink: null,
      invoicePdf: null,
      autoPublishOnApproval: false,
      approvedAt: null,
      processedAt: null,
      markedPaidAt: null,
    });
    expect(Date.parse(reply.body.data.dateOfInvoice)).toBeGreaterThan(Date.now() - 60_000);
    const id = reply.body.data.id;
    expect((await t.call("acme-key", "GET", `${BUYER_INVOICES}?workOrderId=${wo}`)).body).toMatchObject({
      count: 0,
      data: [],
    });
    expect((await t.call("acme-key", "GET", `${BUYER_INVOICES}/${id}`)).status).toBe(400);
    expect((await t.call("coolco-key", "GET", `${INVOICES}?status=draft&workOrderId=${wo}`)).body.count).toBe(1);
  });

  it("takes explicit poNumber, dateOfInvoice, service calls and a PDF link; refuses service calls of another work order", async () => {
    const wo = await workOrder(t, "WaitingForReview");
    const other = await workOrder(t, "WaitingForReview");
    const [own] = await t.db.serviceCall.findMany({ where: { workOrderId: wo } });
    const [foreign] = await t.db.serviceCall.findMany({ where: { workOrderId: other } });
    const reply = await save({
      workOrderId: wo,
      poNumber: "PO-X",
      dateOfInvoice: "2026-11-01T10:00:00+02:00",
      serviceCallIds: [own.id],
      invoicePDFLink: "https://files.coolco.example/inv/1.pdf",
    });
    expect(reply.body.data).toMatchObject({
      poNumber: "PO-X",
      dateOfInvoice: "2026-11-01T08:00:00.000Z",
      serviceCallIds: [own.id],
      invoicePDFLink: "https://files.coolco.example/inv/1.pdf",
      invoicePdf: { url: "https://files.coolco.example/inv/1.pdf", fileId: null },
    });
    const before = await t.db.invoice.count();
    const stray = await save({ workOrderId: wo, serviceCallIds: [own.id, foreign.id] });
    expect(stray.status).toBe(400);
    expect(stray.body.message).toBe(`serviceCallIds ${foreign.id} are not service calls of work order ${wo}`);
    expect((await save({ workOrderId: wo, invoicePDFLink: "ftp://x" })).status).toBe(400);
    expect((await save({ workOrderId: 999999 })).status).toBe(400);
    expect((await save({ workOrderId: wo }, "unrelated-supplier-key")).status).toBe(400);
    expect(await t.db.invoice.count()).toBe(before);
  });

  it("validates tax lines against the invoice currency: CAD takes GST, HST, PST", async () => {
    const wo = await workOrder(t, "WaitingForReview", {
      supplier: "coolco-van",
      supplierKey: "van-key",
      location: "store-2",
    });
    const ok = await save(
      {
        workOrderId: wo,
        materialLineItems: [{ description: "valve", amount: "200.00" }],
        taxLineItems: [
          { type: "gst", rate: "5", amount: "10.00" },
          { type: "PST", amount: "14.00" },
        ],
        invoiceTax: "24.00",
        invoiceTotalAfterTax: "224.00",
      },
      "van-key",
    );
    expect(ok.status, ok.body.message).toBe(200);
    expect(ok.body.data).toMatchObject({
      currency: "CAD",
      invoiceTax: "24.00",
      invoiceTotalAfterTax: "224.00",
      taxLineItems: [
        { type: "GST", rate: "5", amount: "10.00" },
        { type: "PST", rate: null, amount: "14.00" },
      ],
    });
    const before = await t.db.invoice.count();
    const refused: [unknown, string][] = [
      [
        [{ type: "QST", amount: "1.00" }],
        "taxLineItems[0].type QST is not a tax of CAD invoices (allowed: GST, HST, PST)",
      ],
      [
        [
          { type: "HST", amount: "26.00" },
          { type: "GST", amount: "1.00" },
        ],
        "HST replaces GST and PST",
      ],
      [
        [
          { type: "GST", amount: "1.00" },
          { type: "GST", amount: "1.00" },
        ],
        "taxLineItems[1].type GST appears more than once",
      ],
      [[{ type: "HST", rate: "13", amount: "26.01" }], "taxLineItems[0].amount is 26.01 but 13% of 200.00 is 26.00"],
    ];
    for (const [taxLineItems, message] of refused) {
      const reply = await save(
        { workOrderId: wo, materialLineItems: [{ description: "valve", amount: "200.00" }], taxLineItems },
        "van-key",
      );
      expect(reply.status, message).toBe(406);
      expect(reply.body).toMatchObject({ type: "NotAcceptableException", status: "error" });
      expect(reply.body.message).toContain(message);
    }
    // A USD invoice (coolco-pdx at store-1) takes none.
    const usd = await workOrder(t, "WaitingForReview");
    const reply = await save({ workOrderId: usd, taxLineItems: [{ type: "GST", amount: "1.00" }] });
    expect(reply.status).toBe(406);
    expect(reply.body.message).toContain(
      "taxLineItems are accepted only on CAD invoices (GST, HST, PST); this invoice is in USD",
    );
    // Shape errors are bad input (400), not save-level.
    expect((await save({ workOrderId: usd, taxLineItems: [{ type: "GST", amount: "-1" }] })).status).toBe(400);
    expect((await save({ workOrderId: usd, taxLineItems: { type: "GST" } })).status).toBe(400);
    expect(await t.db.invoice.count()).toBe(before);
  });

  it("accepts an invoice of only invoiceTotalAfterTax: the totals not sent follow it", async () => {
    const wo = await workOrder(t, "WaitingForReview");
    const reply = await save({ workOrderId: wo, invoiceTotalAfterTax: "250.00" });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.data).toMatchObject({
      invoiceTotalBeforeTax: "250.00",
      invoiceTax: "0.00",
      invoiceTotalAfterTax: "250.00",
    });
  });

  it("answers totals that do not add up, a taken invoice number and a change to a published invoice with 406", async () => {
    const wo = await workOrder(t, "WaitingForReview");
    const before = await t.db.invoice.count();
    const totals = await save({
      workOrderId: wo,
      laborLineItems: [{ description: "x", amount: "10.00" }],
      invoiceTaxRate: "10",
      invoiceTotalAfterTax: "10.00",
    });
    expect(totals.status).toBe(406);
    expect(totals.body.message).toBe(
      "the totals do not add up: invoiceTotalAfterTax is 10.00 but invoiceTotalBeforeTax 10.00 + invoiceTax 1.00 = 11.00",
    );
    expect(await t.db.invoice.count()).toBe(before);
    expect((await save({ workOrderId: wo, invoiceNumber: "DUP-1" })).status).toBe(200);
    const dup = await save({ workOrderId: wo, invoiceNumber: "DUP-1" });
    expect(dup.status).toBe(406);
    expect(dup.body.message).toMatch(/^invoiceNumber DUP-1 is already used by invoice \d+ of this facility$/);
    // Another facility may use the same number.
    const van = await workOrder(t, "WaitingForReview", {
      supplier: "coolco-van",
      supplierKey: "van-key",
      location: "store-2",
    });
    expect((await save({ workOrderId: van, invoiceNumber: "DUP-1" }, "van-key")).status).toBe(200);
    const { id, wo: pendingWo } = await published();
    const change = await save({ id, workOrderId: pendingWo, invoiceNumber: "late" });
    expect(change.status).toBe(406);
    expect(change.body.message).toBe(`cannot revise invoice ${id} in status pending; allowed from draft, disputed`);
  });

  it("updates the facility's own draft by id, keeping what is not sent", async () => {
    const wo = await workOrder(t, "WaitingForReview");
    const draft = (
      await save({
        workOrderId: wo,
        invoiceNumber: "UPD-1",
        miscLineItems: [{ description: "permit", amount: "50.00" }],
      })
    ).body.data;
    const updated = await save({
      id: draft.id,
      workOrderId: wo,
      laborLineItems: [{ description: "labor", amount: "25.50" }],
      invoiceTotalAfterTax: "75.50",
    });
    expect(updated.status, updated.body.message).toBe(200);
    expect(updated.body.data).toMatchObject({
      id: draft.id,
      invoiceNumber: "UPD-1",
      miscTotalBeforeTax: "50.00",
      laborTotalBeforeTax: "25.50",
      invoiceTotalAfterTax: "75.50",
      status: "draft",
    });
    const foreign = await save({ id: draft.id, workOrderId: wo }, "unrelated-supplier-key");
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(`no invoice ${draft.id} that this key may change`);
  });
});

describe("who sees invoices", () => {
  it("refuses internal service team keys on every invoice path with 403", async () => {
    const wo = await workOrder(t, "WaitingForReview", { supplier: "inhouse-west", supplierKey: "inhouse-key" });
    const replies = [
      await t.call("inhouse-key", "POST", INVOICES, { workOrderId: wo }),
      await t.call("inhouse-key", "GET", INVOICES),
      await t.call("inhouse-key", "GET", `${INVOICES}/1`),
      await t.call("inhouse-key", "GET", `${INVOICES}/count_by`),
    ];
    for (const reply of replies)
      expect(reply.body).toMatchObject({
        type: "ForbiddenException",
        message: "invoices are not available to internal service team keys",
      });
    expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    const gql = await t.graphql("inhouse-key", "{ invoices { count } }");
    expect(gql.body.errors[0].extensions.code).toBe("ForbiddenException");
    expect(await t.db.invoice.count({ where: { workOrderId: wo } })).toBe(0);
  });

  it("masks the buyer's approval and processing notes and GL coding for the third-party supplier", async () => {
    const { id, wo } = await published();
    await t.db.workOrder.update({ where: { id: wo }, data: { glCode: "6100-HVAC" } });
    const approved = await buyer("approve", { id, notes: "ok per contract" });
    expect(approved.body.data).toMatchObject({
      status: "approved",
      approvalNotes: "ok per contract",
      glCode: "6100-HVAC",
    });
    await buyer("process", { id, notes: "batch 42" });
    const supplier = await t.call("coolco-key", "GET", `${INVOICES}/${id}`);
    expect(supplier.body.data).toMatchObject({
      status: "processing",
      approvalNotes: null,
      processingNotes: null,
      glCode: null,
    });
    expect(supplier.body.data).toHaveProperty("glCode");
    const list = await t.call("coolco-key", "GET", `${INVOICES}?id=${id}`);
    expect(list.body.data[0]).toMatchObject({ approvalNotes: null, processingNotes: null, glCode: null });
    const gql = await t.graphql("coolco-key", `query($id: Int!) { invoice(id: $id) { glCode approvalNotes } }`, { id });
    expect(gql.body.data.invoice).toEqual({ glCode: null, approvalNotes: null });
    const own = await t.call("acme-key", "GET", `${BUYER_INVOICES}/${id}`);
    expect(own.body.data).toMatchObject({
      approvalNotes: "ok per contract",
      processingNotes: "batch 42",
      glCode: "6100-HVAC",
    });
  });

  it("filters by status (known statuses only) and keeps other tenants out", async () => {
    const { id } = await published();
    const pending = await t.call("acme-key", "GET", `${BUYER_INVOICES}?status=pending&limit=25`);
    expect(pending.body.data.every((i: { status: string }) => i.status === "pending")).toBe(true);
    expect(pending.body.data.map((i: { id: number }) => i.id)).toContain(id);
    expect((await t.call("acme-key", "GET", `${BUYER_INVOICES}?status=draft`)).body.count).toBe(0);
    const bad = await t.call("coolco-key", "GET", `${INVOICES}?status=open`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain(
      "filter status expects one of draft, pending, approved, processing, paid, disputed",
    );
    expect((await t.call("globex-key", "GET", BUYER_INVOICES)).body.count).toBe(0);
    expect((await t.call("globex-key", "GET", `${BUYER_INVOICES}/${id}`)).status).toBe(400);
    expect((await t.call("unrelated-supplier-key", "GET", `${INVOICES}/${id}`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${BUYER_INVOICES}/999999`)).status).toBe(404);
  });
});

describe("buyer progress: pending → approved → processing → paid", () => {
  it("stamps each step and moves the work order to PaymentMade with its event", async () => {
    const { id, wo } = await published();
    const steps = [
      ["approve", "approved", "approvedAt"],
      ["process", "processing", "processedAt"],
      ["mark_paid", "paid", "markedPaidAt"],
    ] as const;
    for (const [action, status, stamp] of steps) {
      const reply = await buyer(action, { id });
      expect(reply.status, `${action}: ${reply.body.message}`).toBe(200);
      expect(reply.body.data.status).toBe(status);
      expect(Date.parse(reply.body.data[stamp])).toBeGreaterThan(Date.now() - 60_000);
    }
    const order = await t.call("acme-key", "GET", `${WO}/${wo}`);
    expect(order.body.data.status).toBe("PaymentMade");
    expect(order.body.data.statusChanges.at(-1)).toMatchObject({
      from: "WorkReviewedAndCompleted",
      to: "PaymentMade",
      action: "invoice_paid",
      actorKind: "system",
      actor: "Alice Admin",
    });
    const events = await t.db.outboxEvent.findMany({ where: { workOrderId: wo }, orderBy: { id: "asc" } });
    expect(events.at(-1)).toMatchObject({
      eventType: "workorder.status_update",
      payload: expect.objectContaining({
        oldStatus: "WorkReviewedAndCompleted",
        newStatus: "PaymentMade",
        action: "invoice_paid",
      }),
    });
    // A second paid invoice leaves the work order as it is (one status change, one event).
    const second = await save({ workOrderId: wo, autoPublishOnApproval: true });
    for (const action of ["approve", "process", "mark_paid"])
      expect((await buyer(action, { id: second.body.data.id })).status).toBe(200);
    expect(await t.db.outboxEvent.count({ where: { workOrderId: wo } })).toBe(events.length);
  });

  it("refuses steps out of order, naming the current status, and changes nothing", async () => {
    const { id } = await published();
    const before = await t.db.invoice.findUniqueOrThrow({ where: { id } });
    const reply = await buyer("mark_paid", { id });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe(`cannot mark_paid invoice ${id} in status pending; allowed from processing`);
    expect(await t.db.invoice.findUniqueOrThrow({ where: { id } })).toEqual(before);
  });

  it("refuses to mark paid while the work order is not reviewed, and rolls the whole step back", async () => {
    const { id, wo } = await published("WaitingForReview");
    await buyer("approve", { id });
    await buyer("process", { id });
    const reply = await buyer("mark_paid", { id });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("cannot invoice_paid a work order in status WaitingForReview");
    expect((await t.db.invoice.findUniqueOrThrow({ where: { id } })).status).toBe("processing");
    expect((await t.db.workOrder.findUniqueOrThrow({ where: { id: wo } })).status).toBe("WaitingForReview");
  });

  it("is the buyer's own and needs the approve permission; GraphQL takes the same path", async () => {
    const { id } = await published();
    expect((await buyer("approve", { id }, "globex-key")).body.message).toBe(
      `no invoice ${id} that this key may change`,
    );
    expect((await buyer("approve", { id }, "acme-requester-key")).body.message).toBe(
      `no invoice ${id} that this key may change`,
    );
    const gql = await t.graphql(
      "acme-key",
      `mutation($id: Int!) { invoiceApprove(input: {id: $id, notes: "fine"}) { status approvalNotes workOrder { status } } }`,
      { id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.invoiceApprove).toEqual({
      status: "approved",
      approvalNotes: "fine",
      workOrder: { status: "WorkReviewedAndCompleted" },
    });
    const supplierTries = await t.graphql(
      "coolco-key",
      `mutation($id: Int!) { invoiceApprove(input: {id: $id}) { status } }`,
      { id },
    );
    expect(supplierTries.body.errors[0].extensions.code).toBe("ForbiddenException");
  });
});

describe("disputes", () => {
  it("disputes with notes; the supplier's revision returns it to draft", async () => {
    const { id, wo } = await published();
    expect((await buyer("dispute", { id })).status).toBe(400);
    const disputed = await buyer("dispute", { id, notes: "labor hours too high" });
    expect(disputed.body.data).toMatchObject({ status: "disputed", disputeNotes: "labor hours too high" });
    const supplierView = await t.call("coolco-key", "GET", `${INVOICES}/${id}`);
    expect(supplierView.body.data).toMatchObject({ status: "disputed", disputeNotes: "labor hours too high" });
    expect((await buyer("approve", { id })).status).toBe(400);
    // autoPublishOnApproval off: with it on, the revision would be published again at once (the work order is Completed).
    const revised = await save({
      id,
      workOrderId: wo,
      laborLineItems: [{ description: "repair", amount: "80.00" }],
      autoPublishOnApproval: false,
    });
    expect(revised.status, revised.body.message).toBe(200);
    expect(revised.body.data).toMatchObject({
      status: "draft",
      invoiceTotalAfterTax: "80.00",
      disputeNotes: "labor hours too high",
    });
    expect((await t.call("acme-key", "GET", `${BUYER_INVOICES}/${id}`)).status).toBe(400);
    const again = await save({ id, workOrderId: wo, autoPublishOnApproval: true });
    expect(again.body.data.status).toBe("pending");
  });
});

describe("autoPublishOnApproval", () => {
  it("publishes the draft once the work order reaches Completed (the worker's loop)", async () => {
    const wo = await workOrder(t, "confirmed");
    const draft = await save({ workOrderId: wo, autoPublishOnApproval: true });
    expect(draft.body.data.status).toBe("draft");
    const jobs = startInvoiceJobs({ db: t.db, logger: t.app.services.logger, now: () => new Date(), intervalMs: 20 });
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect((await t.db.invoice.findUniqueOrThrow({ where: { id: draft.body.data.id } })).status).toBe("draft");
      for (const [action, body] of [
        ["check_in", { technicianEmail: "tina@coolco.example" }],
        ["check_out", { outcome: "completed" }],
      ] as const) {
        expect(
          (await t.call("coolco-key", "PATCH", `/v1/supplier/work_order/work_orders/${action}`, { id: wo, ...body }))
            .status,
        ).toBe(200);
      }
      await waitFor(
        async () => (await t.db.invoice.findUniqueOrThrow({ where: { id: draft.body.data.id } })).status === "pending",
        5_000,
        "the worker to publish the draft",
      );
    } finally {
      await jobs.close();
    }
    const reply = await t.call("acme-key", "GET", `${BUYER_INVOICES}/${draft.body.data.id}`);
    expect(reply.body.data).toMatchObject({ status: "pending" });
    expect(reply.body.data.publishedAt).not.toBeNull();
  });

  it("leaves drafts alone without the flag, or while the buyer disallows supplier invoice editing", async () => {
    const wo = await workOrder(t, "WaitingForReview");
    const plain = await save({ workOrderId: wo });
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: false } });
    try {
      const flagged = await save({ workOrderId: wo, autoPublishOnApproval: true });
      expect(flagged.body.data.status).toBe("draft");
      await autoPublishRound(t.db, new Date());
      expect((await t.db.invoice.findUniqueOrThrow({ where: { id: flagged.body.data.id } })).status).toBe("draft");
    } finally {
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: true } });
    }
    await autoPublishRound(t.db, new Date());
    expect((await t.db.invoice.findUniqueOrThrow({ where: { id: plain.body.data.id } })).status).toBe("draft");
  });
});
