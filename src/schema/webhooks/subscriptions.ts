// Live work order events over GraphQL subscriptions (graphql-ws and SSE on /graphql).
//
// The relay (src/events/relay.ts, worker role) publishes every message it builds, recipients rules
// already applied, on the Redis channel `${prefix}:work-order-events` (JSON arrays, one per relay
// round). Every API instance keeps ONE subscriber connection on that channel while at least one of
// its clients is subscribed, and fans each message out in-process to the subscribers whose tenant it
// is addressed to: a buyer key gets the messages for its buyer company, a supplier key those for its
// supplier facility, exactly the messages a webhook endpoint of the same company or facility gets.
// So any API instance can serve any subscriber, whichever instance's worker relayed the event.
//
// (Written here rather than with @graphql-yoga/redis-event-target: that package's peer range is
// ioredis 5, this service runs ioredis 6, and the fan-out is twenty lines.)
//
// Pub/sub is fire-and-forget: a subscriber that is disconnected (or a Redis outage) misses messages.
// Subscriptions are for live UIs; webhooks (outbox + delivery table) are the durable path.
import type { Redis } from "ioredis";
import { Repeater, SlidingBuffer } from "graphql-yoga";
import type { Logger } from "../../logger.ts";
import type { EventType } from "../../events/outbox.ts";
import type { Audience } from "../../events/recipients.ts";
import { SUBSCRIPTION_CHANNEL } from "../../events/relay.ts";
import type { JobRemover } from "../../events/replay.ts";
import { builder } from "../builder.ts";
import { audienceOf, WorkOrderEventRef, type WorkOrderEventShape } from "./types.ts";

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

/** The event side of the context, provided by the HTTP server (src/http/graphql.ts). */
export interface EventServices {
  live: LiveEvents;
  /** The webhook queue, for replays (a delivery's old job is removed by id before it is handed over again). */
  webhookQueue: JobRemover;
}

declare module "../context.ts" {
  interface Context {
    /** Only on GraphQL contexts: REST never subscribes or replays. */
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

/** Whether a message is addressed to an audience (the same test the relay uses for endpoints). */
export function addressedTo(audience: Audience, m: LiveMessage): boolean {
  if ("buyerCompanyId" in audience) return "buyerCompanyId" in m.to && m.to.buyerCompanyId === audience.buyerCompanyId;
  return "supplierFacilityId" in m.to && m.to.supplierFacilityId === audience.supplierFacilityId;
}

builder.subscriptionField("workOrderEvents", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description:
      "Live work order events for this key's buyer company (buyer keys) or supplier facility (supplier keys): the same " +
      "events, with the same data, as a webhook endpoint registered for it. Not durable: use webhooks to miss nothing.",
    type: WorkOrderEventRef,
    args: {
      eventTypes: t.arg.stringList({ required: false, description: "Only these event types" }),
      workOrderId: t.arg.int({ required: false, description: "Only events of this work order" }),
    },
    subscribe: (_root, args, ctx) => {
      const audience = audienceOf(ctx.viewer);
      if (!ctx.events) throw new Error("subscriptions are not served on this channel");
      const types = args.eventTypes ?? null;
      return ctx.events.live.subscribe(
        (m) =>
          addressedTo(audience, m) &&
          (types === null || types.includes(m.event_type)) &&
          (args.workOrderId == null || m.data.workOrderId === args.workOrderId),
      );
    },
    resolve: (m: LiveMessage): WorkOrderEventShape => ({ eventType: m.event_type, workOrderId: m.data.workOrderId as number, data: m.data }),
  }),
);
