// pg pools whose connections count the statements they send to PostgreSQL. The service gets a
// PrismaClient built by src/db.ts (clientOver: Prisma over @prisma/adapter-pg, 10 connections),
// but over such a pool (PrismaPg accepts a pg.Pool), so the bench knows exactly how many statements
// one HTTP request costs: the key lookup, the page, the count and anything else (an N+1 would show).
import pg from "pg";
import { clientOver, type Db, SESSION_OPTIONS } from "../src/db.ts";

export interface StatementCounter {
  /** Statements sent since the pool was created. */
  statements: number;
  /** When set, the SQL text of each statement is appended (for printing one request's statements). */
  recording?: string[];
}

export interface CountingPool {
  pool: pg.Pool;
  counter: StatementCounter;
}

export function createCountingPool(connectionString: string, max = 10): CountingPool {
  const counter: StatementCounter = { statements: 0 };
  // Every statement, whether sent by pool.query or on a checked-out connection (transactions), goes
  // through Client#query; the pool creates its connections from this class.
  class CountingClient extends pg.Client {
    override query(...args: any[]): any {
      counter.statements++;
      counter.recording?.push(typeof args[0] === "string" ? args[0] : args[0]?.text);
      return (super.query as (...a: any[]) => any)(...args);
    }
  }
  const pool = new pg.Pool({ connectionString, max, Client: CountingClient, options: SESSION_OPTIONS });
  // An idle connection that fails (the server restarts, the database is dropped) must not crash the
  // bench: without a listener the pool's "error" event would be thrown.
  pool.on("error", (error) => console.error(`bench: an idle pg connection failed: ${error.message}`));
  return { pool, counter };
}

/** The service's database client, over a counting pool. */
export function createCountingDb(
  connectionString: string,
  max = 10,
): CountingPool & { db: Db; close(): Promise<void> } {
  const counting = createCountingPool(connectionString, max);
  const db = clientOver(counting.pool);
  return { ...counting, db, close: () => db.$disconnect() };
}
