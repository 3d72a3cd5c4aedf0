// `npx tsx bench/pm.ts` (`npm run bench -- pm`): the built-in planned maintenance generator's
// throughput next to a bare insert loop, in the same run on the same database.
//
//   1. Database wo_bench_pm (dropped, created, `prisma migrate deploy`, dropped again at the end), the
//      base fixture with Acme on built-in scheduling.
//   2. Baseline: BENCH_PM_WORKERS (2) pg clients insert BENCH_PM_SCHEDULES (2,000) work order rows, one
//      autocommitted INSERT each: the least a work order costs in this database.
//   3. Generator: as many due schedules, then BENCH_PM_WORKERS workers (each with its own connection
//      pool, like worker processes) run generation rounds at once until nothing is due. Each work order
//      goes through the create rules (reference checks, status, currency, status entry, outbox event,
//      search vector) with its run log and the schedule's advance, in batches of up to 10 schedules per
//      transaction.
//   Every schedule must end with exactly one work order, one success run log and one event.
// Summary printed; JSON in <tmpdir>/wo-bench/pm.json. Exit code 2 on failure (no target is set:
// the figure to watch is the ratio to the baseline). Bounded: a watchdog ends everything after 170 s.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { createDb, type Db } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { generateDue } from "../src/schema/planned-maintenance/rules/generator.ts";
import { onServer, recreateDatabase } from "./database.ts";
import { abort, cleanUp, gitRevision, onCleanUp } from "./common.ts";

const DATABASE = "wo_bench_pm";
const SCHEDULES = Number(process.env.BENCH_PM_SCHEDULES ?? 2_000);
const WORKERS = Number(process.env.BENCH_PM_WORKERS ?? 2);
const WATCHDOG_SECONDS = 170;
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "pm.json");
const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const log = (message: string) => console.log(`bench pm: ${message}`);

async function setUp() {
  const url = await recreateDatabase(DATABASE);
  onCleanUp(() => onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  const db = createDb(url, { max: 4 });
  onCleanUp(() => db.$disconnect());
  const fixture = JSON.parse(fs.readFileSync(new URL("../test/fixtures/base.json", import.meta.url), "utf8"));
  fixture.buyerCompanies[0].config.pmScheduling = "built_in";
  const { refs } = await applyFixture(db, fixture, { allowInsecureWebhooks: false });
  await db.plannedMaintenanceSchedule.updateMany({ data: { nextRunAt: null } });
  return { url, db, refs };
}

/** WORKERS clients, one INSERT per work order, autocommit. */
async function bareInserts(url: string, refs: Record<string, number>): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, w) => {
      for (let i = w; i < SCHEDULES; i += WORKERS) {
        await client.query(
          `INSERT INTO "WorkOrder" ("buyerCompanyId", "buyerFacilityId", "locationId", "problemTypeId", title, status, "createdBy",
           "supplierFacilityId", "assetId", "isPM", "statusChangedAt", "updatedAt")
         VALUES ($1, $2, $3, $4, $5, 'PendingConfirmationByServiceProvider', 'bench@wo-service.local', $6, $7, true, now(), now())`,
          [refs.acme, refs["acme-hq"], refs["store-1"], refs.hvac, `Baseline ${i}`, refs["coolco-pdx"], refs["rtu-1"]],
        );
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.end()));
  return seconds;
}

async function generator(url: string, db: Db, refs: Record<string, number>) {
  const due = new Date("2027-05-03T16:00:00Z");
  await db.plannedMaintenanceSchedule.createMany({
    data: Array.from({ length: SCHEDULES }, (_, i) => ({
      buyerCompanyId: refs.acme,
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      supplierFacilityId: refs["coolco-pdx"],
      assetIds: [refs["rtu-1"]],
      title: `Bench PM ${i}`,
      cadence: "P1M",
      anchorAt: due,
      nextRunAt: due,
    })),
  });
  const workers = Array.from({ length: WORKERS }, () => createDb(url, { max: 2 }));
  const logger = pino({ level: "silent" });
  const now = () => new Date("2027-05-03T16:01:00Z");
  const started = performance.now();
  const rounds = await Promise.all(workers.map((w) => generateDue({ db: w, now, logger })));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.$disconnect()));
  const [check] = await db.$queryRaw<{ workOrders: number; duplicates: number; logs: number; events: number }[]>`
    SELECT (SELECT count(*)::int FROM "WorkOrder" WHERE title LIKE 'Bench PM %') AS "workOrders",
           (SELECT count(*)::int FROM (SELECT 1 FROM "WorkOrder" WHERE title LIKE 'Bench PM %' GROUP BY "plannedMaintenanceScheduleId" HAVING count(*) > 1) d) AS duplicates,
           (SELECT count(*)::int FROM "SchedulerRunLog" WHERE status = 'success' AND "lastRunDueAt" = ${due}) AS logs,
           (SELECT count(*)::int FROM "OutboxEvent" e JOIN "WorkOrder" w ON w.id = e."workOrderId" WHERE w.title LIKE 'Bench PM %') AS events`;
  if (
    check.workOrders !== SCHEDULES ||
    check.duplicates !== 0 ||
    check.logs !== SCHEDULES ||
    check.events !== SCHEDULES
  ) {
    throw new Error(`exactly-once check failed: ${JSON.stringify(check)} for ${SCHEDULES} schedules`);
  }
  return { seconds, perWorker: rounds.map((r) => r.workOrders) };
}

async function main() {
  const watchdog = setTimeout(
    () => abort(`watchdog: still running after ${WATCHDOG_SECONDS} s`),
    WATCHDOG_SECONDS * 1000,
  );
  watchdog.unref();
  log(`setting up ${DATABASE}`);
  const { url, db, refs } = await setUp();
  log(`baseline: ${SCHEDULES} bare INSERTs over ${WORKERS} clients`);
  const baselineSeconds = await bareInserts(url, refs);
  log(`generator: ${SCHEDULES} due schedules, ${WORKERS} workers`);
  const gen = await generator(url, db, refs);
  const baselineRate = Math.round(SCHEDULES / baselineSeconds);
  const generatorRate = Math.round(SCHEDULES / gen.seconds);
  const summary = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((l) => round(l)),
    settings: { schedules: SCHEDULES, workers: WORKERS },
    baseline: { rows: SCHEDULES, seconds: round(baselineSeconds), rowsPerSecond: baselineRate },
    generator: {
      workOrders: SCHEDULES,
      seconds: round(gen.seconds),
      workOrdersPerSecond: generatorRate,
      perWorker: gen.perWorker,
      ratioToBaseline: round(generatorRate / baselineRate, 3),
    },
    exactlyOnce: true,
  };
  fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
  fs.writeFileSync(RESULT_FILE, JSON.stringify(summary, null, 2));
  console.log(`
Planned maintenance bench (${summary.commit}, node ${summary.node}, ${summary.cpus} CPUs, load ${summary.loadAverage.join(" ")})
  baseline: bare INSERT loop, ${WORKERS} clients              ${String(baselineRate).padStart(6)} rows/s
  generator: due schedule → work order + run log + advance  ${String(generatorRate).padStart(6)} work orders/s  (${summary.generator.ratioToBaseline}× baseline; per worker ${gen.perWorker.join(" / ")})
  exactly once: ${SCHEDULES} schedules, ${SCHEDULES} work orders, success run logs and workorder.create events
  JSON: ${RESULT_FILE}`);
  clearTimeout(watchdog);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 2;
  })
  .finally(cleanUp);
