// Replays of a key's own webhook deliveries (GraphQL only; rules in rules/replay.ts). Only the operator
// may force a replay past the three-hour rule.
import { builder } from "../core/builder.ts";
import type { Context } from "../core/context.ts";
import { requires } from "../core/permissions.ts";
import { RedeliveryResultRef, WebhookDeliveryRef } from "./types.ts";
import { redeliverFailures, redeliverWebhook, type ReplayDeps } from "./rules/replay.ts";
import { audienceOf } from "./rules/audience.ts";

const replayDeps = (ctx: Context): ReplayDeps => ({ db: ctx.db, now: ctx.now });

builder.mutationField("redeliverWebhook", (t) =>
  t.prismaField({
    subGraphs: ["graphql"],
    extensions: requires("anyKey"),
    description:
      "Sends one delivery again, with the same webhook-id and body; the attempt log is kept and continued. " +
      "Allowed while the change is less than three hours old (the three-hour rule).",
    type: WebhookDeliveryRef,
    args: {
      webhookId: t.arg.string({
        required: true,
        description: "The delivery's webhook-id (the header its receiver got)",
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const delivery = await redeliverWebhook(replayDeps(ctx), args.webhookId, { reader: audienceOf(ctx.viewer) });
      return ctx.db.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
    },
  }),
);

builder.mutationField("redeliverFailures", (t) =>
  t.field({
    subGraphs: ["graphql"],
    extensions: requires("anyKey"),
    description:
      "Sends again every failed, expired or still-retrying delivery of one endpoint for changes at or after `since`. " +
      "Deliveries outside the three-hour window are skipped (listed with the reason).",
    type: RedeliveryResultRef,
    args: {
      endpointId: t.arg.int({ required: true, description: "Id of one of the key's webhook endpoints" }),
      since: t.arg({
        type: "DateTime",
        required: true,
        description: "Replay deliveries of changes at or after this time",
      }),
    },
    resolve: (_root, args, ctx) =>
      redeliverFailures(replayDeps(ctx), args.endpointId, args.since, { reader: audienceOf(ctx.viewer) }),
  }),
);
