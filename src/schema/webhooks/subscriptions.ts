// The workOrderEvents subscription (graphql-ws and SSE on /graphql): the live side of work order events.
import { builder } from "../core/builder.ts";
import { addressedTo } from "../work-orders/public.ts";
import { WorkOrderEventRef, type WorkOrderEventShape } from "./types.ts";
import { audienceOf } from "./rules/audience.ts";
import type { LiveMessage } from "./live-events.ts";

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
    resolve: (m: LiveMessage): WorkOrderEventShape => ({
      eventType: m.event_type,
      workOrderId: m.data.workOrderId as number,
      data: m.data,
    }),
  }),
);
