// The live side of work order events for GraphQL subscriptions: every API instance keeps one Redis
// subscriber connection on the relay's channel while it has subscribers, and fans each message out
// in-process to those it is addressed to (docs/events.md, "Subscriptions"). Fire-and-forget: webhooks
// are the durable path.
import type { Redis } from "ioredis";
import { Repeater, SlidingBuffer } from "graphql-yoga";
import type { Logger } from "../../logger.ts";
import type { Audience, EventType } from "../work-orders/public.ts";
import { SUBSCRIPTION_CHANNEL } from "./jobs/relay.ts";

/** One message as the relay publishes it. */
export interface LiveMessage {
  to: Audience;
  event_type: EventType;
  data: Record<string, unknown>;
  eventId: string;
}

/** Messages one slow subscriber may have waiting before the oldest are dropped. */
const SUBSCRIBER_BUFFER = 10_000;

export interface LiveEvents {
  /** The Redis channel (the relay's). */
  readonly channel: string;
  /** Messages from now on that `accept` lets through, until the iterator is returned. */
  subscribe(accept: (m: LiveMessage) => boolean): AsyncIterableIterator<LiveMessage>;
  close(): Promise<void>;
}

/** The event side of the GraphQL context, provided by the HTTP server (src/http/graphql.ts). */
export interface EventServices {
  live: LiveEvents;
}

declare module "../core/context.ts" {
  interface Context {
    /** Only on GraphQL contexts: REST never subscribes. */
    events?: EventServices;
  }
}

/** The subscriber side of one API instance. `redis` is duplicated: subscriber mode needs its own connection. */
export function createLiveEvents(redis: Redis, prefix: string, logger: Logger): LiveEvents {
  const channel = `${prefix}:${SUBSCRIPTION_CHANNEL}`;
  const listeners = new Set<(m: LiveMessage) => void>();
  const stops = new Set<() => void>();
  let subscriber: Redis | undefined;
  let subscribed: Promise<void> | undefined;
  let closed = false;

  function connection(): Redis {
    if (!subscriber) {
      // Commands wait while (re)connecting, and ioredis subscribes again after a reconnect.
      subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      subscriber.on("error", (err) => logger.warn({ err: err.message }, "subscription redis error"));
      subscriber.on("message", (from: string, text: string) => {
        if (from !== channel) return;
        let messages: LiveMessage[];
        try {
          messages = JSON.parse(text) as LiveMessage[];
          if (!Array.isArray(messages)) throw new Error("not an array");
        } catch {
          logger.warn({ channel }, "unreadable subscription message dropped");
          return;
        }
        for (const message of messages) for (const listener of listeners) listener(message);
      });
    }
    return subscriber;
  }

  function retain() {
    subscribed ??= connection()
      .subscribe(channel)
      .then(
        () => undefined,
        (err: Error) => {
          subscribed = undefined;
          logger.warn({ err: err.message }, "subscribing to work order events failed");
        },
      );
  }

  function release() {
    if (listeners.size > 0 || !subscribed) return;
    subscribed = undefined;
    subscriber?.unsubscribe(channel).catch(() => undefined);
  }

  return {
    channel,
    subscribe(accept) {
      return new Repeater<LiveMessage>(async (push, stop) => {
        if (closed) return stop();
        const listener = (m: LiveMessage) => {
          if (accept(m)) push(m).catch(() => undefined);
        };
        const end = () => stop();
        listeners.add(listener);
        stops.add(end);
        retain();
        await stop;
        listeners.delete(listener);
        stops.delete(end);
        release();
      }, new SlidingBuffer(SUBSCRIBER_BUFFER));
    },
    /** Completes every subscription of this instance (so SSE responses end and shutdown can drain). */
    async close() {
      closed = true;
      for (const end of [...stops]) end();
      listeners.clear();
      subscriber?.disconnect();
    },
  };
}
