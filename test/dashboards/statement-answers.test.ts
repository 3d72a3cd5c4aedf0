// A list's rows answered by the statement that reads them (schema/core/statement-answers.ts: GraphQL
// connections, and the offset lists of REST and GraphQL) must answer exactly as the rows resolved field
// by field. Two instances with the same fixture and data: one as deployed, one that resolves every row
// (Config.resolvedRows). Every request of the corpus goes to both with every kind of key (buyer, foreign
// buyer, third-party and in-house supplier), and status, raw headers, body bytes and log line must be the
// same; each case also says whether the deployed instance answered it from the statement (the log line's
// rowsAnswered), so the corpus cannot quietly stop testing the path it names.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";
import { compareCorpus, rawRequest, type Answer } from "../support/raw-http.ts";
import { buildSchemas } from "../../src/schema/index.ts";
import type { Prisma } from "../../src/db.ts";

let deployed: TestApp;
let resolved: TestApp;

/** The same work orders, labels and notes on both instances (their own databases, so the same ids). */
async function board(t: TestApp) {
  const { refs } = t.fixture;
  const gone = await t.db.label.create({
    data: { buyerCompanyId: refs.acme, kind: "work_order", name: "Retired", deletedAt: new Date(Date.UTC(2026, 9, 1)) },
  });
  const rows = [
    { location: "store-1", supplier: "coolco-pdx", asset: "rtu-1", labels: [refs.urgent, gone.id] },
    { location: "store-2", supplier: "inhouse-west", asset: null, labels: [refs.urgent] },
    { location: "store-1", supplier: null, asset: "g-asset", labels: [] }, // another tenant's asset: out of scope
    { location: "store-2", supplier: "coolco-sea", asset: "rtu-1", labels: [] },
    { location: "store-1", supplier: "coolco-pdx", asset: null, labels: [refs.urgent] },
  ];
  // The fixture's assets were created at each instance's own start: the same time on both.
  await t.db.asset.updateMany({ data: { createdAt: new Date(Date.UTC(2026, 9, 1)) } });
  // Assets with and without their own refrigerant values, install dates and warranties.
  for (const [i, own] of [null, "R-22", null].entries())
    await t.db.asset.create({
      data: {
        name: `Unit ${i} "x"`,
        assetTypeId: refs.rtu,
        locationId: refs["store-2"],
        buyerCompanyId: refs.acme,
        refrigerantTypeCode: own,
        fullChargeLb: own ? 12.75 : null,
        refrigerantRequiresProcessShutdown: own ? true : null,
        installDate: i === 1 ? new Date(Date.UTC(2024, 1, 29)) : null,
        warranties:
          i === 2 ? [{ provider: "Acme Care", description: "parts", startsAt: "2026-01-01", endsAt: null }] : [],
        createdAt: new Date(Date.UTC(2026, 9, 2, 3, 4, 5, 678)),
      },
    });
  for (const [i, row] of rows.entries()) {
    const at = new Date(Date.UTC(2026, 10, 1, 8) + i * 3_600_000 + 123);
    const wo = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs[row.location],
        problemTypeId: refs.hvac,
        supplierFacilityId: row.supplier ? refs[row.supplier] : null,
        assetId: row.asset ? refs[row.asset] : null,
        subAssetIds: i % 2 ? [refs["rtu-1"]] : [],
        title: `Answered ${i} "quoted" \\ é`,
        status: i % 2 ? "TechAssigned" : "Unassigned",
        woPriority: i === 2 ? null : 4 * (i + 1),
        createdBy: "alice@acme.example",
        createdAt: at,
        statusChangedAt: at,
        labels: { create: row.labels.map((labelId) => ({ labelId })) },
      },
    });
    for (let n = 0; n < i; n++)
      await t.db.workOrderNote.create({
        data: {
          workOrderId: wo.id,
          thread: n === 1 ? "internal" : "root",
          text: `note ${n} of ${i}`,
          noteAddedBy: "bob@acme.example",
          noteAddedAt: new Date(at.getTime() + (n % 3) * 60_000), // ties broken by id
        },
      });
  }
  await commerce(t);
  await purchasing(t);
}

/** Proposals and invoices of two suppliers, with line items, rates, attachments and PDFs (a file, a link, none). */
async function commerce(t: TestApp) {
  const { refs } = t.fixture;
  const orders = await t.db.workOrder.findMany({
    where: { title: { startsWith: "Answered" } },
    orderBy: { id: "asc" },
  });
  const files = [];
  for (const [i, name] of ["quote.pdf", "photo.jpg"].entries())
    files.push(
      await t.db.storedFile.create({
        data: {
          supplierFacilityId: refs["coolco-pdx"],
          uploadedById: refs.alice,
          name,
          contentType: i ? "image/jpeg" : "application/pdf",
          size: 1000 + i,
          storageKey: `answers-${name}`,
          createdAt: new Date(Date.UTC(2026, 9, 3, 1, 2, 3, 4)),
        },
      }),
    );
  const at = new Date(Date.UTC(2026, 10, 2, 10, 11, 12, 13));
  for (const [i, wo] of orders.slice(0, 4).entries()) {
    const document = {
      workOrderId: wo.id,
      supplierFacilityId: wo.supplierFacilityId ?? refs["coolco-pdx"],
      buyerCompanyId: wo.buyerCompanyId,
      buyerFacilityId: wo.buyerFacilityId,
      locationId: wo.locationId,
      createdById: refs.alice,
      laborLineItems: [{ description: `Labor "${i}"`, amount: "100.50" }],
      laborTaxRate: "8.875",
      laborTotalBeforeTax: "100.50",
      materialTotalBeforeTax: i ? "0.10" : "0",
      travelTaxRate: "10",
      createdAt: at,
      updatedAt: at,
    };
    await t.db.proposal.create({
      data: {
        ...document,
        status: (["pending", "awarded", "declined", "pending"] as const)[i],
        totalBeforeTax: "100.60",
        taxRate: "5.0000",
        tax: "13.95",
        totalAfterTax: "114.55",
        attachments: {
          create:
            i === 0
              ? [
                  { fileId: files[1].id, position: 1 },
                  { fileId: files[0].id, position: 0 },
                ]
              : [],
        },
      },
    });
    await t.db.invoice.create({
      data: {
        ...document,
        status: (["pending", "approved", "draft", "pending"] as const)[i],
        problemTypeId: wo.problemTypeId,
        currency: "USD",
        dateOfInvoice: at,
        statusChangedAt: at,
        invoiceTotalBeforeTax: "100.60",
        invoiceTax: "5.03",
        invoiceTotalAfterTax: "105.63",
        serviceCallIds: i ? [] : [7, 8],
        taxLineItems: i === 1 ? [{ type: "GST", amount: "5.03" }] : [],
        pdfFileId: i === 0 ? files[0].id : null,
        pdfUrl: ["", "https://pdf.example/1.pdf", "", null][i],
        glCode: i === 1 ? "GL-1" : null,
        approvalNotes: i === 1 ? "ok" : null,
      },
    });
  }
}

/**
 * The in-house team's purchase orders: lines whose totals round (a half cent up, 0.499995 to 0.50), lines
 * covering request lines, an order without lines (total 0.00).
 */
async function purchasing(t: TestApp) {
  const team = t.fixture.refs["acme-inhouse"];
  const vendor = await t.db.vendor.create({ data: { supplierCompanyId: team, name: "Parts Depot" } });
  const part = await t.db.part.create({ data: { supplierCompanyId: team, number: "ANS-1", name: "Contactor" } });
  const at = new Date(Date.UTC(2026, 10, 3, 4, 5, 6, 7));
  const order = (
    status: "draft" | "ordered" | "partially_received",
    lines: Prisma.PurchaseOrderLineItemUncheckedCreateWithoutPurchaseOrderInput[],
  ) =>
    t.db.purchaseOrder.create({
      data: {
        supplierCompanyId: team,
        vendorId: vendor.id,
        createdBy: "ivy@acme.example",
        status,
        statusChangedAt: at,
        createdAt: at,
        updatedAt: at,
        orderedAt: status === "draft" ? null : at,
        expectedAt: new Date(Date.UTC(2026, 11, 1)),
        lineItems: { create: lines },
      },
      include: { lineItems: { orderBy: { id: "asc" } } },
    });
  const ordered = await order("ordered", [
    { partId: part.id, quantity: "2.5", unitCost: "10.33" },
    { description: "Freight", quantity: "1", unitCost: "0.05" },
  ]);
  await order("draft", []);
  await order("partially_received", [
    { description: "Rods", quantity: "3.3333", unitCost: "0.15", quantityReceived: "1.5" },
  ]);
  await t.db.purchaseRequest.create({
    data: {
      supplierCompanyId: team,
      requestedBy: "ivy@acme.example",
      status: "ordered",
      statusChangedAt: at,
      lineItems: {
        create: [2, 1].map((n) => ({
          description: `Request line ${n}`,
          quantity: String(n),
          purchaseOrderLineItemId: ordered.lineItems[0].id,
        })),
      },
    },
  });
}

beforeAll(async () => {
  [deployed, resolved] = await Promise.all([
    startTestApp({ fixture: BASE_FIXTURE, countStatements: true }),
    startTestApp({
      fixture: BASE_FIXTURE,
      countStatements: true,
      configure: (config) => void (config.resolvedRows = true),
    }),
  ]);
  await Promise.all([board(deployed), board(resolved)]);
});
afterAll(async () => {
  await Promise.all([deployed?.close(), resolved?.close()]);
});

interface Case {
  name: string;
  /** A GraphQL request, or a REST GET of `get` (under /v1/<the key's interface>). */
  body?: { query: string; variables?: Record<string, unknown> };
  /** A browser's Origin: yoga's own HTTP path answers (with its CORS headers), not the direct one. */
  origin?: string;
  /** The GraphQL request sent as a GET (its answer then has an ETag and cache headers). */
  viaGet?: boolean;
  get?: string;
  key: string;
  /** Whether the deployed instance answers the rows from their statement. */
  answered: boolean;
  /**
   * Whether it puts their text in the answer unparsed (statement-answers.ts RowsAnswer.asText): a
   * connection's `edges { node }` whose every field the statement writes as GraphQL would.
   */
  asText?: boolean;
  status: number;
  about: RegExp;
}

const BOARD = `id title status woPriority createdAt location { id name } asset { id name } supplierFacility { id name }
  labels(first: 10) { edges { node { label { id name } } } } notes(last: 3) { edges { node { id text } } }`;
const KEYS = ["acme-key", "globex-key", "coolco-key", "inhouse-key"];
const ASSET = `id name assetTypeId locationId buyerCompanyId isActive isLeased serialNumber manufacturer assetModelId installDate
  parentId refrigerantTypeCode fullChargeLb applianceCategory refrigerantRequiresProcessShutdown isRefrigerantTracked
  effectiveRefrigerant { refrigerantTypeCode fullChargeLb applianceCategory refrigerantRequiresProcessShutdown } warranties createdAt`;

const corpus = (): Case[] =>
  KEYS.flatMap((key) => {
    const buyer = key === "acme-key";
    // The foreign buyer reads none of these rows (an empty page, answered all the same).
    const some = key === "globex-key" ? /"edges":\[\]/ : /"edges":\[\{"node":\{/;
    return [
      // The board as a dashboard sends it, from a browser (an Origin: yoga's own path writes the text too),
      // and by GET (an ETag of the answer, cache headers).
      ...(
        [
          ["the dashboard board", {}],
          ["the board from a browser", { origin: "http://dashboard.example" }],
          ["the board by GET", { viaGet: true }],
        ] as const
      ).map(([name, how]) => ({
        name: `${key}: ${name}`,
        key,
        ...how,
        body: {
          query: `{ workOrdersConnection(first: 25, orderBy: [{field: createdAt, direction: desc}]) { edges { node { ${BOARD} } } } }`,
        },
        answered: true,
        asText: true,
        status: 200,
        about: some,
      })),
      {
        name: `${key}: aliases, fragments, @include, __typename, masked fields, lists, totals and the root's cursors`,
        key,
        body: {
          query: `query($with: Boolean!, $n: Int) { page: workOrdersConnection(first: $n) { totalCount pageInfo { hasNextPage endCursor }
                    edges { cursor node { __typename ...row when: createdAt @include(if: $with) never: id @skip(if: true) } } } }
                  fragment row on WorkOrder { id heading: title glCode costCenter internalNotes approvedAt subAssetIds isPM
                    place: location { __typename name } ... on WorkOrder { notes(first: 2) { totalCount edges { node { text noteAddedAt } } } }
                    labels { totalCount edges { __typename node { labelId label { name color } } } } }`,
          variables: { with: true, n: 3 },
        },
        answered: true,
        status: 200,
        about: /"page":\{"totalCount":\d+,"pageInfo"/,
      },
      {
        name: `${key}: a backward page after a cursor-less one, and notes from the end`,
        key,
        body: {
          query: `{ workOrdersConnection(last: 2) { edges { node { id notes(last: 1) { edges { node { id } } } } } } }`,
        },
        answered: true,
        asText: true,
        status: 200,
        about: /"workOrdersConnection":\{"edges":/,
      },
      {
        name: `${key}: the root's edges and node under two aliases each`,
        key,
        body: {
          query: `{ workOrdersConnection(first: 3) { a: edges { n1: node { id } } b: edges { n2: node { title location { id } } } } }`,
        },
        answered: true,
        status: 200,
        about: /"workOrdersConnection":\{"a":\[/,
      },
      {
        name: `${key}: a page's cursors, a total and an aliased node beside edges written as text`,
        key,
        body: {
          query: `{ workOrdersConnection(first: 2, after: null) { totalCount pageInfo { hasNextPage startCursor endCursor }
                    edges { row: node { id title labels { totalCount } } } } }`,
        },
        answered: true,
        asText: true,
        status: 200,
        about: /"workOrdersConnection":\{"totalCount":\d+,"pageInfo":\{"hasNextPage":(true|false),"startCursor":/,
      },
      {
        name: `${key}: a masked field (a location's internal code), a Float (an asset's charge), an aliased column: completed`,
        key,
        body: {
          query: `{ a: workOrdersConnection(first: 3) { edges { node { id location { internalCode } } } }
                    b: workOrdersConnection(first: 3) { edges { node { id asset { fullChargeLb } } } }
                    c: workOrdersConnection(first: 3) { edges { node { heading: title } } } }`,
        },
        answered: true,
        status: 200,
        about: /"a":\{"edges":/,
      },
      {
        name: `${key}: a response key that is another selected field's name: resolved`,
        key,
        body: {
          query: `{ workOrdersConnection(first: 5) { edges { node { title: location { name } heading: title } } } }`,
        },
        answered: false,
        status: 200,
        about: /"workOrdersConnection":\{"edges":/,
      },
      {
        name: `${key}: a field no statement answers (nte): resolved`,
        key,
        body: { query: `{ workOrdersConnection(first: 5) { edges { node { id nte location { name } } } } }` },
        answered: false,
        status: 200,
        about: /"workOrdersConnection":\{"edges":/,
      },
      {
        name: `${key}: a relation not declared for statements (the region): resolved`,
        key,
        body: { query: `{ workOrdersConnection(first: 5) { edges { node { id location { region { name } } } } } }` },
        answered: false,
        status: 200,
        about: /"workOrdersConnection":\{"edges":/,
      },
      {
        name: `${key}: an offset list over REST (assets, every field)`,
        key,
        get: "/asset/assets?limit=25&sort_by=id",
        answered: true,
        status: 200,
        about: /^\{"type":"Asset","data":\[\{"id":\d+.*"effectiveRefrigerant":\{.*"count":\d+/,
      },
      {
        name: `${key}: an offset list in GraphQL, aliases and a fragment`,
        key,
        body: {
          query: `{ assets(limit: 5, order: "desc") { count data { ...unit label: name refrigerant: effectiveRefrigerant { code: refrigerantTypeCode fullChargeLb } } } }
                  fragment unit on Asset { ${ASSET} }`,
        },
        answered: true,
        status: 200,
        about: /"assets":\{"count":\d+,"data":\[/,
      },
      {
        name: `${key}: proposals over REST: costs, rates, attachments through their join rows, with the caller's file URLs`,
        key,
        get: "/quote/proposals?limit=25",
        answered: key !== "inhouse-key", // refused
        status: key === "inhouse-key" ? 403 : 200,
        about: key === "inhouse-key" ? /"message"/ : /^\{"type":"Proposal","data":\[/,
      },
      {
        name: `${key}: invoices over REST: costs, tax lines, the PDF as a file, a link or none, masked notes`,
        key,
        get: "/invoice/invoices?limit=25",
        answered: key !== "inhouse-key", // refused
        status: key === "inhouse-key" ? 403 : 200,
        about: key === "inhouse-key" ? /"message"/ : /^\{"type":"Invoice","data":\[/,
      },
      {
        name: `${key}: proposals and invoices in GraphQL, aliased`,
        key,
        body: {
          query: `{ proposals(limit: 10) { count data { id status total: totalAfterTax laborLineItems { description amount } laborTaxRate
                    travelTaxRate files: attachments { id name url createdAt } } }
                  invoices(limit: 10) { data { id status pdf: invoicePdf { url fileId name size } invoicePDFLink taxLineItems { type rate amount }
                    glCode approvalNotes invoiceTax dateOfInvoice serviceCallIds } } }`,
        },
        answered: key !== "inhouse-key",
        status: 200,
        about: /"proposals":/,
      },
      {
        name: `${key}: an offset list in GraphQL whose every field is written as GraphQL would: its data as text`,
        key,
        body: {
          query: `{ proposals(limit: 10, order: "desc") { count data { id status totalAfterTax laborTaxRate attachments { id name url } } } }`,
        },
        answered: key !== "inhouse-key",
        asText: key !== "inhouse-key",
        status: 200,
        about: /"proposals":/,
      },
      {
        name: `${key}: an offset list with a field no statement answers (labels): resolved`,
        key,
        body: { query: `{ assets(limit: 5) { count data { id labels { name } } } }` },
        answered: false,
        status: 200,
        about: /"assets":\{"count":\d+,"data":\[/,
      },
      {
        name: `${key}: a nested page above the maximum: the resolvers' error`,
        key,
        body: {
          query: `{ workOrdersConnection(first: 5) { edges { node { id notes(first: 26) { edges { node { id } } } } } } }`,
        },
        answered: false,
        status: 200,
        about: buyer ? /"errors":\[\{"message":"[^"]*25/ : /"workOrdersConnection"/,
      },
    ];
  });

const PURCHASE_ORDER = `id status vendorId notes expectedAt createdBy orderedAt receivedAt cancelledAt cancellationReason
  statusChangedAt supplierCompanyId createdAt updatedAt total lineItems { id purchaseOrderId partId description quantity unitCost
  lineTotal quantityReceived purchaseRequestLineItemIds }`;

/** The in-house team's partner key reads its purchase orders. */
const purchaseOrderCases = (): Case[] => [
  {
    name: "inhouse-partner-key: purchase orders over REST: totals, lines and their request lines",
    key: "inhouse-partner-key",
    get: "/purchasing/purchase_orders?limit=25",
    answered: true,
    status: 200,
    about: /^\{"type":"SupplierPurchaseOrder","data":\[\{"id":\d+.*"lineItems":\[\{"id"/,
  },
  {
    name: "inhouse-partner-key: purchase orders in GraphQL, aliased, lines through a fragment",
    key: "inhouse-partner-key",
    body: {
      query: `{ purchaseOrders(limit: 10) { count data { ${PURCHASE_ORDER} sum: total lines: lineItems { ...line } } } }
              fragment line on SupplierPurchaseOrderLineItem { cost: lineTotal ids: purchaseRequestLineItemIds quantity }`,
    },
    answered: true,
    asText: true,
    status: 200,
    about: /"purchaseOrders":\{"count":3,"data":\[/,
  },
  {
    name: "inhouse-partner-key: purchase orders in GraphQL, lines and totals: their data as text",
    key: "inhouse-partner-key",
    body: {
      query: `{ purchaseOrders(limit: 10) { data { id status total lineItems { id quantity lineTotal } } count } }`,
    },
    answered: true,
    asText: true,
    status: 200,
    about: /"purchaseOrders":\{"data":\[\{"id":\d+,"status":"\w+","total":"\d+\.\d\d","lineItems":\[/,
  },
  {
    name: "inhouse-partner-key: a line's part (not declared for statements): resolved",
    key: "inhouse-partner-key",
    body: { query: `{ purchaseOrders(limit: 10) { data { id lineItems { lineTotal part { name } } } } }` },
    answered: false,
    status: 200,
    about: /"purchaseOrders":\{"data":\[/,
  },
];

const INTERFACE_OF: Record<string, string> = {
  "acme-key": "buyer",
  "globex-key": "buyer",
  "inhouse-partner-key": "partners",
};

function send(app: TestApp, c: Case, traceId: string): Promise<Answer> {
  if (c.get)
    return rawRequest(`${app.url}/v1/${INTERFACE_OF[c.key] ?? "supplier"}${c.get}`, {
      method: "GET",
      headers: { ...app.headers(c.key), "x-request-id": traceId },
    });
  if (c.viaGet)
    return rawRequest(`${app.url}/graphql?query=${encodeURIComponent(c.body!.query)}`, {
      method: "GET",
      headers: { ...app.headers(c.key), accept: "application/graphql-response+json", "x-request-id": traceId },
    });
  return rawRequest(`${app.url}/graphql`, {
    method: "POST",
    headers: {
      ...app.headers(c.key),
      "content-type": "application/json",
      "x-request-id": traceId,
      ...(c.origin && { origin: c.origin }),
    },
    body: JSON.stringify(c.body),
  });
}

describe("a connection's rows answered by their statement", () => {
  it("answers every request of the corpus as the rows resolved field by field, for every kind of key", async () => {
    const mismatches = await compareCorpus({
      cases: [...corpus(), ...purchaseOrderCases()],
      prefix: "statement-answers",
      direct: deployed,
      reference: resolved,
      send,
      flag: "rowsAnswered",
      expectDirect: (c) => c.answered,
      also: { flag: "rowsAsText", expected: (c) => c.asText === true },
    });
    expect(mismatches).toEqual([]);
  });

  it("reads the board with one statement whatever its rows' relations", async () => {
    const c = corpus()[0];
    const counts = [];
    for (const app of [deployed, resolved]) {
      await send(app, c, crypto.randomUUID());
      const before = app.statements!.statements;
      await send(app, c, crypto.randomUUID());
      counts.push(app.statements!.statements - before);
    }
    // Resolved, the location is a second statement (a required relation loaded by id in scope).
    expect(counts).toEqual([1, 2]);
  });

  it("writes timestamps and dates as their scalars do: a column exposed as a DateTime is timestamptz(3), as a Date a date", async () => {
    const { graphql } = buildSchemas();
    const columns: Record<"DateTime" | "Date", string[]> = { DateTime: [], Date: [] };
    for (const type of Object.values(graphql.getTypeMap())) {
      const model = (type.extensions as Record<string, unknown>)?.pothosPrismaModel as string | undefined;
      if (!model || !("getFields" in type)) continue;
      for (const field of Object.values(type.getFields())) {
        const exposed = (field.extensions as Record<string, unknown>)?.pothosExposedField;
        const scalar = String(field.type).replace(/[!\[\]]/g, "");
        if (exposed && (scalar === "DateTime" || scalar === "Date")) columns[scalar].push(`${model}.${exposed}`);
      }
    }
    expect(columns.DateTime).toContain("WorkOrder.createdAt");
    expect(columns.Date).toContain("Asset.installDate");
    const client = new pg.Client({ connectionString: deployed.databaseUrl });
    await client.connect();
    try {
      for (const [scalar, expected] of [
        ["DateTime", "timestamp with time zone(3)"],
        ["Date", "date(0)"],
      ] as const) {
        const { rows } = await client.query<{ name: string; type: string }>(
          `SELECT table_name || '.' || column_name AS name, data_type || '(' || datetime_precision || ')' AS type
             FROM information_schema.columns WHERE table_schema = current_schema() AND table_name || '.' || column_name = ANY($1)`,
          [columns[scalar]],
        );
        expect(rows.length).toBe(new Set(columns[scalar]).size);
        expect(rows.filter((r) => r.type !== expected)).toEqual([]);
      }
    } finally {
      await client.end();
    }
  });
});
