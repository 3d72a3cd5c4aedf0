// Multi-step writes run in one transaction: `inTransaction(ctx.db, async (tx) => …)`, never
// `ctx.db.$transaction` directly. A write running inside a larger transaction (a db handed over by
// `joinable`, e.g. a request's own transaction) joins it instead of opening another, so it commits or
// rolls back with everything else that request did.
import type { Db, Tx } from "../../db.ts";

const joined = new WeakSet<object>();

/** `options`: Prisma's interactive transaction limits (a background batch may need more than the 5 s default). */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, options?: { timeout?: number; maxWait?: number }): Promise<T> {
  if (joined.has(db)) return work(db as unknown as Tx);
  return db.$transaction((tx) => work(joinable(tx) as unknown as Tx), options);
}

/** `tx` as a Db for code that takes one (a rule's ctx.db): its inTransaction calls join `tx`. */
export function joinable(tx: Tx): Db {
  joined.add(tx);
  return tx as unknown as Db;
}
