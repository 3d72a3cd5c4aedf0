// Chart answers kept between requests (docs/dashboards.md, "Kept chart answers"). A buyer's chart of a
// month at 1M work orders groups 28,000 rows into 19,000 groups: 30–35 ms of statement however it is
// planned, and a 2.5 MB answer. Dashboards ask for the same chart again and again while nothing it reads
// has changed, so an answer is kept (per database client and statement) with a snapshot taken just before
// it was read, and given again only while it is exactly what the statement would answer now:
// - no transaction that snapshot did not see has changed what the company's charts read over the period
//   the chart counts: the triggers of migration 20261219090000_stats_changes write a "StatsChange" row
//   per company and transaction (with the creation times of the work orders it wrote), and one index
//   lookup per request (CHANGES) finds any the snapshot does not show; a change confined to names (a
//   renamed region, problem type, supplier facility or location; migration 20261230090000) counts only
//   for the charts that show them (KeptOptions.dimensions);
// - time alone cannot change a figure: one relative to the request's time (a work order that may still
//   fall due) makes the answer right for its own request only (validUntil);
// - its snapshot is younger than KEPT_MS (a check that finds the answer exact moves it to the check's
//   own): the worker deletes the change rows no younger snapshot can need (startStatsChangesCleanup).
// A chart grouped by location or supplier facility that such changes made stale is patched when they name
// those of the work orders they wrote (migration 20261220090000): only their groups are read again, in
// one snapshot with a check of the changes it sees, and put in place of theirs (Patch). Anything else
// reads the rows again.
import { type Db, Prisma, sqlRows, sqlTransaction } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startPollLoop } from "./poll-loop.ts";

const KEPT_MS = 10 * 60_000;
const PRUNED_AFTER_MS = KEPT_MS + 5 * 60_000;
/** Rows kept at most per database client (about 200 bytes each); the least recently used answers go first. */
const MAX_KEPT_ROWS = 200_000;

interface Kept {
  company: number;
  period: Period;
  dimensions: readonly string[];
  /** pg_current_snapshot() taken just before the read, as text. */
  snapshot: string;
  /** The snapshot's statement_timestamp() plus KEPT_MS: PostgreSQL's clock, compared by PostgreSQL. */
  expires: Date;
  /** The instant up to which the rows are right with nothing written (null: any later one). */
  validUntil: Date | null;
  rows: unknown[];
}

/** The row lists of kept answers (kept-json.ts keeps the JSON they were written as). */
const keptRowLists = new WeakSet<unknown[]>();

/** Whether `rows` are a kept answer's (given again while exact, or patched): the same row objects next time. */
export const isKeptRows = (rows: unknown[]): boolean => keptRowLists.has(rows);

/** Where a patched answer's rows come from: the rows it patched, and each row's index there (-1: read again). */
export interface Origin {
  rows: unknown[];
  at: Int32Array;
}

const origins = new WeakMap<unknown[], Origin>();

/** The origin of a patched answer's rows (undefined for any other). */
export const originOf = (rows: unknown[]): Origin | undefined => origins.get(rows);

/** Kept answers by key, least recently used first, per database client (a replica's are its own). */
const stores = new WeakMap<Db, { answers: Map<string, Kept>; rows: number }>();

/** What this process answered (/metrics: chart_answers_total, chart_answers_kept_rows). */
export const keptAnswerCounts = { kept: 0, patched: 0, read: 0, rows: 0 };

/**
 * Keys (locations, supplier facilities) beyond which a patch reads the whole chart instead (the triggers
 * record at most as many per transaction, migration 20261220090000): their groups
 * would cost what the whole read does.
 */
const MAX_PATCHED_KEYS = 64;

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

/** What the change rows say of a kept answer, with the snapshot a new answer would be kept with. */
interface Changes {
  /** Its snapshot is younger than KEPT_MS. */
  unexpired: boolean;
  /**
   * A change it did not see of its company's charts (or every company's: a supplier facility's name, a
   * truncate) over its period, not confined to dimensions it does not show.
   */
  changed: boolean;
  /**
   * The keys (Patch.changes: locations or supplier facilities) of the work orders those changes wrote, a
   * null element for a work order without one; null when one change was not confined to 64, or no patch.
   */
  keys: (number | null)[] | null;
  snapshot: string;
  expires: Date;
}

/**
 * The changes its snapshot did not see of `kept`'s company's charts and of every company's, over its
 * period (a change with a creation range outside it leaves it) and not confined to dimensions it does not
 * show, with the keys they name in their column `keys`; in the same statement, the snapshot a new read
 * would be kept with.
 */
const CHANGES = (company: number, kept: Kept, keys?: Patch<unknown>["changes"]) => {
  const from = kept.period.from ?? null;
  const to = kept.period.to ?? null;
  return Prisma.sql`
  SELECT statement_timestamp() < ${kept.expires} AS unexpired, ch.changed, ch.keys, ${SNAPSHOT}
    FROM (SELECT count(*) > 0 AS changed, ${keysOf(keys)} AS keys
            FROM "StatsChange" c ${keys ? keysJoin(keys) : Prisma.empty}
           WHERE (c."buyerCompanyId" = ${company} OR c."buyerCompanyId" IS NULL)
             AND c.xid >= pg_snapshot_xmin(${kept.snapshot}::pg_snapshot)
             AND NOT pg_visible_in_snapshot(c.xid, ${kept.snapshot}::pg_snapshot)
             AND (c.dimensions IS NULL OR c.dimensions && ${kept.dimensions}::text[])
             AND (c."createdFrom" IS NULL
                  OR (${from}::timestamptz IS NULL OR c."createdTo" >= ${from}::timestamptz)
                 AND (${to}::timestamptz IS NULL OR c."createdFrom" < ${to}::timestamptz))) ch`;
};

/** Each change row's keys (`keys`: a column of ours, not input) as rows k(id, n); none for a row without. */
const keysJoin = (keys: string) =>
  Prisma.sql`LEFT JOIN LATERAL unnest(c.${Prisma.raw(`"${keys}"`)}) WITH ORDINALITY k(id, n) ON true`;

/** The union of the change rows' keys (null when one row has none); a null key counts, a row without keys not. */
const keysOf = (keys?: string) =>
  keys
    ? Prisma.sql`CASE WHEN bool_and(c.${Prisma.raw(`"${keys}"`)} IS NOT NULL)
                 THEN coalesce(array_agg(DISTINCT k.id) FILTER (WHERE k.n IS NOT NULL), '{}') END`
    : Prisma.sql`NULL::int[]`;

/** Exact as it is: nothing it did not see changed its charts, and it has not expired. */
const fresh = (c: Changes) => c.unexpired && !c.changed;
/** Exact once the groups of `c.keys` are read again. */
const patchable = (c: Changes) => c.unexpired && c.keys !== null && c.keys.length <= MAX_PATCHED_KEYS;

/**
 * How an answer whose rows are grouped by location or supplier facility (among other keys) is patched:
 * the rows of the keys the changes name are read again and take the place of theirs.
 */
interface Patch<T> {
  /** The change rows' column that names the keys. */
  changes: "locationIds" | "supplierFacilityIds";
  /** The statement of the answer restricted to the work orders of these keys (its rows in its order). */
  statement: (keys: (number | null)[]) => Prisma.Sql;
  /** A row's key. */
  keyOf: (row: T) => number | null;
  /** The statement's ORDER BY, over two rows. */
  compare: (a: T, b: T) => number;
}

interface KeptOptions<T> {
  /** Whose charts: the change rows of this company (and of every company) make it stale. */
  company: number;
  /** The creation times of the work orders the chart counts; changes outside it leave the chart exact. */
  period?: Period;
  /**
   * The dimensions whose names (or, REGION, whose locations) the chart shows or filters by: a change
   * confined to others' leaves it exact.
   */
  dimensions: readonly string[];
  /** The chart's statement and values, without the request's time. */
  key: string;
  /** The request's time. */
  now: Date;
  /** The instant up to which rows are right with nothing written (null: any later one). */
  validUntil: (rows: T[]) => Date | null;
  patch?: Patch<T>;
}

/**
 * The rows `read` gives for `key` in `company`'s charts over the work orders created in `period`, kept from
 * an earlier request when they are still exactly right at `now` (see above), or patched. A read is kept
 * with a snapshot taken just before it: what commits between the two is in the rows and counts as unseen,
 * so it can only make the next request read again, never keep a stale answer.
 */
export async function keptRows<T>(db: Db, o: KeptOptions<T>, read: () => Promise<T[]>): Promise<T[]> {
  const store = storeOf(db);
  const kept = store.answers.get(o.key);
  const usable = kept && (!kept.validUntil || o.now < kept.validUntil);
  const [check] = await sqlRows<Partial<Changes> & Pick<Changes, "snapshot" | "expires">>(
    db,
    usable ? CHANGES(o.company, kept, o.patch?.changes) : Prisma.sql`SELECT ${SNAPSHOT}`,
  );
  if (usable && fresh(check as Changes)) {
    // Exact as of the check's own snapshot too: the next check reads only the changes since this one
    // (a busy company writes thousands in ten minutes), and the answer lives ten minutes from now.
    keep(store, o.key, { ...kept, snapshot: check.snapshot, expires: check.expires });
    keptAnswerCounts.kept++;
    return kept.rows as T[];
  }
  if (usable && o.patch && patchable(check as Changes)) {
    const answer = await patched(db, o.company, kept, o.patch);
    if (answer) {
      keptAnswerCounts.patched++;
      // Bounded by the kept rows' bound and the rows read again (not by scanning all 19,000 again).
      const bounds = [kept.validUntil, o.validUntil(answer.read)].filter((d): d is Date => d !== null);
      const validUntil = bounds.length ? new Date(Math.min(...bounds.map(Number))) : null;
      keep(store, o.key, { ...kept, ...answer.at, rows: answer.rows, validUntil });
      return answer.rows;
    }
  }
  const rows = await read();
  keptAnswerCounts.read++;
  const at = { snapshot: check.snapshot, expires: check.expires };
  const { company, period = {}, dimensions } = o;
  keep(store, o.key, { company, period, dimensions, ...at, rows, validUntil: o.validUntil(rows) });
  return rows;
}

/**
 * `kept` brought up to date: in one read-only snapshot, the changes it did not see are read again (more
 * may have committed since the request's check), and the groups of their keys with them, which take
 * the place of those groups in the kept rows (the rest are exactly as that snapshot shows them: nothing
 * it did not see wrote their work orders). Null when the changes are no longer confined to 64 keys.
 */
async function patched<T>(db: Db, company: number, kept: Kept, patch: Patch<T>) {
  const fetched = await sqlTransaction(
    db,
    async (client) => {
      const [changes] = (await client.query<Changes>(CHANGES(company, kept, patch.changes))).rows;
      if (!patchable(changes)) return null;
      const { text, values } = patch.statement(changes.keys!);
      return { changes, rows: (await client.query<T & object>({ text, values })).rows as T[] };
    },
    { readSnapshot: true },
  );
  if (!fetched) return null;
  const changed = new Set(fetched.changes.keys);
  const keptRows = kept.rows as T[];
  const others: number[] = []; // the kept rows' indices that stay
  for (let i = 0; i < keptRows.length; i++) if (!changed.has(patch.keyOf(keptRows[i]))) others.push(i);
  const at = { snapshot: fetched.changes.snapshot, expires: fetched.changes.expires };
  const merged = mergeSorted(others, keptRows, fetched.rows, patch.compare);
  origins.set(merged.rows, { rows: keptRows, at: merged.at });
  return { at, rows: merged.rows, read: fetched.rows };
}

/**
 * The kept rows at `others` and the rows read again, both sorted by `compare`, as one, with each row's
 * index among the kept rows (-1: read again). The rows read again are few (a few locations' groups
 * against a month's 19,000): each finds its place by binary search, then both are copied in one pass (a
 * comparison per kept row took 5 ms a request).
 */
function mergeSorted<T>(others: number[], kept: T[], read: T[], compare: (x: T, y: T) => number) {
  const rows: T[] = [];
  const at = new Int32Array(others.length + read.length);
  let from = 0;
  const copyTo = (end: number) => {
    for (; from < end; from++) {
      at[rows.length] = others[from];
      rows.push(kept[others[from]]);
    }
  };
  for (const row of read) {
    let low = from;
    let high = others.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(kept[others[middle]], row) <= 0) low = middle + 1;
      else high = middle;
    }
    copyTo(low);
    at[rows.length] = -1;
    rows.push(row);
  }
  copyTo(others.length);
  return { rows, at };
}

function keep(store: { answers: Map<string, Kept>; rows: number }, key: string, kept: Kept): void {
  const rowsBefore = store.rows;
  const before = store.answers.get(key);
  if (before) store.rows -= before.rows.length;
  store.answers.delete(key);
  if (kept.rows.length <= MAX_KEPT_ROWS) {
    store.answers.set(key, kept);
    keptRowLists.add(kept.rows);
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
