// The search indexer's two loops (work-orders/jobs.ts startSearchIndexJobs): pending work orders are
// indexed while a requested bitmap is being built. A build reads its work orders through the GIN index
// (seconds from disk at 1M work orders); when one loop did both, every pending work order waited for it
// (the index lag's stall, #29). Here a build is held up for as long as the test likes, and a work order
// written meanwhile must still be indexed; then the build goes on and finishes.
import { afterAll, beforeAll, expect, it } from "vitest";
import pino from "pino";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";
import { startSearchIndexJobs } from "../../src/schema/work-orders/jobs.ts";
import { TERM } from "../../src/schema/work-orders/search/terms.ts";
import type { Db } from "../../src/db.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** The test's database client, whose build statements wait for `release` (the other statements run). */
function holdingBuilds(db: Db) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const builds = { started: 0, finished: 0 };
  const held = new Proxy(db, {
    get(target, property) {
      if (property !== "$queryRaw") return Reflect.get(target, property);
      return async (strings: TemplateStringsArray, ...values: unknown[]) => {
        if (!strings.join("").includes("work_order_search_materialize")) return target.$queryRaw(strings, ...values);
        builds.started++;
        await released;
        const rows = await target.$queryRaw(strings, ...values);
        builds.finished++;
        return rows;
      };
    },
  });
  return { db: held, builds, release };
}

/** Whether the indexer has indexed the work order (only it writes a doc row, and only then the pending one goes). */
const indexed = async (id: number) =>
  (
    await t.db.$queryRaw<{ indexed: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM "WorkOrderSearchDoc" WHERE "workOrderId" = ${id})
         AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPending" WHERE "workOrderId" = ${id}) AS indexed`
  )[0].indexed;

async function until(what: string, done: () => Promise<boolean> | boolean) {
  for (const deadline = Date.now() + 10_000; !(await done()); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
}

it("indexes pending work orders while a bitmap build is held up, and finishes the build after", async () => {
  const refs = t.fixture.refs;
  const { db, builds, release } = holdingBuilds(t.db);
  // A triple asked for by a search: the build loop takes it up and is held.
  await t.db
    .$executeRaw`INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term) VALUES (${refs.acme}, ${`${TERM.triple}11walk cooler warm`})`;
  const jobs = startSearchIndexJobs({ db, logger: pino({ level: "silent" }), intervalMs: 20, minDocs: 1_000 });
  try {
    await until("the build loop starts its build", () => builds.started > 0);
    // A new work order: the insert trigger makes it pending, the index loop indexes it.
    const { id } = await acmeWorkOrder(t);
    await until("the new work order is indexed", () => indexed(id));
    expect(builds.finished).toBe(0);
    release();
    await until("the held build finishes", () => builds.finished > 0);
    const requested = await t.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "WorkOrderSearchPhrase" WHERE "buyerCompanyId" = ${refs.acme}`;
    expect(requested[0].n).toBe(0);
  } finally {
    release();
    await jobs.close();
  }
});
