// A connection of its own that LISTENs on one PostgreSQL channel and comes back after it is lost. The
// database sends a channel's notifications when the transaction that raised them commits, whoever
// wrote it (triggers). A notification sent while the connection is down is never delivered, so users
// treat `down` as "anything may have changed": the key cache stops caching, the outbox relay polls.
import type pg from "pg";
import { primaryClient } from "./db.ts";
import type { Logger } from "./logger.ts";

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export interface ListenOptions {
  databaseUrl: string;
  channel: string;
  /** How the connection shows in pg_stat_activity. */
  applicationName: string;
  logger: Logger;
  /** Names the listener in its log lines ("key cache: …"). */
  what: string;
  notified(): void;
  /** Listening (again): whatever changed while not listening has not been notified. */
  up(): void;
  /** The connection is gone; a reconnection is scheduled. */
  down(): void;
}

export interface Listener {
  /** Whether notifications can arrive now. */
  readonly listening: boolean;
  /** Resolves once every notification of a transaction committed before the call has been handled. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Starts listening; resolves once listening or after the first failure (retried with backoff). */
export async function listen(o: ListenOptions): Promise<Listener> {
  let client: pg.Client | null = null;
  let reconnectMs = RECONNECT_MIN_MS;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const retry = () => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect();
    }, reconnectMs);
    reconnectMs = Math.min(reconnectMs * 2, RECONNECT_MAX_MS);
  };

  async function connect(): Promise<void> {
    // On the primary (a multi-host DATABASE_URL's read-write host): notifications are not sent on standbys.
    const candidate = primaryClient(o.databaseUrl, {
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      application_name: o.applicationName,
    });
    const lost = (error?: Error) => {
      if (client === candidate) {
        client = null;
        o.down();
        o.logger.warn({ err: error?.message ?? "connection ended" }, `${o.what}: change notifications lost`);
      }
      candidate.removeAllListeners();
      candidate.on("error", () => undefined);
      candidate.end().catch(() => undefined);
      retry();
    };
    candidate.on("notification", () => o.notified());
    candidate.on("error", lost);
    candidate.on("end", () => lost());
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${o.channel}`);
    } catch (error) {
      if (!closed) o.logger.warn({ err: (error as Error).message }, `${o.what}: cannot listen for changes; retrying`);
      lost(error as Error);
      return;
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    reconnectMs = RECONNECT_MIN_MS;
    o.up();
  }

  await connect();
  return {
    get listening() {
      return client !== null;
    },
    async sync() {
      // The server sends pending notifications before it answers a statement on the listening connection.
      await client?.query("SELECT 1");
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      const open = client;
      client = null;
      await open?.end().catch(() => undefined);
    },
  };
}
