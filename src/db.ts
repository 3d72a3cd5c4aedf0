// The one way to open the database: Prisma over the pg driver adapter (no native engine needed).
// The pg pool under it is ours, so hot paths that Prisma would slow down (webhook relay and delivery,
// thousands of rows a second) can run plain SQL on the same connections: `sqlPool(db)`.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { Prisma, PrismaClient } from "./generated/prisma/client.ts";

export type Db = PrismaClient;
/** A transaction client (the plain client works too where a function takes one). */
export type Tx = Prisma.TransactionClient;

const pools = new WeakMap<Db, pg.Pool>();

export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10 });
  // $disconnect() ends the pool too.
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** The pg pool under a client made by createDb. */
export function sqlPool(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("sqlPool: this client was not made by createDb");
  return pool;
}

/** Runs `work` in one transaction on a pooled connection (plain SQL; see sqlPool). */
export async function sqlTransaction<T>(db: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await sqlPool(db).connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export { Prisma };
