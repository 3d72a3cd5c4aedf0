// The work orders' background work in the worker role (src/workers only starts it): the search index.
//
// Search, part 2 of 3: INDEXES the vectors as bitmap postings. (Part 1, search/vector.ts, writes the
// vectors; part 3, search/bitmaps.ts and rules/list.ts, answers searches; docs/work-order-search.md.)
// The indexer reads the pending table (the index's outbox, filled by a trigger on every change of a
// work order's search vector, status, createdAt or woPriority) and applies it in batches with the SQL
// function work_order_search_index, one transaction per batch; a loop of its own builds the requested
// bitmaps: a phrase triple a search asked for, or a term that became common (work_order_search_read_requested
// and work_order_search_build_read; both in search/sql/indexer.sql). Idempotent: a crashed round is simply
// done again. Queries read pending work orders from their live rows, so the indexer's lag costs speed,
// never correctness.
import { sqlPool, type Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startPollLoop } from "../core/poll-loop.ts";

/** Work orders per transaction: large enough to share bitmap writes, small enough to hold row locks briefly. */
const BATCH = 500;

/**
 * Requested bitmaps built per round (a phrase triple, or a term that became common): each reads its work
 * orders through the GIN index (0.06-0.3 s cached, 1.5 s from disk at 1M work orders), so one per round.
 */
const BUILDS = 1;

/** A batch of pending work orders: how many it indexed. */
async function indexPending(db: Db, minDocs: number): Promise<number> {
  const [{ indexed }] = await db.$queryRaw<
    { indexed: number }[]
  >`SELECT work_order_search_index(${BATCH}, ${minDocs}) AS indexed`;
  return indexed;
}

/**
 * A requested bitmap: how many it built. Its read and its build are two transactions on one connection
 * (search/sql/indexer.sql): the read holds no lock on the index's tables while the build waits for the
 * indexer's lock, which a rebuild or a migration may hold while it waits for those tables.
 */
async function buildRequested(db: Db): Promise<number> {
  const session = await sqlPool(db).connect();
  try {
    const read = await session.query<{ n: number }>("SELECT work_order_search_read_requested($1) AS n", [BUILDS]);
    if (!read.rows[0].n) return 0;
    const built = await session.query<{ n: number }>("SELECT work_order_search_build_read() AS n");
    return built.rows[0].n;
  } finally {
    session.release();
  }
}

/** One round of both, one after the other (tests and benches drain the index with it): how many of both. */
export async function indexSearchBatch(db: Db, minDocs: number): Promise<number> {
  return (await indexPending(db, minDocs)) + (await buildRequested(db));
}

/** The indexer's backlog (the metrics read it): work orders changed since it last ran, and the oldest change. */
export async function searchIndexBacklog(db: Db): Promise<{ pending: number; oldestSince: Date | null }> {
  const { rows } = await sqlPool(db).query<{ pending: string; oldest: Date | null }>(
    `SELECT count(*) AS pending, min(since) AS oldest FROM "WorkOrderSearchPending"`,
  );
  return { pending: Number(rows[0].pending), oldestSince: rows[0].oldest };
}

/**
 * Two loops, each on a connection of its own: the pending work orders, and the requested bitmaps. A
 * build reads its rows before it waits for the indexer's lock, so that reading (seconds from disk) no
 * longer holds the pending work orders up (the index lag's stall, #29); the two take turns only for
 * the build's own writes.
 */
export function startSearchIndexJobs(options: { db: Db; logger: Logger; intervalMs: number; minDocs: number }) {
  const { db, logger, intervalMs, minDocs } = options;
  const loops = [
    startPollLoop("search index", async () => (await indexPending(db, minDocs)) > 0, intervalMs, logger),
    startPollLoop("search bitmap builds", async () => (await buildRequested(db)) > 0, intervalMs, logger),
  ];
  return { close: async () => void (await Promise.all(loops.map((loop) => loop.close()))) };
}
