// The one way to open the database: Prisma over the pg driver adapter (no native engine needed).
// The pg pool under it is ours, so hot paths that Prisma would slow down (webhook relay and delivery,
// thousands of rows a second) can run plain SQL on the same connections: `sqlPool(db)`.
//
// Connection loss is survived, never crashed on: a pg client that loses its connection emits 'error',
// and an 'error' event without a listener ends the process. The pool (idle clients) and every client
// checked out here have one; the broken client is dropped and the next query opens a new connection.
//
// PostgreSQL failover: DATABASE_URL may name several hosts (`postgresql://u@h1:5432,h2:5433/db`, as
// libpq writes it; node-postgres takes one host only). Every new connection then goes to the host that
// last took one as read-write; a host that refuses, or answers as a standby (pg_is_in_recovery()), is
// passed over and the next connection tries the next host in the list. So once a standby is promoted,
// new connections reach it within a connection attempt or two, with no restart; a request that got no
// connection meanwhile answers 503 with Retry-After (isConnectionError). docs/deployment.md.
import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { Prisma, PrismaClient } from "./generated/prisma/client.ts";
import { hostUrls } from "./database-urls.ts";

export type Db = PrismaClient;
/** A transaction client (the plain client works too where a function takes one). */
export type Tx = Prisma.TransactionClient;

const pools = new WeakMap<Db, pg.Pool>();

export interface DbOptions {
  max?: number;
  /** How long a query waits for a free pooled connection (and for a new one to open); default 5 s. */
  waitMs?: number;
  /** Told about connections lost while idle, in the pool or checked out between two queries. */
  onConnectionError?: (error: Error) => void;
}

/**
 * A connection that cannot be opened within this time counts as the database being unreachable; a
 * query that waits this long for a free connection of a full pool is turned away as busy (PoolBusyError).
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Settings of every session the service opens. jit=off: PostgreSQL compiles a statement to machine code
 * when its estimated cost passes jit_above_cost, which the search's statements do at 1M work orders by
 * the cost of branches they never run; compiling took 110-170 ms on every execution of a page by
 * priority that runs in 10 ms interpreted (docs/performance.md, "Lists at scale" → "Fourteenth session").
 * max_parallel_workers_per_gather=0: a parallel plan starts its workers for every execution, 40-50 ms
 * on a 2-core machine where a parallel count of 4,000 locations took 43 ms against 0.2; a quarter's
 * chart ran 59-66 ms parallel and 21 ms alone ("Lists at scale" → "Twentieth session"). A request's
 * statement stays on its one backend; concurrent requests use the cores.
 */
export const SESSION_OPTIONS = "-c jit=off -c max_parallel_workers_per_gather=0";

/** Every connection of the pool stayed busy while a query waited for one: overload, not an outage. */
const POOL_BUSY = "POOL_BUSY";
class PoolBusyError extends Error {
  readonly code = POOL_BUSY;
  constructor(waitMs: number) {
    super(`every database connection stayed busy for ${waitMs} ms`);
    this.name = "PoolBusyError";
  }
}

/**
 * Whether the request running here has committed a write. From then on a full pool is waited out instead
 * of turned away: a 503 "busy" tells the client that nothing was done and to send the request again, which
 * after a commit would apply the write twice (the answer's own reads, e.g. relations loaded after the
 * mutation's transaction, come after the commit). One store per request (http/server.ts); set by every
 * transaction that commits (core/transaction.ts inTransaction, sqlTransaction below).
 */
const writes = new AsyncLocalStorage<{ committed: boolean }>();

/** Runs a request's work with its own record of committed writes. */
export const trackingWrites = <T>(work: () => T): T => writes.run({ committed: false }, work);

/** Records that the current request has committed a write (nothing outside a request). */
export function markCommitted(): void {
  const state = writes.getStore();
  if (state) state.committed = true;
}

/**
 * pg's pool answers a wait for a free connection that times out with the same kind of error as a
 * connection that cannot be opened; this pool tells them apart (the first becomes PoolBusyError) and
 * counts them for /metrics. pg-pool's message for a timed-out wait in its queue is matched exactly.
 */
class BoundedPool extends pg.Pool {
  /** Waits for a free connection that timed out, since the pool was made. */
  busyTimeouts = 0;
  private connected = 0;

  /** Connections checked out of the pool (pg-pool listens to its idle ones only). */
  private readonly checkedOut = new WeakSet<pg.PoolClient>();

  /**
   * A checked-out connection that the server ends between two of its queries (a transaction's, a
   * pool.query's between its statement and its release) emits 'error' with no query to fail and,
   * pg-pool having taken its idle listener off, nobody listening: an uncaught exception (seen in
   * test/resilience/connection-loss.test.ts). Every connection gets a listener of its own for its
   * whole life, which reports such an error as the pool's idle connections' are; the holder's next
   * query fails, its transaction with it.
   */
  constructor(config: pg.PoolConfig) {
    super(config);
    this.on("connect", (client) => {
      this.connected++;
      client.on("error", (error) => this.checkedOut.has(client) && this.emit("error", error, client));
    });
    this.on("acquire", (client) => this.checkedOut.add(client));
    this.on("release", (_error, client) => this.checkedOut.delete(client));
    this.on("remove", () => this.connected--);
  }

  private classify(error: Error | undefined): Error | undefined {
    // Connections still opening fill the pool too when the database is unreachable: only a pool full of
    // open connections is busy.
    if (error?.message !== "timeout exceeded when trying to connect" || this.connected < (this.options.max ?? 10))
      return error;
    return new PoolBusyError(this.options.connectionTimeoutMillis ?? 0);
  }

  // pg-pool's connect takes a callback (pool.query uses it) or returns a promise (the Prisma adapter). A
  // busy wait after the request committed a write starts over (see `writes`).
  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): void;
  override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void) {
    if (callback)
      return super.connect((err, client, done) => {
        const error = this.classify(err);
        if (error instanceof PoolBusyError && writes.getStore()?.committed) return this.connect(callback);
        callback(this.count(error), client, done);
      });
    return super.connect().catch((err: Error) => {
      const error = this.classify(err);
      if (error instanceof PoolBusyError && writes.getStore()?.committed) return this.connect();
      throw this.count(error);
    });
  }

  /** Counts a busy wait that is answered 503 (for /metrics). */
  private count(error: Error | undefined): Error | undefined {
    if (error instanceof PoolBusyError) this.busyTimeouts++;
    return error;
  }
}

/** A host that took a connection but is a standby: not the primary (yet), as if it had refused. */
class StandbyHostError extends Error {
  /** cannot_connect_now: isConnectionError's family, so the request answers 503 with Retry-After. */
  readonly code = "57P03";
  constructor(host: string) {
    super(`${host} is a standby (in recovery), not the primary`);
    this.name = "StandbyHostError";
  }
}

/** Which host of a multi-host URL new connections go to; shared by every pool and client of that URL. */
class PrimaryHosts {
  private current = 0;
  constructor(readonly urls: string[]) {}

  pick(): number {
    return this.current;
  }

  /** Host `index` refused or is a standby: the next connection tries the next one (once per failure seen). */
  passOver(index: number): void {
    if (this.current === index) this.current = (index + 1) % this.urls.length;
  }

  /** The host part of a URL, for messages (never the password). */
  name(index: number): string {
    return new URL(this.urls[index]).host;
  }
}

const primaryHosts = new Map<string, PrimaryHosts>();

/**
 * A pg.Client class whose connections go to the read-write host of a multi-host URL (see the head of
 * this file); used for the pool (its Client option) and for single connections (the key cache's LISTEN).
 */
function primaryClientClass(databaseUrl: string): typeof pg.Client {
  let hosts = primaryHosts.get(databaseUrl);
  if (!hosts) primaryHosts.set(databaseUrl, (hosts = new PrimaryHosts(hostUrls(databaseUrl))));
  const list = hosts;
  return class PrimaryClient extends pg.Client {
    private readonly hostIndex: number;

    constructor(config: pg.ClientConfig = {}) {
      const index = list.pick();
      super({ ...config, connectionString: list.urls[index] });
      this.hostIndex = index;
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: any, client?: pg.Client) => void): Promise<pg.Client> | undefined {
      const connected = this.connectReadWrite();
      if (!callback) return connected;
      connected.then((client) => callback(null, client), callback);
    }

    private async connectReadWrite(): Promise<pg.Client> {
      try {
        await super.connect();
      } catch (error) {
        list.passOver(this.hostIndex);
        throw error;
      }
      let standby: boolean;
      try {
        standby = (await this.query("SELECT pg_is_in_recovery() AS standby")).rows[0].standby;
      } catch (error) {
        list.passOver(this.hostIndex);
        await this.end().catch(() => undefined);
        throw error;
      }
      if (standby) {
        list.passOver(this.hostIndex);
        await this.end().catch(() => undefined);
        throw new StandbyHostError(list.name(this.hostIndex));
      }
      return this;
    }
  };
}

/**
 * A single connection to the primary of DATABASE_URL (not connected yet), for what needs a session of
 * its own (LISTEN): with a multi-host URL it goes to the read-write host.
 */
export function primaryClient(databaseUrl: string, config: Omit<pg.ClientConfig, "connectionString"> = {}): pg.Client {
  const urls = hostUrls(databaseUrl);
  if (urls.length === 1) return new pg.Client({ ...config, connectionString: urls[0] });
  return new (primaryClientClass(databaseUrl))(config);
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const urls = hostUrls(databaseUrl);
  const pool = new BoundedPool({
    connectionString: urls[0],
    ...(urls.length > 1 ? { Client: primaryClientClass(databaseUrl) } : {}),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.waitMs ?? CONNECT_TIMEOUT_MS,
    keepAlive: true,
    options: SESSION_OPTIONS,
  });
  pool.on("error", (error) => options.onConnectionError?.(error));
  return clientOver(pool);
}

/** Prisma over a pg pool of the caller's (the bench's counting pool); $disconnect() ends the pool too. */
export function clientOver(pool: pg.Pool): Db {
  const db = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true, statementNameGenerator: statementName }),
  });
  pools.set(db, pool);
  return db;
}

/**
 * Prisma's statements are prepared once per connection under a name made from their text: later runs
 * send only the parameters, and PostgreSQL neither parses nor (after a few runs) plans them again.
 * Needs a session per connection (direct, or a pooler in session mode).
 */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 5_000;
function statementName(query: { sql: string }): string {
  let name = statementNames.get(query.sql);
  if (name === undefined) {
    name = `p_${crypto.createHash("sha1").update(query.sql).digest("base64url")}`;
    if (statementNames.size >= MAX_STATEMENT_NAMES) statementNames.clear();
    statementNames.set(query.sql, name);
  }
  return name;
}

/** The pg pool under a client made by createDb. */
export function sqlPool(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("sqlPool: this client was not made by createDb");
  return pool;
}

/** Whether `db` is a client createDb made (it has a pool for sqlRows); a transaction's client is not. */
export const hasSqlPool = (db: unknown): db is Db => pools.has(db as Db);

/**
 * A Prisma.Sql run on the pool as plain SQL (a named prepared statement, as Prisma's are): the rows as pg
 * parses them. For hot reads where Prisma's raw-query path was the cost (docs/performance.md).
 * `planFor: "values"` sends it unnamed, so PostgreSQL plans every run for its values: a prepared
 * statement is planned generically after five runs, guessing a range's rows (911 for a month's 27,779
 * work orders), and a chart's statement then sorted and looked its names up row by row (45 ms planned
 * for its values, 62–98 ms generic); planning it again costs about a millisecond.
 */
export async function sqlRows<T>(db: Db, query: Prisma.Sql, options: { planFor?: "values" } = {}): Promise<T[]> {
  const { text, values } = query;
  const name = options.planFor === "values" ? undefined : statementName({ sql: text });
  return (await sqlPool(db).query({ name, text, values })).rows as T[];
}

/**
 * Runs `work` in one transaction on a pooled connection (plain SQL; see sqlPool). `readSnapshot`: a
 * read-only transaction whose statements all see one snapshot (REPEATABLE READ), e.g. to read the
 * changes a kept chart answer did not see and the groups they changed at one instant.
 */
export async function sqlTransaction<T>(
  db: Db,
  work: (client: pg.PoolClient) => Promise<T>,
  { readSnapshot = false } = {},
): Promise<T> {
  const client = await sqlPool(db).connect();
  // Set when the server ends this connection (pg_terminate_backend, a restart): the query in flight
  // fails with it, and the client is destroyed on release instead of going back to the pool.
  let lost: Error | undefined;
  const onError = (error: Error) => (lost = error);
  client.on("error", onError);
  try {
    await client.query(readSnapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    if (!readSnapshot) markCommitted();
    return result;
  } catch (error) {
    if (!lost) await client.query("ROLLBACK").catch((e: Error) => (lost = e));
    throw error;
  } finally {
    client.removeListener("error", onError);
    client.release(lost);
  }
}

/** Waits for a free connection that timed out since the client was made (0 for a pool not made here). */
export function poolBusyTimeouts(db: Db): number {
  const pool = sqlPool(db);
  return pool instanceof BoundedPool ? pool.busyTimeouts : 0;
}

/** Whether an error is a PoolBusyError, or wraps one (Prisma keeps only its code). */
export function isPoolBusy(error: unknown): boolean {
  return causes(error).some((e) => e instanceof PoolBusyError || e.code === POOL_BUSY);
}

/** An error and the errors it wraps: pg's, Prisma's (meta.driverAdapterError) and GraphQL's. */
function causes(error: unknown): Record<string, any>[] {
  const seen = new Set<unknown>();
  const found: Record<string, any>[] = [];
  const pending = [error];
  while (pending.length) {
    const e = pending.pop() as Record<string, any> | undefined;
    if (!e || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    found.push(e);
    pending.push(e.cause, e.originalError, e.meta?.driverAdapterError, e.meta?.driverAdapterError?.cause);
  }
  return found;
}

/**
 * Whether an error means the database cannot be reached right now (refused, terminated, timed out,
 * shutting down, out of connections), as opposed to a bad statement: such a request is answered 503.
 */
export function isConnectionError(error: unknown): boolean {
  return causes(error).some(
    (e) =>
      (typeof e.code === "string" && (CONNECTION_CODES.has(e.code) || e.code.startsWith("08"))) ||
      (typeof e.kind === "string" && UNREACHABLE_KINDS.has(e.kind)) ||
      e.name === "PrismaClientInitializationError" ||
      (typeof e.message === "string" && CONNECTION_MESSAGES.test(e.message)),
  );
}

/** Node socket codes, pg's admin shutdown / crash / cannot-connect-now / too-many-connections, and Prisma's "can't reach" family. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
]);
const UNREACHABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Unable to start a transaction in the given time|terminating connection due to administrator command/i;

export { Prisma };
