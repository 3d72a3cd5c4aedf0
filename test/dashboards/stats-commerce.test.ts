// proposalStats and invoiceStats from outside: counts and exact decimal sums per currency, by status and
// month, equal to a plain SQL sum over the rows this file creates; each key's scope (a buyer never counts
// drafts, a supplier counts its facility's own), a foreign tenant, internal teams, and bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const proposalIds: number[] = [];
const invoiceIds: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const { refs } = t.fixture;
  // store-1 prices in USD, store-2 in CAD; one work order prices cross-currency in EUR.
  const workOrder = (location: string, currencyId: string | null = null) =>
    t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs[location],
        problemTypeId: refs.hvac,
        title: "Billed work",
        status: "WorkReviewedAndCompleted",
        createdBy: "alice@acme.example",
        supplierFacilityId: refs["coolco-pdx"],
        currencyId,
        statusChangedAt: new Date(),
      },
    });
  const orders = [await workOrder("store-1"), await workOrder("store-2"), await workOrder("store-1", "EUR")];
  const amounts = ["0.10", "0.20", "1000.05", "12.345", "7.99", "250.00"];
  const proposalStatuses = ["pending", "awarded", "declined"] as const;
  const invoiceStatuses = ["draft", "pending", "approved", "paid", "disputed"] as const;
  for (let i = 0; i < 18; i++) {
    const wo = orders[i % 3];
    const before = amounts[i % amounts.length];
    const tax = (Number(before) / 10).toFixed(2);
    const after = (Number(before) + Number(tax)).toFixed(2);
    const common = {
      workOrderId: wo.id,
      supplierFacilityId: refs["coolco-pdx"],
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      locationId: wo.locationId,
      createdById: refs.bob,
    };
    const created = new Date(Date.UTC(2026, 7 + (i % 3), 1 + i, 9));
    proposalIds.push(
      (
        await t.db.proposal.create({
          data: {
            ...common,
            status: proposalStatuses[(i >> 1) % 3],
            totalBeforeTax: before,
            tax,
            totalAfterTax: after,
            createdAt: created,
          },
        })
      ).id,
    );
    invoiceIds.push(
      (
        await t.db.invoice.create({
          data: {
            ...common,
            problemTypeId: wo.problemTypeId,
            currency: wo.currencyId ?? (wo.locationId === refs["store-2"] ? "CAD" : "USD"),
            status: invoiceStatuses[i % 5],
            dateOfInvoice: created,
            invoiceTotalBeforeTax: before,
            invoiceTax: tax,
            invoiceTotalAfterTax: after,
            statusChangedAt: created,
          },
        })
      ).id,
    );
  }
});
afterAll(() => t?.close());

const rowsOf = async (key: string, query: string) => {
  const reply = await t.graphql(key, query);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return Object.values(reply.body.data)[0] as Record<string, unknown>[];
};

describe("proposalStats", () => {
  it("sums exactly per status and currency, as plain SQL over the same rows", async () => {
    const rows = await rowsOf(
      "acme-key",
      `{ proposalStats(groupBy: [STATUS]) { status currency count totalBeforeTax tax totalAfterTax month } }`,
    );
    const expected = await t.db.$queryRaw<Record<string, unknown>[]>`
      SELECT p.status::text AS status, coalesce(w."currencyId", l.currency) AS currency, count(*)::int AS count,
             sum(p."totalBeforeTax")::text AS "totalBeforeTax", sum(p.tax)::text AS tax, sum(p."totalAfterTax")::text AS "totalAfterTax"
        FROM "Proposal" p JOIN "WorkOrder" w ON w.id = p."workOrderId" JOIN "Location" l ON l.id = p."locationId"
       WHERE p.id = ANY(${proposalIds}) GROUP BY p.status, 2 ORDER BY p.status, 2`;
    expect(new Set(expected.map((e) => e.currency))).toEqual(new Set(["USD", "CAD", "EUR"]));
    expect(rows).toEqual(expected.map((e) => ({ ...e, month: null })));
  });

  it("filters by status and creation period, and keeps other tenants and internal teams out", async () => {
    const rows = await rowsOf(
      "coolco-key",
      `{ proposalStats(groupBy: [MONTH], status: [awarded, declined], period: {from: "2026-09-01T00:00:00Z"}) { month currency count totalAfterTax } }`,
    );
    const expected = await t.db.$queryRaw<Record<string, unknown>[]>`
      SELECT date_trunc('month', p."createdAt", 'UTC') AS month, coalesce(w."currencyId", l.currency) AS currency,
             count(*)::int AS count, sum(p."totalAfterTax")::text AS "totalAfterTax"
        FROM "Proposal" p JOIN "WorkOrder" w ON w.id = p."workOrderId" JOIN "Location" l ON l.id = p."locationId"
       WHERE p.id = ANY(${proposalIds}) AND p.status IN ('awarded', 'declined') AND p."createdAt" >= '2026-09-01T00:00:00Z'
       GROUP BY 1, 2 ORDER BY 1, 2`;
    expect(rows).toEqual(expected.map((e) => ({ ...e, month: (e.month as Date).toISOString() })));
    expect(await rowsOf("globex-key", `{ proposalStats(groupBy: [STATUS]) { count } }`)).toEqual([]);
    expect(await rowsOf("unrelated-supplier-key", `{ proposalStats(groupBy: [STATUS]) { count } }`)).toEqual([]);
    const team = await t.graphql("inhouse-key", `{ proposalStats(groupBy: [STATUS]) { count } }`);
    expect(team.body.errors[0].extensions.code).toBe("ForbiddenException");
  });
});

describe("invoiceStats", () => {
  const query = `{ invoiceStats(groupBy: [STATUS, MONTH]) { status month currency count totalBeforeTax tax totalAfterTax } }`;
  const expectedFor = (drafts: boolean) => t.db.$queryRaw<Record<string, unknown>[]>`
    SELECT i.status::text AS status, date_trunc('month', i."dateOfInvoice", 'UTC') AS month, i.currency, count(*)::int AS count,
           sum(i."invoiceTotalBeforeTax")::text AS "totalBeforeTax", sum(i."invoiceTax")::text AS tax,
           sum(i."invoiceTotalAfterTax")::text AS "totalAfterTax"
      FROM "Invoice" i WHERE i.id = ANY(${invoiceIds}) AND (${drafts} OR i.status <> 'draft')
     GROUP BY i.status, 2, 3 ORDER BY i.status, 2, 3`;
  const iso = (rows: Record<string, unknown>[]) => rows.map((e) => ({ ...e, month: (e.month as Date).toISOString() }));

  it("gives a buyer its published invoices and the supplier its own, drafts included, summed exactly", async () => {
    const buyer = await rowsOf("acme-key", query);
    expect(buyer).toEqual(iso(await expectedFor(false)));
    expect(buyer.some((r) => r.status === "draft")).toBe(false);
    const supplier = await rowsOf("coolco-key", query);
    expect(supplier).toEqual(iso(await expectedFor(true)));
    expect(supplier.some((r) => r.status === "draft")).toBe(true);
    expect(await rowsOf("globex-key", query)).toEqual([]);
  });

  it("refuses bad input with invalidInputDataException", async () => {
    for (const args of [
      "groupBy: []",
      "groupBy: [MONTH, MONTH]",
      'groupBy: [STATUS], period: {from: "2026-10-01T00:00:00Z", to: "2026-09-01T00:00:00Z"}',
    ]) {
      const reply = await t.graphql("acme-key", `{ invoiceStats(${args}) { count } }`);
      expect(reply.body.errors?.[0]?.extensions?.code, args).toBe("invalidInputDataException");
    }
  });
});
