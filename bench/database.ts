// The bench's own database, wo_bench: dropped and created on every run, migrated with the same
// `prisma migrate deploy` as an install (as test/support/global-setup.ts does for the test template),
// then filled with the base test fixture plus enough bulk rows that every list page is full.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import type { Db } from "../src/db.ts";
import { loadConfig } from "../src/config.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { indexSearchBatch } from "../src/schema/work-orders/jobs.ts";

export const BENCH_DATABASE = "wo_bench";

/** DATABASE_URL's server (the tests' default when unset), at another database. */
export function urlOf(database: string): string {
  const url = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/wo_service");
  url.pathname = `/${database}`;
  return url.toString();
}

export async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlOf("postgres") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops and recreates a database, migrates it, and returns its URL. */
export async function recreateDatabase(name: string): Promise<string> {
  await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await onServer(`CREATE DATABASE ${name}`);
  return migrate(name);
}

/** `prisma migrate deploy`, as an install runs it; returns the database's URL. */
export function migrate(name: string): string {
  const url = urlOf(name);
  execFileSync("npx", ["--no-install", "prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
  return url;
}

export const createBenchDatabase = () => recreateDatabase(BENCH_DATABASE);

export function dropBenchDatabase(): Promise<void> {
  return onServer(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
}

/** Bulk rows added for the bench key's company (Acme), on top of the fixture's own. */
export const SEED = {
  locations: 2_000,
  regions: 30,
  assetTypes: 30,
  assets: 30,
  workOrders: 2_000,
  proposals: 60,
  invoices: 60,
  purchaseOrders: 60,
  notes: 60,
};

/** Statuses the seeded work orders cycle through, and the locations they are spread over. */
const WORK_ORDER_STATUSES = [
  "Unassigned",
  "PendingApproval",
  "PendingConfirmationByServiceProvider",
  "ConfirmedByServiceProvider",
  "TechAssigned",
] as const;
const WORK_ORDER_LOCATIONS = 4;

export interface Seeded {
  /** X-API-KEY and SVC-KEY of the bench's buyer key. */
  headers: Record<string, string>;
  buyerCompanyId: number;
  /** Rows of each list the bench key sees. */
  totals: { locations: number; regions: number; assetTypes: number; assets: number; workOrders?: number };
}

/** What the other lists of the locations bench read: the partner key (purchase orders) and the noted work order. */
export interface OtherLists {
  /** X-API-KEY and SVC-KEY of a partner key of Acme's internal team. */
  partnerHeaders: Record<string, string>;
  /** The internal team (supplier company) whose purchase orders it reads. */
  teamId: number;
  /** The work order whose root thread carries SEED.notes notes. */
  notedWorkOrderId: number;
  /** The contact of the bench's buyer key (its read mark of that thread). */
  contactId: number;
}

/** The work order list the locations bench loads (two statuses, two locations) and its bare-SQL twin's parameters. */
export interface WorkOrderList {
  path: string;
  statuses: string[];
  locationIds: number[];
  matches: number;
}

/**
 * Applies test/fixtures/base.json (through the operator's code path) with one extra buyer key whose
 * rate limit is never reached, then adds the bulk rows for that key's company.
 */
export async function seed(db: Db): Promise<Seeded & { workOrderList: WorkOrderList; other: OtherLists }> {
  const fixture = JSON.parse(fs.readFileSync(new URL("../test/fixtures/base.json", import.meta.url), "utf8"));
  fixture.apiKeys.push({
    ref: "bench-key",
    kind: "buyer",
    contact: "alice",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
    graphqlBudget: { points: 1_000_000_000, windowSeconds: 1 },
  });
  fixture.apiKeys.push({
    ref: "bench-partner-key",
    kind: "partner",
    contact: "ivy",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
    graphqlBudget: { points: 1_000_000_000, windowSeconds: 1 },
  });
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: false });
  const key = applied.keys["bench-key"];
  const buyerCompanyId = applied.refs.acme;

  await db.region.createMany({
    data: Array.from({ length: SEED.regions }, (_, i) => ({ buyerCompanyId, name: `Bench region ${i + 1}` })),
  });
  const regionIds = (await db.region.findMany({ where: { buyerCompanyId }, select: { id: true } })).map((r) => r.id);
  // Full rows (every column set) spread over the company's regions, so pages and nested relations
  // carry realistic payloads.
  await db.location.createMany({
    data: Array.from({ length: SEED.locations }, (_, i) => ({
      buyerCompanyId,
      regionId: regionIds[i % regionIds.length],
      locationTypeId: applied.refs.store,
      name: `Bench store ${i + 1}`,
      currency: i % 5 === 0 ? "CAD" : "USD",
      internalCode: `BN-${String(i + 1).padStart(5, "0")}`,
      storeContacts: [`manager${i + 1}@stores.example`, `ops${i + 1}@stores.example`],
      locationTypeDetails: { storeNumber: String(i + 1), sqft: 4_000 + (i % 50) * 100 },
    })),
  });
  await db.assetType.createMany({
    data: Array.from({ length: SEED.assetTypes }, (_, i) => ({
      buyerCompanyId,
      name: `Bench asset type ${i + 1}`,
      usesRefrigerant: i % 2 === 0,
    })),
  });

  // Assets with two meters and a label each, for the nested GraphQL asset query.
  const typeIds = (await db.assetType.findMany({ where: { buyerCompanyId }, select: { id: true } })).map((t) => t.id);
  const locationIds = (
    await db.location.findMany({ where: { buyerCompanyId }, select: { id: true }, take: SEED.assets })
  ).map((l) => l.id);
  const assets = await db.asset.createManyAndReturn({
    data: Array.from({ length: SEED.assets }, (_, i) => ({
      buyerCompanyId,
      name: `Bench asset ${i + 1}`,
      assetTypeId: typeIds[i % typeIds.length],
      locationId: locationIds[i % locationIds.length],
      serialNumber: `BA-${i + 1}`,
    })),
  });
  await db.meter.createMany({
    data: assets.flatMap((a) =>
      [0, 1].map((n) => ({
        buyerCompanyId,
        assetId: a.id,
        meterTypeId: applied.refs.runtime,
        name: `Meter ${n + 1}`,
        valueType: "number",
        valueUnit: "h",
        locationId: a.locationId,
      })),
    ),
  });
  await db.assetLabelLink.createMany({ data: assets.map((a) => ({ assetId: a.id, labelId: applied.refs.critical })) });

  // Work orders with a status history entry and a subscriber each, for the work order list with filters.
  const woLocations = locationIds.slice(0, WORK_ORDER_LOCATIONS);
  const created = Date.now() - SEED.workOrders * 60_000;
  const workOrders = await db.workOrder.createManyAndReturn({
    select: { id: true, status: true, createdAt: true },
    data: Array.from({ length: SEED.workOrders }, (_, i) => ({
      buyerCompanyId,
      buyerFacilityId: applied.refs["acme-hq"],
      locationId: woLocations[i % woLocations.length],
      problemTypeId: applied.refs.hvac,
      title: `Bench work order ${i + 1}`,
      description: "Compressor noise after the last service call",
      createdBy: "alice@acme.example",
      status: WORK_ORDER_STATUSES[i % WORK_ORDER_STATUSES.length],
      createdAt: new Date(created + i * 60_000),
      statusChangedAt: new Date(created + i * 60_000),
    })),
  });
  await db.workOrderStatusChange.createMany({
    data: workOrders.map((w) => ({
      workOrderId: w.id,
      from: null,
      to: w.status,
      action: "create",
      actor: "Alice Admin",
      actorKind: "buyer",
      at: w.createdAt,
    })),
  });
  await db.workOrderSubscriber.createMany({
    data: workOrders.map((w) => ({ workOrderId: w.id, email: "alice@acme.example" })),
  });
  const statuses = WORK_ORDER_STATUSES.slice(0, 2);
  const listLocations = woLocations.slice(0, 2);
  const matches = await db.workOrder.count({
    where: { buyerCompanyId, status: { in: [...statuses] }, locationId: { in: listLocations } },
  });

  const other = await seedOtherLists(db, applied.refs, workOrders);
  const partner = applied.keys["bench-partner-key"];
  // Indexed, as the worker role would have done within a second of the writes: a list measured with
  // every seeded work order still pending would time the indexer's absence (each request corrects the
  // bitmaps by all 2,000 pending rows), not the list.
  const { searchBitmapMinDocs } = loadConfig(process.env);
  while ((await indexSearchBatch(db, searchBitmapMinDocs)) > 0);

  const [locations, regions, assetTypes, assetCount] = await Promise.all([
    db.location.count({ where: { buyerCompanyId } }),
    db.region.count({ where: { buyerCompanyId } }),
    db.assetType.count({ where: { buyerCompanyId } }),
    db.asset.count({ where: { buyerCompanyId } }),
  ]);
  return {
    headers: { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey! },
    buyerCompanyId,
    totals: {
      locations,
      regions,
      assetTypes,
      assets: assetCount,
      workOrders: await db.workOrder.count({ where: { buyerCompanyId } }),
    },
    workOrderList: {
      path: `/v1/buyer/work_order/work_orders?status=${statuses.join(",")}&locationId=${listLocations.join(",")}&sort_by=createdAt&order=desc`,
      statuses: [...statuses],
      locationIds: listLocations,
      matches,
    },
    other: { ...other, partnerHeaders: { "X-API-KEY": partner.apiKey, "SVC-KEY": partner.svcKey! } },
  };
}

/**
 * Full pages of the other lists that page real rows: proposals and published invoices of Acme's work
 * orders (CoolCo's), purchase orders of Acme's internal team (two lines each), and root-thread notes on
 * one work order. Every column a list answers is set, as on the locations.
 */
async function seedOtherLists(
  db: Db,
  refs: Record<string, number>,
  workOrders: { id: number; createdAt: Date }[],
): Promise<Omit<OtherLists, "partnerHeaders">> {
  const buyerCompanyId = refs.acme;
  const supplierFacilityId = refs["coolco-pdx"];
  const orders = await db.workOrder.findMany({
    where: { id: { in: workOrders.slice(0, SEED.proposals).map((w) => w.id) } },
    select: { id: true, locationId: true, buyerFacilityId: true, problemTypeId: true },
    orderBy: { id: "asc" },
  });
  const lines = [{ description: "Compressor contactor", amount: "184.50" }];
  const costs = {
    laborLineItems: [{ description: "Two technicians, 3 h", amount: "540.00" }],
    laborTaxRate: "0",
    laborTotalBeforeTax: "540.00",
    materialLineItems: lines,
    materialTaxRate: "8.25",
    materialTotalBeforeTax: "184.50",
  };
  await db.proposal.createMany({
    data: orders.map((w, i) => ({
      ...costs,
      workOrderId: w.id,
      supplierFacilityId,
      buyerCompanyId,
      buyerFacilityId: w.buyerFacilityId,
      locationId: w.locationId,
      status: (["pending", "awarded", "declined"] as const)[i % 3],
      scope: `Replace the contactor on unit ${i + 1}`,
      totalBeforeTax: "724.50",
      taxRate: "2.1",
      tax: "15.22",
      totalAfterTax: "739.72",
      proposalPdfLink: `https://files.coolco.example/proposals/${i + 1}.pdf`,
      createdById: refs.bob,
    })),
  });
  const now = new Date();
  await db.invoice.createMany({
    data: orders.map((w, i) => ({
      ...costs,
      workOrderId: w.id,
      supplierFacilityId,
      buyerCompanyId,
      buyerFacilityId: w.buyerFacilityId,
      locationId: w.locationId,
      problemTypeId: w.problemTypeId,
      currency: "USD",
      status: (["pending", "approved", "paid"] as const)[i % 3],
      invoiceNumber: `INV-B-${i + 1}`,
      dateOfInvoice: now,
      poNumber: `PO-${i + 1}`,
      serviceCallIds: [],
      invoiceTotalBeforeTax: "724.50",
      invoiceTaxRate: "2.1",
      invoiceTax: "15.22",
      invoiceTotalAfterTax: "739.72",
      publishedAt: now,
      statusChangedAt: now,
      createdById: refs.bob,
    })),
  });

  const teamId = refs["acme-inhouse"];
  const vendor = await db.vendor.create({ data: { supplierCompanyId: teamId, name: "Bench vendor" } });
  const purchaseOrders = await db.purchaseOrder.createManyAndReturn({
    select: { id: true },
    data: Array.from({ length: SEED.purchaseOrders }, (_, i) => ({
      supplierCompanyId: teamId,
      vendorId: vendor.id,
      status: (["draft", "ordered"] as const)[i % 2],
      notes: `Bench order ${i + 1}`,
      expectedAt: new Date(Date.UTC(2026, 11, 1 + (i % 28))),
      createdBy: "ivy@acme.example",
      orderedAt: i % 2 ? now : null,
      statusChangedAt: now,
    })),
  });
  await db.purchaseOrderLineItem.createMany({
    data: purchaseOrders.flatMap((o) =>
      [1, 2].map((n) => ({ purchaseOrderId: o.id, description: `Filter ${n}`, quantity: "4", unitCost: "12.35" })),
    ),
  });

  const noted = workOrders[0];
  await db.workOrderNote.createMany({
    data: Array.from({ length: SEED.notes }, (_, i) => ({
      workOrderId: noted.id,
      text: `Bench note ${i + 1}: checked the unit, no change`,
      noteAddedBy: "alice@acme.example",
      noteAddedAt: new Date(noted.createdAt.getTime() + (i + 1) * 1_000),
      elements: [{ type: "text", text: `Bench note ${i + 1}` }],
    })),
  });
  return { teamId, notedWorkOrderId: noted.id, contactId: refs.alice };
}

/** On a reused database: the bench key's headers are not stored in clear, so issue a fresh one. */
export async function issueBenchKey(db: Db): Promise<Seeded> {
  const fixture = JSON.parse(fs.readFileSync(new URL("../test/fixtures/base.json", import.meta.url), "utf8"));
  fixture.apiKeys = [
    {
      ref: `bench-key-${Date.now()}`,
      kind: "buyer",
      contact: "alice",
      rateLimit: { requests: 100_000_000, windowSeconds: 1 },
      graphqlBudget: { points: 1_000_000_000, windowSeconds: 1 },
    },
  ];
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: false });
  const key = applied.keys[fixture.apiKeys[0].ref];
  return {
    headers: { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey! },
    buyerCompanyId: applied.refs.acme,
    totals: { locations: 0, regions: 0, assetTypes: 0, assets: 0 },
  };
}
