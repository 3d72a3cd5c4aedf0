// The search indexer's two loops (work-orders/jobs.ts startSearchIndexJobs): pending work orders are
// indexed while a requested bitmap is being built. A build reads its work orders through the GIN index
// (seconds from disk at 1M work orders); when one loop did both, every pending work order waited for it
// (the index lag's stall, #29). Here a build is held up for as long as the test likes, and a work order
// written meanwhile must still be indexed; then the build goes on and finishes. And a build that waited
// for the indexer's lock reads again only the docs indexed meanwhile, its bits still the indexed state's.
import { afterAll, beforeAll, expect, it } from "vitest";
import pg from "pg";
import pino from "pino";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";
import { indexSearchBatch, startSearchIndexJobs } from "../../src/schema/work-orders/jobs.ts";
import { TERM } from "../../src/schema/work-orders/search/terms.ts";
import { type Db, sqlPool } from "../../src/db.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/**
 * Holds the build loop's reads (work-orders/jobs.ts buildRequested, on a session of `db`'s pool) until
 * `release`; every other statement runs. `restore` puts the pool back.
 */
function holdingBuilds(db: Db) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const builds = { started: 0, finished: 0 };
  const pool = sqlPool(db);
  const connect = pool.connect;
  // Prisma's queries go through pool.query, which calls connect with a callback: those pass untouched.
  type Session = pg.PoolClient;
  const connectSession = connect.bind(pool) as () => Promise<Session>;
  pool.connect = ((...args: unknown[]) => {
    if (args.length) return (connect as (...a: unknown[]) => unknown).apply(pool, args);
    return connectSession().then((session) => {
      const { query, release: releaseSession } = session;
      session.query = (async (...queryArgs: unknown[]) => {
        const run = () => (query as (...a: unknown[]) => Promise<unknown>).apply(session, queryArgs);
        if (!String(queryArgs[0]).includes("work_order_search_read_requested")) return run();
        builds.started++;
        await released;
        const result = await run();
        builds.finished++;
        return result;
      }) as Session["query"];
      session.release = (...releaseArgs: Parameters<Session["release"]>) => {
        Object.assign(session, { query, release: releaseSession });
        return releaseSession.apply(session, releaseArgs);
      };
      return session;
    });
  }) as typeof pool.connect;
  return { builds, release, restore: () => void (pool.connect = connect) };
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
  const { builds, release, restore } = holdingBuilds(t.db);
  // A triple asked for by a search: the build loop takes it up and is held.
  await t.db
    .$executeRaw`INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term) VALUES (${refs.acme}, ${`${TERM.triple}11walk cooler warm`})`;
  const jobs = startSearchIndexJobs({ db: t.db, logger: pino({ level: "silent" }), intervalMs: 20, minDocs: 1_000 });
  try {
    await until("the build loop starts its build", () => builds.started > 0);
    // A new work order: the insert trigger makes it pending, the index loop indexes it.
    const { id } = await acmeWorkOrder(t);
    await until("the new work order is indexed", () => indexed(id));
    expect(builds.finished).toBe(0);
    release();
    await until("the held read finishes", () => builds.finished > 0);
    // Then the build itself (work_order_search_build_read, the session's next statement) takes the request.
    const requested = async () =>
      (
        await t.db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM "WorkOrderSearchPhrase" WHERE "buyerCompanyId" = ${refs.acme}`
      )[0].n;
    await until("the held build takes its request", async () => (await requested()) === 0);
  } finally {
    release();
    await jobs.close();
    restore();
  }
});

// ---------------------------------------------------------------- a build's second read

/** Sets a work order's search vector to the text's (the vector is all the indexer and the builds read). */
const setText = (id: number, text: string) =>
  t.db.$executeRaw`UPDATE "WorkOrder" SET "searchVector" = to_tsvector('english', ${text}) WHERE id = ${id}`;

const ordinalOf = async (id: number) =>
  (await t.db.$queryRaw<{ ordinal: number }[]>`SELECT ordinal FROM "WorkOrderSearchDoc" WHERE "workOrderId" = ${id}`)[0]
    .ordinal;

async function drain() {
  while ((await indexSearchBatch(t.db, 1_000)) > 0);
}

/**
 * A build of `triple` as the build loop runs it: its read (a transaction of its own), then its build,
 * which waits for the indexer's lock while `meanwhile` runs on a session that holds it (its batches and
 * a rebuild take it again, as the indexer's would); returns the built bitmap's ordinals and the
 * dictionary's count.
 */
async function buildAround(triple: string, meanwhile: (indexer: pg.Client) => Promise<void>) {
  const company = t.fixture.refs.acme;
  await t.db.$executeRaw`INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term) VALUES (${company}, ${triple})`;
  const [builder, indexer] = [t.databaseUrl, t.databaseUrl].map((url) => new pg.Client({ connectionString: url }));
  await Promise.all([builder.connect(), indexer.connect()]);
  try {
    expect((await builder.query("SELECT work_order_search_read_requested(1) AS n")).rows[0].n).toBe(1);
    await indexer.query(`SELECT pg_advisory_lock(hashtext('work_order_search_index'))`);
    const build = builder.query<{ n: number }>("SELECT work_order_search_build_read() AS n");
    await until("the build waits for the lock", async () => {
      const { rows } = await indexer.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'advisory' AND query LIKE '%work_order_search_build_read%'`,
      );
      return rows[0].n > 0;
    });
    await meanwhile(indexer);
    await indexer.query(`SELECT pg_advisory_unlock(hashtext('work_order_search_index'))`);
    expect((await build).rows[0].n).toBe(1);
  } finally {
    await Promise.all([builder.end(), indexer.end()]);
  }
  const [bits] = await t.db.$queryRaw<{ ordinals: number[] }[]>`
    SELECT coalesce(array_agg(o ORDER BY o), '{}') AS ordinals
      FROM "WorkOrderSearchBitmap" b, work_order_search_ordinals(b.chunk, b.bits) o
     WHERE b."buyerCompanyId" = ${company} AND b.term = ${triple}`;
  const [term] = await t.db.$queryRaw<{ docs: number }[]>`
    SELECT docs FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = ${company} AND term = ${triple}`;
  return { ordinals: bits.ordinals, docs: term.docs };
}

/**
 * Five work orders around one triple: indexed with it and changed without it meanwhile (indexed), indexed
 * without it and changed to hold it (indexed, then changed without it: pending, its indexed state holds
 * it), new with it (indexed), indexed with it and changed without it (pending), indexed with it and
 * unchanged. `meanwhile` runs the
 * changes and an indexer batch on the lock's session, then `after` (the log's pruning, for one case).
 */
/** `words`: three lexemes as the English configuration keeps them (no stemming). */
async function fiveAround(words: string, after: (indexer: pg.Client) => Promise<void> = async () => {}) {
  const [a, b, c] = words.split(" ");
  const triple = `${TERM.triple}11${words}`;
  const [dropped, added, kept, unchanged] = await Promise.all([0, 1, 2, 3].map(() => acmeWorkOrder(t)));
  await setText(dropped.id, `${a} ${b} ${c}`);
  await setText(added.id, `${a} ${c} ${b}`);
  await setText(kept.id, `${a} ${b} ${c}`);
  await setText(unchanged.id, `${a} ${b} ${c} again`);
  await drain();
  let created = 0;
  const built = await buildAround(triple, async (indexer) => {
    await setText(dropped.id, `${c} ${b} ${a}`);
    await setText(added.id, `${a} ${b} ${c}`);
    created = (await acmeWorkOrder(t)).id;
    await setText(created, `${a} ${b} ${c}`);
    await indexer.query("SELECT work_order_search_index(500, 1000)");
    await setText(kept.id, `${b} ${a}`);
    await setText(added.id, `${b} ${c}`);
    await after(indexer);
  });
  const expected = await Promise.all([added.id, created, kept.id, unchanged.id].map(ordinalOf));
  expect(built.ordinals).toEqual(expected.sort((x, y) => x - y));
  expect(built.docs).toBe(4);
  // What the indexer will diff against: after the pending changes are indexed, the triple holds two.
  await drain();
  const [after_] = await t.db.$queryRaw<{ docs: number }[]>`
    SELECT docs FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = ${t.fixture.refs.acme} AND term = ${triple}`;
  expect(after_.docs).toBe(2);
}

it("corrects a build's first read with the docs indexed while it waited for the lock, and only those", async () => {
  await fiveAround("quartz lantern cobalt");
});

it("reads a build's work orders again when the batches since its first read were pruned from the log", async () => {
  await fiveAround("velvet harbor tundra", (indexer) =>
    indexer
      .query(`DELETE FROM "WorkOrderSearchIndexed" WHERE id <= (SELECT max(id) FROM "WorkOrderSearchIndexed")`)
      .then(() => {}),
  );
});

it("reads a build's work orders again when a rebuild numbered the docs afresh while it waited", async () => {
  const [a, b, c] = ["saffron", "copper", "meadow"];
  const triple = `${TERM.triple}11${a} ${b} ${c}`;
  // A doc indexed and deleted before the triple's work orders leaves a gap in the ordinals, which a
  // rebuild closes: the work orders after it are numbered one lower.
  const gone = await acmeWorkOrder(t);
  const holding = await Promise.all([0, 1].map(() => acmeWorkOrder(t)));
  for (const { id } of holding) await setText(id, `${a} ${b} ${c}`);
  await drain();
  await t.db.$executeRaw`DELETE FROM "WorkOrder" WHERE id = ${gone.id}`;
  await drain();
  const before = await Promise.all(holding.map(({ id }) => ordinalOf(id)));
  const built = await buildAround(triple, (indexer) =>
    indexer.query("SELECT work_order_search_rebuild(1000)").then(() => {}),
  );
  const after = await Promise.all(holding.map(({ id }) => ordinalOf(id)));
  expect(after).not.toEqual(before);
  expect(built.ordinals).toEqual(after.sort((x, y) => x - y));
  expect(built.docs).toBe(2);
});
