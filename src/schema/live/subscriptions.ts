// The workOrderEvents subscription (graphql-ws and SSE on /graphql) and the stream's head: what a live
// screen needs to list, then follow, without missing an event.
import { builder } from "../core/builder.ts";
import { audienceOf } from "../webhooks/public.ts";
import { WorkOrderStatusEnum } from "../work-orders/public.ts";
import { subscriberTooSlow } from "./errors.ts";
import { accepts } from "./filters.ts";
import { streamHead } from "./stream.ts";
import { openStream, resumePoint, type LiveItem } from "./subscription.ts";
import { WorkOrderEventRef } from "./types.ts";

builder.queryField("workOrderEventsHead", (t) =>
  t.string({
    subGraphs: ["graphql"],
    description:
      "The id of the newest work order event so far. Read it, list the work orders, then subscribe to " +
      "workOrderEvents with after: this id: nothing that happens meanwhile is missed.",
    resolve: async (_root, _args, ctx) => {
      audienceOf(ctx.viewer); // partner keys have no events
      return String(await streamHead(ctx.db));
    },
  }),
);

builder.subscriptionField("workOrderEvents", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description:
      "Work order events for this key's buyer company (buyer keys) or supplier facility (supplier keys): the same " +
      "events as a webhook endpoint registered for it, each with an increasing id. With after, first the events " +
      "after that id (kept LIVE_RETENTION_HOURS, 24 h by default), then live, with no gap and no duplicate. " +
      "Filters narrow what the key may see and combine (all must match). See docs/events.md, Subscriptions.",
    type: WorkOrderEventRef,
    args: {
      after: t.arg.string({
        required: false,
        description: "Resume after this event id (over SSE the Last-Event-ID header does the same)",
      }),
      eventTypes: t.arg.stringList({ required: false, description: "Only these event types" }),
      workOrderId: t.arg.int({ required: false, description: "Only events of this work order" }),
      locationIds: t.arg.intList({ required: false, description: "Only events of work orders at these locations" }),
      statuses: t.arg({
        type: [WorkOrderStatusEnum],
        required: false,
        description:
          "Only events with one of these statuses before or after the change (creates and notes: the status then)",
      }),
      supplierFacilityIds: t.arg.intList({
        required: false,
        description: "Only events of work orders assigned to one of these supplier facilities (or taken from one)",
      }),
    },
    subscribe: async (_root, args, ctx) => {
      const audience = audienceOf(ctx.viewer);
      if (!ctx.events) throw new Error("subscriptions are not served on this channel");
      const { live, lastEventId, disconnect } = ctx.events;
      const from = args.after ?? lastEventId;
      const after =
        from == null
          ? undefined
          : await resumePoint(ctx.db, from, { now: ctx.now(), retentionHours: live.settings.retentionHours });
      return openStream(live, ctx.db, {
        audience,
        accepts: accepts(audience, args),
        after,
        keyId: ctx.viewer.keyId,
        disconnect,
      });
    },
    // Reads neither its arguments nor the viewer: subscribers share an event's answer (shared-answers.ts).
    resolve: (item: LiveItem, _args, ctx) => {
      if ("tooSlow" in item) throw subscriberTooSlow(item.resumeAfter, ctx.events!.live.settings.bufferLimit);
      return item;
    },
  }),
);
