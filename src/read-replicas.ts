// Read replicas (DATABASE_READ_URL): the hot standbys that read-only requests may read from — REST
// lists, counts and searches, GraphQL queries (the Context's db is chosen per request: http/graphql.ts,
// rest/adapter.ts). Writes, the answer of a write and every read inside a write stay on the primary.
//
// A replica is used only while it is reachable and its replay lag is within DATABASE_READ_MAX_LAG_MS;
// otherwise reads fall back to the primary. The lag is measured by comparing WAL positions, not with
// `now() - pg_last_xact_replay_timestamp()`: that one grows without bound while the primary is idle (no
// transaction to replay), which would take a replica that is fully caught up out of service. Instead
// the primary's WAL position (pg_current_wal_lsn) is sampled every CHECK_INTERVAL_MS, and a replica's
// lag is the age of the oldest sample its replayed position (pg_last_wal_replay_lsn) has not reached:
// how long ago the primary had written something the replica still does not show. 0 when it has
// replayed everything sampled; the resolution is the check interval. A "replica" that is not in
// recovery (a promoted standby) is a primary itself and has no lag.
import { createDb, type Db, Prisma, sqlRows } from "./db.ts";
import type { Logger } from "./logger.ts";

const CHECK_INTERVAL_MS = 500;
/** A check that does not answer within this time counts as the replica (or the primary) not answering. */
const CHECK_TIMEOUT_MS = 1_000;
/** Samples of the primary's position kept: the lag is known up to this age, and reported as at least it beyond. */
const SAMPLES_KEPT = 120;

export interface ReplicaOptions {
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind than this is not read from. */
  maxLagMs: number;
  /** Connections of each replica's pool, and how long a read waits for one (as the primary's). */
  poolMax: number;
  waitMs: number;
  logger: Logger;
}

/** What /metrics shows of one replica. */
export interface ReplicaState {
  /** host:port, the gauge's label. */
  name: string;
  /** Replay lag in milliseconds; undefined while unknown (unreachable, or not replaying yet). */
  lagMs?: number;
  /** Read from now: reachable and within the lag bound. */
  usable: boolean;
}

interface Replica extends ReplicaState {
  db: Db;
}

/** "0/16B3748" → a number that orders like the position. */
const lsnValue = (lsn: string) => {
  const [high, low] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
};

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class ReadReplicas {
  private readonly replicas: Replica[];
  /** The primary's WAL position over time, oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Read-only requests sent to a replica, and to the primary for want of a usable one. */
  readonly reads = { replica: 0, primary: 0 };

  constructor(
    private readonly primary: Db,
    urls: string[],
    private readonly options: ReplicaOptions,
  ) {
    this.replicas = urls.map((url) => {
      const replica = { name: new URL(url).host, usable: false } as Replica;
      replica.db = createDb(url, {
        max: options.poolMax,
        waitMs: options.waitMs,
        onConnectionError: (error) => {
          // A replica that drops its connections is taken out of service at once, not at the next check.
          replica.usable = false;
          options.logger.warn({ err: error.message, replica: replica.name }, "read replica connection lost");
        },
      });
      return replica;
    });
  }

  /** Runs the first check (so reads use the replicas from the first request) and starts the loop. */
  async start(): Promise<void> {
    await this.check();
    this.schedule();
  }

  /** The client a read-only request reads from: a usable replica (in turn), else the primary. */
  pick(): Db {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.usable) {
        this.next = (this.next + i + 1) % this.replicas.length;
        this.reads.replica++;
        return replica.db;
      }
    }
    this.reads.primary++;
    return this.primary;
  }

  states(): ReplicaState[] {
    return this.replicas.map(({ name, lagMs, usable }) => ({ name, lagMs, usable }));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.replicas.map((r) => r.db.$disconnect()));
  }

  private schedule() {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** One round: each replica's position first, then the primary's, so a write in between never counts as lag. */
  private async check(): Promise<void> {
    const positions = await Promise.all(this.replicas.map((r) => this.replayed(r)));
    const now = Date.now();
    const primary = await within(
      sqlRows<{ lsn: string }>(this.primary, Prisma.sql`SELECT pg_current_wal_lsn()::text AS lsn`),
      CHECK_TIMEOUT_MS,
    ).catch(() => undefined); // the primary down: its last samples still tell what the replicas lack
    if (primary) {
      this.samples.push({ at: now, lsn: lsnValue(primary[0].lsn) });
      if (this.samples.length > SAMPLES_KEPT) this.samples.shift();
    }
    this.replicas.forEach((replica, i) => {
      const position = positions[i];
      const was = replica.usable;
      replica.lagMs = position === undefined ? undefined : position === "primary" ? 0 : this.lagOf(position, now);
      replica.usable = replica.lagMs !== undefined && replica.lagMs <= this.options.maxLagMs;
      if (was !== replica.usable)
        this.options.logger.warn(
          { replica: replica.name, lagMs: replica.lagMs, maxLagMs: this.options.maxLagMs },
          replica.usable ? "read replica in service" : "read replica out of service: reads go to the primary",
        );
    });
  }

  /** The replica's replayed position; "primary" when it is not in recovery; undefined when it does not answer. */
  private async replayed(replica: Replica): Promise<bigint | "primary" | undefined> {
    try {
      const [row] = await within(
        sqlRows<{ standby: boolean; lsn: string | null }>(
          replica.db,
          Prisma.sql`SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn`,
        ),
        CHECK_TIMEOUT_MS,
      );
      if (!row.standby) return "primary";
      return row.lsn === null ? undefined : lsnValue(row.lsn);
    } catch {
      return undefined;
    }
  }

  /** How long ago the primary was at a position the replica has not replayed (0: none sampled). */
  private lagOf(replayed: bigint, now: number): number {
    const behind = this.samples.find((sample) => sample.lsn > replayed);
    return behind ? now - behind.at : 0;
  }
}
