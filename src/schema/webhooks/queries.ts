// The webhook delivery log and its replay, for integrators over GraphQL (not in the REST cuts). Scoped
// like webhook endpoints: a buyer key sees its company's endpoints, a supplier key its facility's.
// The rules (scope, the three-hour rule, how a delivery is handed over again) live in
// src/events/replay.ts, shared with the operator CLI; only the operator may force past three hours.
import { builder } from "../builder.ts";
import type { Context } from "../context.ts";
import { listDeliveries, redeliverFailures, redeliverWebhook, type ReplayDeps } from "../../events/replay.ts";
import { audienceOf, RedeliveryResultRef, WebhookDeliveryPage, WebhookDeliveryRef, WebhookDeliveryStatusEnum } from "./types.ts";
import { pageQuery } from "../common/list.ts";
import "./subscriptions.ts"; // the Context augmentation (ctx.events) and the subscription field

const GRAPHQL_ONLY = ["graphql" as const];

function replayDeps(ctx: Context): ReplayDeps {
  if (!ctx.events) throw new Error("replays are not served on this channel");
  return { db: ctx.db, queue: ctx.events.webhookQueue, now: ctx.now };
}

builder.queryField("webhookDeliveries", (t) =>
  t.field({
    subGraphs: GRAPHQL_ONLY,
    description: "The delivery log of this key's webhook endpoints, newest change first, with every attempt.",
    type: WebhookDeliveryPage,
    args: {
      endpointId: t.arg.int({ required: false }),
      status: t.arg({ type: WebhookDeliveryStatusEnum, required: false }),
      since: t.arg({ type: "DateTime", required: false, description: "Only changes at or after this time" }),
      limit: t.arg.int({ required: false, description: "Page size (default 25, maximum 100)" }),
      offset: t.arg.int({ required: false }),
    },
    resolve: (_root, args, ctx, info) => listDeliveries(ctx.db, audienceOf(ctx.viewer), args, pageQuery(ctx, info)),
  }),
);

builder.mutationField("redeliverWebhook", (t) =>
  t.prismaField({
    subGraphs: GRAPHQL_ONLY,
    description:
      "Sends one delivery again, with the same webhook-id and body; the attempt log is kept and continued. " +
      "Allowed while the change is less than three hours old (the three-hour rule).",
    type: WebhookDeliveryRef,
    args: { webhookId: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const delivery = await redeliverWebhook(replayDeps(ctx), args.webhookId, { owner: audienceOf(ctx.viewer) });
      return ctx.db.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
    },
  }),
);

builder.mutationField("redeliverFailures", (t) =>
  t.field({
    subGraphs: GRAPHQL_ONLY,
    description:
      "Sends again every failed, expired or still-retrying delivery of one endpoint for changes at or after `since`. " +
      "Deliveries outside the three-hour window are skipped (listed with the reason).",
    type: RedeliveryResultRef,
    args: { endpointId: t.arg.int({ required: true }), since: t.arg({ type: "DateTime", required: true }) },
    resolve: (_root, args, ctx) => redeliverFailures(replayDeps(ctx), args.endpointId, args.since, { owner: audienceOf(ctx.viewer) }),
  }),
);
