// `npm run bench -- locations`: the list endpoints' cost next to a bare node:http + pg handler running the same SQL.
//
//   1. Load (autocannon, loopback, bounded): every list that pages real rows, each over REST and GraphQL
//      (the same rows and fields) next to its baseline: GET /v1/buyer/location/locations, a work order
//      list with filters, assets, proposals, invoices, purchase orders (a partner key) and a work
//      order's notes, first page of 10; interleaved for BENCH_ROUNDS rounds; req/s, p50 and p99 of each
//      (median over the rounds) and the service's ratios to its baseline. BENCH_LISTS=<regular
//      expression> loads only the lists whose names match ("locations|work orders"). BENCH_PROFILE=1
//      also takes a CPU profile of the service during each service target's first run and prints where
//      its time went (bench/profile.ts).
//   2. SQL statements per list request at a small and a large page size (must not grow with it).
//
// Own database (wo_bench, recreated and dropped), own Redis prefix, API role only, and a logger that
// drops everything below "warn" (so per-request logging costs nothing) and counts what is left: a
// warning during the bench (e.g. the rate limiter failing open) means the numbers are not comparable.
// Settings: BENCH_ROUNDS (3), BENCH_DURATION and BENCH_WARMUP (8 s and 2 s per run), BENCH_CONNECTIONS
// (10). The summary is printed and written as JSON to the OS temp directory. Exit code 1 when a
// list's statement count grows with the page size or the service logged a warning; 2 on failure.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Writable } from "node:stream";
import pino from "pino";
import type { Redis } from "ioredis";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { BASELINE_SQL, startBaseline } from "./baseline.ts";
import { breakdown, profiled } from "./profile.ts";
import { graphqlList, type ListCall, restList } from "./calls.ts";
import { createCountingDb } from "./counting-pool.ts";
import { createBenchDatabase, dropBenchDatabase, SEED, seed } from "./database.ts";
import { medians, runLoad, type LoadMedians, type LoadSample, type LoadSettings, type LoadTarget } from "./load.ts";
import { countStatements, statementTexts, type StatementProbe, type StatementReport } from "./statements.ts";
import { abort, cleanUp, gitRevision, onCleanUp } from "./common.ts";

const settings: LoadSettings & { rounds: number } = {
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  durationSeconds: Number(process.env.BENCH_DURATION ?? 8),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
};
/** Hard stop in case something hangs: this long for the set-up, and twice the load runs' own time. */
const WATCHDOG_SECONDS = 300;
/** The lists to load (BENCH_LISTS, a regular expression over their names: "locations|assets"); all by default. */
const LISTS = new RegExp(process.env.BENCH_LISTS ?? ".");

interface BenchList {
  name: string;
  /** The baseline's path for the same rows. */
  baseline: string;
  /** The key's headers when not the bench's buyer key (purchase orders: a partner key). */
  headers?: Record<string, string>;
  rest: ListCall;
  graphql: ListCall;
  rows: number;
}
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "latest.json");
const PROFILE = process.env.BENCH_PROFILE === "1";

const LOCATION_FIELDS =
  "id name regionId locationTypeId buyerCompanyId currency internalCode storeContacts locationTypeDetails createdAt";
/** What the REST work order list returns, asked for in GraphQL too. */
const WORK_ORDER_FIELDS =
  "id title description status locationId problemTypeId buyerFacilityId buyerCompanyId createdBy supplierFacilityId assetId subAssetIds " +
  "needsApproval isPM statusChangedAt assignedAt createdAt updatedAt subscribers statusChanges { from to action actor actorKind at } " +
  "serviceCalls { id technicianEmail scheduledAt checkInAt checkOutAt outcome }";
/** What the other REST lists return, asked for in GraphQL too. */
const ASSET_FIELDS =
  "id name assetTypeId locationId buyerCompanyId isActive isLeased serialNumber manufacturer assetModelId installDate parentId " +
  "refrigerantTypeCode fullChargeLb applianceCategory refrigerantRequiresProcessShutdown isRefrigerantTracked " +
  "effectiveRefrigerant { refrigerantTypeCode fullChargeLb applianceCategory refrigerantRequiresProcessShutdown } warranties createdAt";
const COST_FIELDS = ["labor", "material", "travel", "freight", "misc", "incurredCost"]
  .map((s) => `${s}LineItems { description amount } ${s}TaxRate ${s}TotalBeforeTax`)
  .join(" ");
const PROPOSAL_FIELDS =
  `id workOrderId supplierFacilityId status scope ${COST_FIELDS} totalBeforeTax taxRate tax totalAfterTax requestForProposalId ` +
  "proposalPdfLink attachments { id name contentType size url supplierFacilityId createdAt } declineNotes decidedAt decidedBy " +
  "locationId buyerFacilityId buyerCompanyId createdAt updatedAt";
const INVOICE_FIELDS =
  `id workOrderId supplierFacilityId status invoiceNumber dateOfInvoice poNumber serviceCallIds currency ${COST_FIELDS} ` +
  "invoiceTotalBeforeTax invoiceTaxRate invoiceTax invoiceTotalAfterTax taxLineItems { type rate amount } invoicePDFLink " +
  "invoicePdf { url fileId name } autoPublishOnApproval publishedAt approvedAt processedAt markedPaidAt disputedAt disputeNotes " +
  "approvalNotes processingNotes glCode statusChangedAt locationId buyerFacilityId buyerCompanyId spendCategoryId problemTypeId createdAt updatedAt";
const PURCHASE_ORDER_FIELDS =
  "id status vendorId notes expectedAt createdBy orderedAt receivedAt cancelledAt cancellationReason statusChangedAt " +
  "supplierCompanyId createdAt updatedAt total lineItems { id purchaseOrderId partId description quantity unitCost lineTotal " +
  "quantityReceived purchaseRequestLineItemIds }";
const NOTE_FIELDS = "id workOrderId text noteAddedBy noteAddedAt photo video audio otherFile elements";
/** Location pages are clamped to 10 rows, other lists to 25. */
const LOCATION_PAGE = 10;
const LIST_PAGE = 25;

interface Summary {
  when: string;
  commit: string;
  node: string;
  cpus: number;
  /** 1/5/15-minute load averages before and after the load runs (the machine is shared). */
  loadAverage: { before: number[]; after: number[] };
  settings: typeof settings;
  seed: Record<string, number>;
  load: {
    samples: LoadSample[];
    median: Record<string, LoadMedians>;
    /** Service ÷ baseline: req/s (below 1 is slower) and p99 (above 1 is slower). */
    ratioToBaseline: Record<string, { requestsPerSecond: number; p99: number }>;
    /** BENCH_PROFILE=1: the service's busy CPU time by where it was spent, per target (percent). */
    profiles?: Record<string, { category: string; percent: number }[]>;
  };
  statements: StatementReport & { restLocationsSql: string[]; baselineSql: typeof BASELINE_SQL };
  statementsConstantInPageSize: boolean;
  serviceWarnings: { count: number; first?: string };
}

const started = Date.now();
const log = (message: string) =>
  console.log(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`);

async function main() {
  const watchdog = (seconds: number) =>
    setTimeout(() => abort(`still running after ${seconds} s`), seconds * 1000).unref();
  let stop = watchdog(WATCHDOG_SECONDS);
  process.once("SIGINT", () => abort("interrupted"));

  log("creating and migrating wo_bench");
  const databaseUrl = await createBenchDatabase();
  onCleanUp(() => dropBenchDatabase());
  const database = createCountingDb(databaseUrl, 10);
  onCleanUp(() => database.close());
  log(`seeding (base fixture + ${SEED.locations} locations, ${SEED.regions} regions, ${SEED.assetTypes} asset types)`);
  const seeded = await seed(database.db);

  const redisPrefix = `wobench:${crypto.randomBytes(4).toString("hex")}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: "0",
    ROLES: "api",
    REDIS_PREFIX: redisPrefix,
    NODE_ENV: "production",
  });
  const warnings = warningCounter();
  const app = await startApp(config, { db: database.db, logger: warnings.logger });
  onCleanUp(() => app.close());
  // The rate limiter fails open without Redis, which would flatter the service: wait until it is there.
  await redisReady(app.redis);
  onCleanUp(() => deleteKeys(app.redis, `${redisPrefix}:*`));
  const baseline = await startBaseline(databaseUrl, seeded.buyerCompanyId, seeded.workOrderList, seeded.other);
  onCleanUp(() => baseline.close());
  const serviceUrl = `http://127.0.0.1:${app.port}`;

  // 2 first: it takes a second and checks every list's responses, so a broken route fails early.
  log("counting SQL statements per list request");
  const probes: StatementProbe[] = [
    {
      route: "REST GET /v1/buyer/location/locations",
      call: (limit) => restList(`/v1/buyer/location/locations?limit=${limit}`),
      limits: [1, 10, 25],
      expectRows: (limit) => Math.min(limit, LOCATION_PAGE),
    },
    {
      route: "GraphQL locations",
      call: (limit) => graphqlList("locations", `{ locations(limit: ${limit}) { count data { ${LOCATION_FIELDS} } } }`),
      limits: [1, 10],
      expectRows: (limit) => Math.min(limit, LOCATION_PAGE),
    },
    {
      route: "GraphQL locations { region }",
      call: (limit) =>
        graphqlList("locations", `{ locations(limit: ${limit}) { count data { id name region { id name } } } }`),
      limits: [1, 10],
      expectRows: (limit) => Math.min(limit, LOCATION_PAGE),
    },
    {
      route: "REST GET /v1/buyer/location/regions",
      call: (limit) => restList(`/v1/buyer/location/regions?limit=${limit}`),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, LIST_PAGE, seeded.totals.regions),
    },
    {
      route: "GraphQL regions { locations }",
      call: (limit) =>
        graphqlList("regions", `{ regions(limit: ${limit}) { count data { id name locations { id } } } }`),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, LIST_PAGE, seeded.totals.regions),
    },
    {
      route: "REST GET /v1/buyer/asset/assets",
      call: (limit) => restList(`/v1/buyer/asset/assets?limit=${limit}`),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, LIST_PAGE, seeded.totals.assets),
    },
    {
      route: "GraphQL assets { assetType location meters labels }",
      call: (limit) =>
        graphqlList(
          "assets",
          `{ assets(limit: ${limit}) { count data { id name assetType { id name } location { id name } meters { edges { node { id name } } } labels { id name } } } }`,
        ),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, LIST_PAGE, seeded.totals.assets),
    },
    {
      route: "REST GET /v1/buyer/asset/asset_types",
      call: (limit) => restList(`/v1/buyer/asset/asset_types?limit=${limit}`),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, LIST_PAGE, seeded.totals.assetTypes),
    },
  ];
  // The other lists over REST (their GraphQL twins answer the same selections).
  const other = [
    ["proposals", "/v1/buyer/quote/proposals"],
    ["invoices", "/v1/buyer/invoice/invoices"],
    ["notes", `/v1/buyer/work_order/work_order_notes/${seeded.other.notedWorkOrderId}`],
  ];
  for (const [name, path] of other)
    probes.push({
      route: `REST GET ${path}`,
      call: (limit) => restList(`${path}?limit=${limit}`),
      limits: [1, 25],
      expectRows: (limit) => Math.min(limit, SEED[name as "proposals"]),
    });
  const statements = await countStatements(serviceUrl, seeded.headers, database.counter, probes);
  const restLocationsSql = await statementTexts(
    serviceUrl,
    seeded.headers,
    database.counter,
    probes[0].call(LOCATION_PAGE),
  );

  // 1: the targets, interleaved round by round so that drift on a shared machine hits them all.
  const workOrderPage = Math.min(LOCATION_PAGE, seeded.workOrderList.matches);
  const { statuses, locationIds } = seeded.workOrderList;
  const workOrderQuery =
    `{ workOrders(limit: 10, sort_by: "createdAt", order: "desc", filter: {status: "${statuses.join(",")}", locationId: "${locationIds.join(",")}"}) ` +
    `{ count data { ${WORK_ORDER_FIELDS} } } }`;
  const { partnerHeaders, notedWorkOrderId } = seeded.other;
  const graphqlPage = (field: string, fields: string, args = "limit: 10") =>
    graphqlList(field, `{ ${field}(${args}) { count data { ${fields} } } }`);
  // Each list: its baseline path, the REST call and the GraphQL call for the same rows and fields.
  const lists: BenchList[] = [
    {
      name: "locations",
      baseline: "/locations",
      rest: restList("/v1/buyer/location/locations"),
      graphql: graphqlPage("locations", LOCATION_FIELDS),
      rows: LOCATION_PAGE,
    },
    {
      name: "work orders",
      baseline: "/work-orders",
      rest: restList(seeded.workOrderList.path),
      graphql: graphqlList("workOrders", workOrderQuery),
      rows: workOrderPage,
    },
    {
      name: "assets",
      baseline: "/assets",
      rest: restList("/v1/buyer/asset/assets"),
      graphql: graphqlPage("assets", ASSET_FIELDS),
      rows: LOCATION_PAGE,
    },
    {
      name: "proposals",
      baseline: "/proposals",
      rest: restList("/v1/buyer/quote/proposals"),
      graphql: graphqlPage("proposals", PROPOSAL_FIELDS),
      rows: LOCATION_PAGE,
    },
    {
      name: "invoices",
      baseline: "/invoices",
      rest: restList("/v1/buyer/invoice/invoices"),
      graphql: graphqlPage("invoices", INVOICE_FIELDS),
      rows: LOCATION_PAGE,
    },
    {
      name: "purchase orders",
      baseline: "/purchase-orders",
      headers: partnerHeaders,
      rest: restList("/v1/partners/purchasing/purchase_orders"),
      graphql: graphqlPage("purchaseOrders", PURCHASE_ORDER_FIELDS),
      rows: LOCATION_PAGE,
    },
    {
      name: "notes",
      baseline: "/notes",
      rest: restList(`/v1/buyer/work_order/work_order_notes/${notedWorkOrderId}`),
      graphql: graphqlPage("workOrderNotes", NOTE_FIELDS, `woId: ${notedWorkOrderId}, limit: 10`),
      rows: LOCATION_PAGE,
    },
  ].filter((list) => LISTS.test(list.name));
  if (!lists.length) throw new Error(`BENCH_LISTS=${process.env.BENCH_LISTS} matches no list`);
  const targets: LoadTarget[] = lists.flatMap((list) => [
    {
      name: `baseline ${list.name}`,
      baseUrl: baseline.url,
      headers: {},
      call: restList(list.baseline),
      expectRows: list.rows,
      counter: baseline.counter,
    },
    ...(["rest", "graphql"] as const).map((channel) => ({
      name: `${channel} ${list.name}`,
      baseUrl: serviceUrl,
      headers: list.headers ?? seeded.headers,
      call: list[channel],
      expectRows: list.rows,
      counter: database.counter,
    })),
  ]);
  const baselineOf = (name: string) => `baseline ${name.replace(/^(rest|graphql) /, "")}`;
  const services = targets.map((t) => t.name).filter((name) => !name.startsWith("baseline "));
  clearTimeout(stop);
  stop = watchdog(
    WATCHDOG_SECONDS + 2 * settings.rounds * targets.length * (settings.warmupSeconds + settings.durationSeconds),
  );
  const profiles: Record<string, { category: string; percent: number }[]> = {};
  const loadBefore = loadAverage();
  log(
    `load: ${settings.rounds} rounds × ${targets.length} targets × (${settings.warmupSeconds} s warm-up + ` +
      `${settings.durationSeconds} s), ${settings.connections} connections; load average ${loadBefore.join(" ")}`,
  );
  const samples: LoadSample[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    for (const target of targets) {
      const profile = PROFILE && round === 1 && services.includes(target.name);
      const sample = profile
        ? await profiled(() => runLoad(target, settings, round)).then(({ result, profile: cpu }) => {
            fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
            fs.writeFileSync(
              path.join(path.dirname(RESULT_FILE), `${target.name.replace(/ /g, "-")}.cpuprofile`),
              JSON.stringify(cpu),
            );
            profiles[target.name] = breakdown(cpu).map(({ category, percent }) => ({
              category,
              percent: Number(percent.toFixed(1)),
            }));
            return result;
          })
        : await runLoad(target, settings, round);
      samples.push(sample);
      log(
        `round ${round} ${target.name.padEnd(8)} ${sample.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${sample.p50Ms} ms  p99 ${sample.p99Ms} ms`,
      );
    }
  }

  const median = Object.fromEntries(targets.map((t) => [t.name, medians(samples.filter((s) => s.target === t.name))]));
  const ratio = (name: string) => ({
    requestsPerSecond: median[name].requestsPerSecond / median[baselineOf(name)].requestsPerSecond,
    p99: median[name].p99Ms / median[baselineOf(name)].p99Ms,
  });
  const summary: Summary = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: { before: loadBefore, after: loadAverage() },
    settings,
    seed: seeded.totals,
    load: {
      samples,
      median,
      ratioToBaseline: Object.fromEntries(services.map((name) => [name, ratio(name)])),
      ...(PROFILE ? { profiles } : {}),
    },
    statements: { ...statements, restLocationsSql, baselineSql: BASELINE_SQL },
    statementsConstantInPageSize: Object.values(statements.constant).every(Boolean),
    serviceWarnings: { count: warnings.count, first: warnings.first },
  };

  printSummary(summary);
  fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
  fs.writeFileSync(RESULT_FILE, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`\nJSON written to ${RESULT_FILE}`);
  if (!summary.statementsConstantInPageSize || summary.serviceWarnings.count > 0) process.exitCode = 1;
}

function printSummary(s: Summary) {
  const { median, ratioToBaseline } = s.load;
  const ratios = (name: string) =>
    ratioToBaseline[name]
      ? [ratioToBaseline[name].requestsPerSecond.toFixed(2), ratioToBaseline[name].p99.toFixed(2)]
      : ["1.00", "1.00"];
  console.log("\n=========================== BENCH SUMMARY ===========================");
  console.log(
    `commit ${s.commit}, node ${s.node}, ${s.cpus} CPUs, load average ${s.loadAverage.before.join(" ")} → ${s.loadAverage.after.join(" ")}`,
  );
  console.log(
    `${s.settings.rounds} rounds × ${s.settings.durationSeconds} s (after ${s.settings.warmupSeconds} s warm-up) per target, ` +
      `${s.settings.connections} connections, loopback`,
  );
  console.log(`rows the bench key sees: ${JSON.stringify(s.seed)}\n`);
  console.log(
    "First page of 10 of each list; the work order list with filters (two statuses, two locations), newest first",
  );
  console.log(
    "(median over rounds; latency in whole ms, as autocannon records it; ratios to each list's own baseline)",
  );
  console.log(
    table(
      ["target", "req/s", "p50 ms", "p99 ms", "req/s ÷ baseline", "p99 ÷ baseline", "SQL/request"],
      Object.entries(median).map(([name, m]) => [
        name,
        m.requestsPerSecond.toFixed(0),
        String(m.p50Ms),
        String(m.p99Ms),
        ...ratios(name),
        m.statementsPerRequest.toFixed(2),
      ]),
    ),
  );
  console.log("\nSQL statements per list request (one request at a time, counted at the service's pg connections)");
  console.log(
    table(
      ["route", "limit", "rows", "statements", "same at every size"],
      s.statements.rows.map((r, i, all) => [
        r.route,
        String(r.limit),
        String(r.rows),
        String(r.statements),
        i === 0 || all[i - 1].route !== r.route ? (s.statements.constant[r.route] ? "yes" : "NO") : "",
      ]),
    ),
  );
  console.log("\nThe statements of one REST location list request (limit=10):");
  for (const [i, sql] of s.statements.restLocationsSql.entries())
    console.log(`  ${i + 1}. ${sql.replace(/\s+/g, " ").trim()}`);
  for (const [target, rows] of Object.entries(s.load.profiles ?? {})) {
    console.log(`\nWhere the service's CPU time went under ${target} (self time, % of busy time; idle excluded):`);
    console.log(
      table(
        ["spent in", "%"],
        rows.filter((r) => r.percent >= 0.5).map((r) => [r.category, r.percent.toFixed(1)]),
      ),
    );
  }
  console.log(`\nstatements constant in page size: ${s.statementsConstantInPageSize ? "yes" : "NO"}`);
  console.log(
    `service warnings during the bench: ${s.serviceWarnings.count}${s.serviceWarnings.first ? ` (first: ${s.serviceWarnings.first})` : ""}`,
  );
  console.log("=====================================================================");
}

/** A plain text table: first column left-aligned, the others right-aligned. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** The service's logger: nothing below "warn" is even formatted; warnings and errors are counted. */
function warningCounter() {
  const counter = {
    count: 0,
    first: undefined as string | undefined,
    logger: pino(
      { level: "warn" },
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split("\n").filter(Boolean)) {
            counter.count++;
            counter.first ??= line;
          }
          done();
        },
      }),
    ),
  };
  return counter;
}

async function redisReady(redis: Redis, timeoutMs = 5_000) {
  for (const deadline = Date.now() + timeoutMs; redis.status !== "ready"; await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`Redis is not reachable (status ${redis.status})`);
  }
}

async function deleteKeys(redis: Redis, pattern: string) {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

function loadAverage(): number[] {
  return os.loadavg().map((l) => Number(l.toFixed(2)));
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 2;
  })
  .finally(cleanUp);
