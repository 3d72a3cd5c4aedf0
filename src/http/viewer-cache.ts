// Verified keys kept in the process, so that a request authenticates without a database round trip
// (docs/performance.md). What makes that safe is being told of every change: the database notifies
// the channel `viewer_change` when a transaction that changed a key, a contact, or the facility and
// company rows a viewer is read from commits (triggers, migration 20261202090000), whoever wrote it.
// Every API instance listens on a connection of its own and forgets everything it holds on each
// notification. While that connection is down nothing is cached (a notification could be missed),
// and it is emptied again once the connection is back. So a revoked key is refused on every instance
// as soon as the notification arrives (milliseconds; docs/performance.md gives the measured bound).
// The secret is compared (constant time) and the expiry checked on every request, cached or not.
import type { Db } from "../db.ts";
import { listen, type Listener } from "../db-listen.ts";
import type { Logger } from "../logger.ts";
import {
  keyAdmits,
  loadKey,
  plausibleKeyPair,
  viewerOfKey,
  type KeyRecord,
  type Viewer,
} from "../schema/core/viewer.ts";

const CHANNEL = "viewer_change";
/** How the listening connection shows in pg_stat_activity. */
export const APPLICATION_NAME = "work-orders key cache";
/** A backstop only: notifications are what keep entries true. */
const ENTRY_TTL_MS = 60_000;
/** Beyond this many keys the oldest entry makes room (every key still works, uncached). */
const MAX_ENTRIES = 10_000;

export class ViewerCache {
  /** Per key: its record, when it was read, and the viewer it stands for (one object for all its requests). */
  private readonly entries = new Map<string, { record: KeyRecord; at: number; viewer: Viewer }>();
  /** Bumped by every notification: a lookup that started before one must not store what it read. */
  private generation = 0;
  private listener: Listener | null = null;

  constructor(
    private readonly db: Db,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /** Starts listening; resolves once listening or after the first failure (the cache stays off until a retry works). */
  async start(): Promise<void> {
    this.listener = await listen({
      databaseUrl: this.databaseUrl,
      channel: CHANNEL,
      applicationName: APPLICATION_NAME,
      logger: this.logger,
      what: "key cache (authenticating from the database until notifications are back)",
      notified: () => this.clear(),
      up: () => this.clear(), // whatever changed while not listening
      down: () => this.clear(),
    });
  }

  /** Whether entries are used: only while notifications can arrive. */
  get active(): boolean {
    return this.listener?.listening ?? false;
  }

  /** The viewer of a key pair (keyAdmits, viewerOfKey), from the cache when it holds the key. */
  async viewer(apiKey: string, secret: string, now: Date): Promise<Viewer | null> {
    if (!plausibleKeyPair(apiKey, secret)) return null;
    const entry = this.active ? this.entries.get(apiKey) : undefined;
    if (entry && now.getTime() - entry.at < ENTRY_TTL_MS)
      return keyAdmits(entry.record, secret, now) ? entry.viewer : null;
    const generation = this.generation;
    const record = await loadKey(this.db, apiKey);
    const viewer = record && keyAdmits(record, secret, now) ? viewerOfKey(record) : null;
    // Only keys that authenticated are kept: a wrong secret or a revoked key costs its caller a lookup.
    if (viewer && this.active && generation === this.generation) this.remember(apiKey, record!, viewer, now);
    return viewer;
  }

  /**
   * Resolves once every notification of a transaction committed before the call has been handled: the
   * server sends pending notifications before it answers a statement on the listening connection.
   */
  async sync(): Promise<void> {
    await this.listener?.sync();
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.clear();
  }

  private remember(apiKey: string, record: KeyRecord, viewer: Viewer, now: Date) {
    this.entries.delete(apiKey);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(apiKey, { record, at: now.getTime(), viewer });
  }

  private clear() {
    this.generation++;
    this.entries.clear();
  }
}
