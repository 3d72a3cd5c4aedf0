// Durable scheduling: work whose schedule lives in PostgreSQL rows, never in Redis (docs/events.md,
// "Durable scheduling"). A row of such a table carries `nextAttemptAt` (when it is due; set exactly
// while it is pending) and `leaseUntil` (a worker holds it for an attempt until then). A dispatcher
// claims due rows that nobody holds (FOR UPDATE SKIP LOCKED, so any number of worker processes share
// them), runs up to `concurrency` at once, and each run records its outcome: the next due time or
// none, and the lease ended. A worker that dies mid-attempt leaves a lease that runs out, and the row
// is due again. Losing Redis, or every worker, loses no row and no schedule. A process that writes due
// rows itself may write some already leased to itself and hand them straight to its dispatcher
// (`reserve`): they skip the claim, and the lease covers them exactly as a claim's would.
//
// Work that is database-only (e.g. a generator that writes rows when a schedule is due) needs no lease:
// claim and do it in one transaction per round (FOR UPDATE SKIP LOCKED, core/poll-loop.ts).
import { sqlPool, type Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";

export interface DueWorkOptions<T> {
  name: string;
  logger: Logger;
  /** Takes up to `limit` due rows nobody holds and sets their lease (claimDueSql). */
  claim(limit: number): Promise<T[]>;
  /**
   * One attempt of one claimed row; records its own outcome. A rejection is only logged: the lease runs
   * out and the row is due again. `sent()` (optional) says the outside side effect is over and only the
   * record is left: the slot goes to another row while the record lands (the lease still holds this one).
   */
  run(item: T, sent: () => void): Promise<unknown>;
  /** Rows in flight at most (and as many more whose record has not landed yet). */
  concurrency: number;
  /** How often to look for due rows while none are (and the latency floor of a retry). */
  intervalMs: number;
}

/** Slots held for rows about to be written already leased (DueWork.reserve). */
export interface Reservation<T> {
  /** How many rows may be written leased: slots free now, held until handOver. */
  count: number;
  /**
   * Runs the rows written leased (at most `count`; fewer, or none when the write failed) and gives the
   * rest of the slots back. Call it exactly once, after the rows are committed.
   */
  handOver(items: T[]): void;
}

export interface DueWork<T = unknown> {
  /** Due rows may have appeared (written by this process): look now instead of at the next interval. */
  poke(): void;
  /** Holds up to `max` free slots for rows this process is about to write leased to itself (no claim then). */
  reserve(max: number): Reservation<T>;
  /** Stops claiming, then waits for the attempts in flight. */
  close(): Promise<void>;
}

export function startDueWork<T>(o: DueWorkOptions<T>): DueWork<T> {
  // While every slot is taken, claim again only once a quarter of them is free: claims stay batched.
  const refill = Math.max(1, Math.floor(o.concurrency / 4));
  // Every run until it settles (close waits for them); `busy` counts those that still hold a slot (not
  // sent yet). Records waiting to land are bounded too, so a slow database slows the claims down.
  const inFlight = new Set<Promise<unknown>>();
  let busy = 0;
  // Slots promised to rows being written leased (reserve); not claimable meanwhile.
  let reserved = 0;
  const free = () => Math.min(o.concurrency - busy, 2 * o.concurrency - inFlight.size) - reserved;
  let stopped = false;
  let saturated = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const slotFreed = () => {
    if (saturated && free() >= refill) wakeUp();
  };

  function start(item: T) {
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      busy--;
      slotFreed();
    };
    busy++;
    const attempt = o
      .run(item, release)
      .catch((err: Error) =>
        o.logger.warn(
          { err: err.message, loop: o.name },
          "attempt failed; its row is due again when the lease runs out",
        ),
      )
      .finally(() => {
        inFlight.delete(attempt);
        if (holding) release();
        else slotFreed();
      });
    inFlight.add(attempt);
  }

  const loop = (async () => {
    while (!stopped) {
      const limit = free();
      saturated = false;
      if (limit > 0) {
        try {
          const items = await o.claim(limit);
          saturated = items.length === limit;
          for (const item of items) start(item);
        } catch (err) {
          o.logger.warn({ err: (err as Error).message, loop: o.name }, "claiming due work failed; will retry");
        }
      } else saturated = true;
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, o.intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    poke() {
      if (!saturated) wakeUp();
    },
    reserve(max) {
      const count = stopped ? 0 : Math.max(0, Math.min(max, free()));
      reserved += count;
      let open = true;
      return {
        count,
        handOver(items) {
          if (!open) throw new Error("a reservation is handed over once");
          if (items.length > count) throw new Error(`${items.length} rows handed over for ${count} slots`);
          open = false;
          reserved -= count;
          for (const item of items) start(item);
          slotFreed();
        },
      };
    },
    async close() {
      stopped = true;
      wakeUp();
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}

export interface ScheduleColumns {
  /** Due time column (default "nextAttemptAt"). */
  due?: string;
  /** Lease column (default "leaseUntil"). */
  lease?: string;
}

/**
 * The claim statement over a table with the scheduling columns: parameters $1 now, $2 how many, $3 the
 * lease's end. Oldest due first. `returning` lists the claimed rows' columns (table alias `t`), and
 * `select` reads the `claimed` rows (join what an attempt needs there).
 */
export function claimDueSql(
  table: string,
  returning: string,
  select = "SELECT * FROM claimed",
  columns: ScheduleColumns = {},
): string {
  const due = columns.due ?? "nextAttemptAt";
  const lease = columns.lease ?? "leaseUntil";
  return `WITH due AS (
      SELECT id FROM "${table}"
       WHERE "${due}" <= $1 AND ("${lease}" IS NULL OR "${lease}" <= $1)
       ORDER BY "${due}" LIMIT $2 FOR UPDATE SKIP LOCKED),
    claimed AS (
      UPDATE "${table}" t SET "${lease}" = $3 FROM due WHERE t.id = due.id RETURNING ${returning})
    ${select}`;
}

/** A scheduled table's pending rows at one moment (the metrics' queue gauges). */
export interface PendingWork {
  /** Due, and nobody holds them. */
  due: number;
  /** Held by a worker's lease. */
  inFlight: number;
  /** Not due yet: waiting for a retry. */
  retryWait: number;
  /** The earliest due time of a pending row (it may be in the future). */
  oldestDue: Date | null;
}

/**
 * The pending rows of a table with the default scheduling columns at `now`, counted as the dispatcher
 * claims them: a lease that has run out holds nothing. It reads only the rows with a due time, which are
 * the pending ones, so its cost follows the backlog.
 */
export async function pendingWork(db: Db, table: string, now: Date): Promise<PendingWork> {
  const { rows } = await sqlPool(db).query<{
    due: string;
    in_flight: string;
    retry_wait: string;
    oldest_due: Date | null;
  }>(
    `SELECT count(*) FILTER (WHERE "nextAttemptAt" <= $1 AND ("leaseUntil" IS NULL OR "leaseUntil" <= $1)) AS due,
            count(*) FILTER (WHERE "leaseUntil" > $1) AS in_flight,
            count(*) FILTER (WHERE "nextAttemptAt" > $1 AND ("leaseUntil" IS NULL OR "leaseUntil" <= $1)) AS retry_wait,
            min("nextAttemptAt") AS oldest_due
       FROM "${table}" WHERE "nextAttemptAt" IS NOT NULL`,
    [now],
  );
  const [r] = rows;
  // Counts arrive as bigint text.
  return {
    due: Number(r.due),
    inFlight: Number(r.in_flight),
    retryWait: Number(r.retry_wait),
    oldestDue: r.oldest_due,
  };
}
