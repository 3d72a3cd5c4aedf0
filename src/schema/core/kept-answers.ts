// Chart answers kept between requests (docs/dashboards.md, "Kept chart answers"). A buyer's chart of a
// month at 1M work orders groups 28,000 rows into 19,000 groups: 30–35 ms of statement however it is
// planned, and a 2.5 MB answer. Dashboards ask for the same chart again and again while nothing it reads
// has changed, so an answer is kept (per database client and statement) with a snapshot taken just before
// it was read, and given again only while it is exactly what the statement would answer now:
// - no transaction that snapshot did not see has changed what the company's charts read over the period
//   the chart counts: the triggers of migration 20261219090000_stats_changes write a "StatsChange" row
//   per company and transaction (with the creation times of the work orders it wrote), and one index
//   lookup per request (FRESH) finds any the snapshot does not show;
// - time alone cannot change a figure: one relative to the request's time (a work order that may still
//   fall due) makes the answer right for its own request only (Read.validUntil);
// - its snapshot is younger than KEPT_MS (a check that finds the answer exact moves it to the check's
//   own): the worker deletes the change rows no younger snapshot can need (startStatsChangesCleanup).
// Anything else reads the rows again.
import { type Db, Prisma, sqlRows } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startPollLoop } from "./poll-loop.ts";

const KEPT_MS = 10 * 60_000;
const PRUNED_AFTER_MS = KEPT_MS + 5 * 60_000;
/** Rows kept at most per database client (about 200 bytes each); the least recently used answers go first. */
const MAX_KEPT_ROWS = 200_000;

/** What a read gives: its rows, and the instant up to which they are right with nothing written (null: any later one). */
export interface Read<T> {
  rows: T[];
  validUntil: Date | null;
}

interface Kept {
  company: number;
  period: Period;
  /** pg_current_snapshot() taken just before the read, as text. */
  snapshot: string;
  /** The snapshot's statement_timestamp() plus KEPT_MS: PostgreSQL's clock, compared by PostgreSQL. */
  expires: Date;
  validUntil: Date | null;
  rows: unknown[];
}

/** Kept answers by key, least recently used first, per database client (a replica's are its own). */
const stores = new WeakMap<Db, { answers: Map<string, Kept>; rows: number }>();

/** What this process answered (/metrics: chart_answers_total, chart_answers_kept_rows). */
export const keptAnswerCounts = { kept: 0, read: 0, rows: 0 };

const storeOf = (db: Db) => {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = { answers: new Map(), rows: 0 }));
  return store;
};

/** The creation times a chart counts (from ≤ createdAt < to; a missing end: unbounded). */
export interface Period {
  from?: Date | null;
  to?: Date | null;
}

/** A snapshot taken now, and when an answer read after it expires (PostgreSQL's clock). */
const SNAPSHOT = Prisma.raw(
  `pg_current_snapshot()::text AS snapshot, statement_timestamp() + interval '${KEPT_MS} milliseconds' AS expires`,
);

/**
 * Whether `kept` is fresh: nothing the snapshot it was read after did not see changed the company's
 * charts over its period (a change with a creation range outside it leaves them), nor every company's;
 * and, in the same statement, the snapshot a new read would be kept with.
 */
const FRESH = (company: number, kept: Kept) => {
  const unseen = Prisma.sql`c.xid >= pg_snapshot_xmin(${kept.snapshot}::pg_snapshot)
                        AND NOT pg_visible_in_snapshot(c.xid, ${kept.snapshot}::pg_snapshot)`;
  const from = kept.period.from ?? null;
  const to = kept.period.to ?? null;
  return Prisma.sql`
  SELECT statement_timestamp() < ${kept.expires}
     AND NOT EXISTS (SELECT 1 FROM "StatsChange" c
                      WHERE c."buyerCompanyId" = ${company} AND ${unseen}
                        AND (c."createdFrom" IS NULL
                             OR (${from}::timestamptz IS NULL OR c."createdTo" >= ${from}::timestamptz)
                            AND (${to}::timestamptz IS NULL OR c."createdFrom" < ${to}::timestamptz)))
     AND NOT EXISTS (SELECT 1 FROM "StatsChange" c WHERE c."buyerCompanyId" IS NULL AND ${unseen}) AS fresh,
         ${SNAPSHOT}`;
};

/**
 * The rows `read` gives for `key` in `company`'s charts over the work orders created in `period`, kept from
 * an earlier request when they are still exactly right at `now` (see above). A read is kept with a
 * snapshot taken just before it: what commits between the two is in the rows and counts as unseen, so it
 * can only make the next request read again, never keep a stale answer.
 */
export async function keptRows<T>(
  db: Db,
  { company, period = {}, key, now }: { company: number; period?: Period; key: string; now: Date },
  read: () => Promise<Read<T>>,
): Promise<T[]> {
  const store = storeOf(db);
  const kept = store.answers.get(key);
  const usable = kept && (!kept.validUntil || now < kept.validUntil);
  const [check] = await sqlRows<{ fresh?: boolean; snapshot: string; expires: Date }>(
    db,
    usable ? FRESH(company, kept) : Prisma.sql`SELECT ${SNAPSHOT}`,
  );
  if (usable && check.fresh) {
    // Exact as of the check's own snapshot too: the next check reads only the changes since this one
    // (a busy company writes thousands in ten minutes), and the answer lives ten minutes from now.
    kept.snapshot = check.snapshot;
    kept.expires = check.expires;
    store.answers.delete(key);
    store.answers.set(key, kept); // most recently used
    keptAnswerCounts.kept++;
    return kept.rows as T[];
  }
  const answer = await read();
  keptAnswerCounts.read++;
  keep(store, key, { company, period, snapshot: check.snapshot, expires: check.expires, ...answer });
  return answer.rows;
}

function keep(store: { answers: Map<string, Kept>; rows: number }, key: string, kept: Kept): void {
  const rowsBefore = store.rows;
  const before = store.answers.get(key);
  if (before) store.rows -= before.rows.length;
  store.answers.delete(key);
  if (kept.rows.length <= MAX_KEPT_ROWS) {
    store.answers.set(key, kept);
    store.rows += kept.rows.length;
  }
  for (const [oldest, answer] of store.answers) {
    if (store.rows <= MAX_KEPT_ROWS) break;
    store.answers.delete(oldest);
    store.rows -= answer.rows.length;
  }
  keptAnswerCounts.rows += store.rows - rowsBefore;
}

/**
 * Deletes the change rows no kept answer can need (the worker role, every minute). A row matters to an
 * answer whose snapshot did not see its transaction, and a kept snapshot is at most KEPT_MS old; so a row may go once
 * its transaction had ended PRUNED_AFTER_MS ago: its xid is below the xmin of a snapshot taken then (every
 * transaction below a snapshot's xmin had ended). A transaction's own age does not matter: one that wrote
 * an hour before it committed is still older than no snapshot's xmin taken before its commit.
 */
export function startStatsChangesCleanup(o: { db: Db; logger: Logger; now: () => Date; intervalMs?: number }) {
  const horizons: { at: number; xmin: string }[] = [];
  return startPollLoop(
    "stats changes cleanup",
    async () => {
      const [{ xmin }] = await sqlRows<{ xmin: string }>(
        o.db,
        Prisma.sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
      );
      const at = o.now().getTime();
      horizons.push({ at, xmin });
      let horizon: string | undefined;
      while (horizons.length && horizons[0].at <= at - PRUNED_AFTER_MS) horizon = horizons.shift()!.xmin;
      if (horizon) await sqlRows(o.db, Prisma.sql`DELETE FROM "StatsChange" WHERE xid < ${horizon}::xid8`);
      return false;
    },
    o.intervalMs ?? 60_000,
    o.logger,
  );
}
