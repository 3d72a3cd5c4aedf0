// The bench's own database, wo_bench: dropped and created on every run, migrated with the same
// `prisma migrate deploy` as an install (as test/support/global-setup.ts does for the test template),
// then filled with the base test fixture plus enough bulk rows that every list page is full.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import type { Db } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";

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
export const SEED = { locations: 2_000, regions: 30, assetTypes: 30, assets: 30, workOrders: 2_000 };

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
export async function seed(db: Db): Promise<Seeded & { workOrderList: WorkOrderList }> {
  const fixture = JSON.parse(fs.readFileSync(new URL("../test/fixtures/base.json", import.meta.url), "utf8"));
  fixture.apiKeys.push({
    ref: "bench-key",
    kind: "buyer",
    contact: "alice",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
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
  };
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
