// The live side of one API instance: one Redis subscriber connection on the relay's channel while the
// instance has subscribers, and one position in the stream (the last message number it fanned out).
// Messages are fanned out in stream order, each once: a number Redis skipped (a lost publish, a Redis
// restart, two relays' publishes crossing) is read from the outbox before the next one goes out, and a
// timer reads whatever Redis did not bring at all. So every subscriber sees, from the moment it
// listens, every message with a greater number, in order (docs/events.md, "Subscriptions").
import type { Redis } from "ioredis";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { tooManySubscriptions } from "./errors.ts";
import { readStream, streamHead, SUBSCRIPTION_CHANNEL, type LiveMessage } from "./stream.ts";
import { createWorkOrderLoader, type WorkOrderLoader } from "./work-orders.ts";

/** The limits and windows of live subscriptions (Config.live; documented in docs/events.md). */
export interface LiveSettings {
  /** LIVE_RETENTION_HOURS: how far back `after` may resume. */
  retentionHours: number;
  /** LIVE_BUFFER: messages one subscription may have waiting before it is ended as too slow. */
  bufferLimit: number;
  /** LIVE_MAX_CONNECTIONS_PER_KEY: websocket connections of one key on one instance. */
  maxConnectionsPerKey: number;
  /** LIVE_MAX_SUBSCRIPTIONS_PER_KEY: live subscriptions of one key on one instance (both transports). */
  maxSubscriptionsPerKey: number;
  /** LIVE_CATCH_UP_MS: how often the instance reads the outbox for messages Redis did not bring. */
  catchUpMs: number;
}

/** One subscriber as the instance sees it. */
interface Listener {
  push(m: LiveMessage): void;
  /** The instance is shutting down. */
  end(): void;
}

export interface LiveEvents {
  readonly settings: LiveSettings;
  /** Work orders as subscribers select them, batched across subscribers. */
  readonly workOrders: WorkOrderLoader;
  /**
   * Hands `listener` every message after `position` (the instance's position when it starts
   * listening), in order; resolves once the instance is live.
   */
  listen(listener: Listener): Promise<{ position: number; stop(): void }>;
  /** Counts a subscription of a key; throws beyond the limit. Call the result when it ends. */
  admit(keyId: number): () => void;
  close(): Promise<void>;
}

/** The event side of the GraphQL context, provided by the HTTP server (src/http/graphql.ts). */
export interface EventServices {
  live: LiveEvents;
  /** Server-sent events: the request's Last-Event-ID header (resume after it). */
  lastEventId?: string;
  /** Websockets: closes the operation's connection (a subscriber too slow to keep up). */
  disconnect?: () => void;
}

declare module "../core/context.ts" {
  interface Context {
    /** Only on GraphQL contexts: REST never subscribes. */
    events?: EventServices;
  }
}

export interface LiveDeps {
  redis: Redis;
  redisPrefix: string;
  db: Db;
  logger: Logger;
  live: LiveSettings;
}

/** Counts what each key holds (connections, subscriptions) against a limit. */
export function perKeyLimit(limit: number) {
  const held = new Map<number, number>();
  return {
    /** A release function, or undefined when the key is at the limit. */
    admit(keyId: number): (() => void) | undefined {
      const count = held.get(keyId) ?? 0;
      if (count >= limit) return undefined;
      held.set(keyId, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (held.get(keyId) ?? 1) - 1;
        if (left > 0) held.set(keyId, left);
        else held.delete(keyId);
      };
    },
  };
}

/**
 * The subscriber connection (subscriber mode needs its own): commands wait while (re)connecting, and
 * ioredis subscribes again after a reconnect (`onReady`: what was published meanwhile is read from
 * the outbox).
 */
function subscriberConnection(
  deps: LiveDeps,
  channel: string,
  onBatch: (b: LiveMessage[]) => void,
  onReady: () => void,
) {
  const subscriber = deps.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on("error", (err) => deps.logger.warn({ err: err.message }, "subscription redis error"));
  subscriber.on("ready", onReady);
  subscriber.on("message", (from: string, text: string) => {
    if (from !== channel) return;
    try {
      const batch = JSON.parse(text) as LiveMessage[];
      if (!Array.isArray(batch)) throw new Error("not an array");
      onBatch(batch);
    } catch {
      deps.logger.warn({ channel }, "unreadable subscription message dropped");
    }
  });
  return subscriber;
}

export function createLiveEvents(deps: LiveDeps): LiveEvents {
  const { db, logger, live: settings } = deps;
  const channel = `${deps.redisPrefix}:${SUBSCRIPTION_CHANNEL}`;
  const listeners = new Set<Listener>();
  const subscriptions = perKeyLimit(settings.maxSubscriptionsPerKey);
  let subscriber: Redis | undefined;
  let live: Promise<void> | undefined;
  let position = 0;
  /** The position has been read from the outbox since the channel was subscribed to. */
  let positioned = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  // Every step that reads or moves the position runs one after the other.
  let queue: Promise<unknown> = Promise.resolve();
  function serially<T>(step: () => Promise<T>): Promise<T> {
    const run = queue.then(step);
    queue = run.catch((err: Error) => logger.warn({ err: err.message }, "live events: reading the outbox failed"));
    return run;
  }
  const catchUpNow = () => void serially(() => catchUp()).catch(() => undefined);

  const fanOut = (m: LiveMessage) => {
    for (const listener of listeners) listener.push(m);
  };

  /** Fans out the outbox's messages after the position (up to `upTo`). */
  async function catchUp(upTo?: number) {
    for (;;) {
      const { messages, last } = await readStream(db, { after: position, upTo });
      for (const m of messages) fanOut(m);
      position = Math.max(position, messages.at(-1)?.seq ?? 0, last ?? 0);
      if (last === undefined) return;
    }
  }

  function received(batch: LiveMessage[]) {
    serially(async () => {
      for (const m of batch) {
        // A message without a number comes from a relay older than the stream (a rolling upgrade):
        // passed on live, as before.
        if (typeof m.seq !== "number") fanOut(m);
        else if (positioned && m.seq > position) {
          if (m.seq > position + 1) await catchUp(m.seq - 1);
          fanOut(m);
          position = m.seq;
        }
      }
    }).catch(() => undefined);
  }

  /** Subscribed to the channel, then positioned at the head: whatever is published later is heard. */
  function start(): Promise<void> {
    subscriber ??= subscriberConnection(deps, channel, received, () => positioned && catchUpNow());
    live ??= subscriber
      .subscribe(channel)
      .then(() =>
        serially(async () => {
          position = await streamHead(db);
          positioned = true;
        }),
      )
      .then(() => {
        timer = setInterval(catchUpNow, settings.catchUpMs);
        timer.unref();
      })
      .catch((err: Error) => {
        live = undefined;
        throw err;
      });
    return live;
  }

  function release() {
    if (listeners.size > 0 || !live) return;
    live = undefined;
    positioned = false;
    clearInterval(timer);
    subscriber?.unsubscribe(channel).catch(() => undefined);
  }

  async function listen(listener: Listener) {
    if (closed) throw new Error("the server is shutting down");
    const stop = () => {
      listeners.delete(listener);
      release();
    };
    for (;;) {
      await start();
      // Added in turn with the steps that fan out, so it hears exactly the messages after `position`
      // (unless the last listener left meanwhile and the instance stopped listening: start again).
      const at = await serially(async () => {
        if (!positioned) return undefined;
        listeners.add(listener);
        return position;
      });
      if (at !== undefined) return { position: at, stop };
    }
  }

  return {
    settings,
    workOrders: createWorkOrderLoader(db),
    listen,
    admit: (keyId) => subscriptions.admit(keyId) ?? tooManySubscriptions(settings.maxSubscriptionsPerKey),
    /** Ends every subscription of this instance (so SSE responses end and shutdown can drain). */
    async close() {
      closed = true;
      for (const listener of [...listeners]) listener.end();
      listeners.clear();
      clearInterval(timer);
      subscriber?.disconnect();
    },
  };
}
