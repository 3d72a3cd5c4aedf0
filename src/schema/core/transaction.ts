// Multi-step writes run in one transaction: `inTransaction(ctx.db, async (tx) => …)`, never
// `ctx.db.$transaction` directly. A write running inside a larger transaction (a db handed over by
// `joinable`, e.g. a request's own transaction) joins it instead of opening another, so it commits or
// rolls back with everything else that request did.
import { type Db, hasSqlPool, markCommitted, type Tx } from "../../db.ts";

const joined = new WeakSet<object>();

/** What to run once a transaction (by its tx) has committed: afterCommit (each action once). */
const committed = new WeakMap<object, Set<(db: Db) => void>>();

/**
 * Prisma gives up on a transaction that waits more than 2 s for a pooled connection (P2028, a 500).
 * Under a burst of writes (200 concurrent stock changes on a pool of 5) that wait is normal queueing,
 * as it is for every other query on the pool: wait longer, and let a transaction run for longer too.
 */
const TRANSACTION_LIMITS = { maxWait: 15_000, timeout: 15_000 };

/** `limits`: Prisma's interactive transaction limits, when a background batch needs other ones. */
export function inTransaction<T>(
  db: Db,
  work: (tx: Tx) => Promise<T>,
  limits?: { timeout?: number; maxWait?: number },
): Promise<T> {
  if (joined.has(db)) return work(db as unknown as Tx);
  let transaction: object | undefined;
  return db
    .$transaction(
      (tx) => {
        transaction = tx;
        return work(joinable(tx) as unknown as Tx);
      },
      { ...TRANSACTION_LIMITS, ...limits },
    )
    .then((result) => {
      markCommitted();
      for (const action of committed.get(transaction!) ?? []) action(db);
      return result;
    });
}

/**
 * Runs `action` with the database once the transaction `tx` belongs to has committed (never if it rolls
 * back), once however often it was asked for in that transaction; at once when `tx` is a database
 * client itself (a statement of its own has committed). For hints to other processes that must not be
 * sent before the data they announce is visible.
 */
export function afterCommit(tx: Tx | Db, action: (db: Db) => void): void {
  if (!joined.has(tx)) {
    if (hasSqlPool(tx)) action(tx);
    return;
  }
  const actions = committed.get(tx);
  if (actions) actions.add(action);
  else committed.set(tx, new Set([action]));
}

/** `tx` as a Db for code that takes one (a rule's ctx.db): its inTransaction calls join `tx`. */
export function joinable(tx: Tx): Db {
  joined.add(tx);
  return tx as unknown as Db;
}
