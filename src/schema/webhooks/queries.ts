// The webhook delivery log of a key's own endpoints (GraphQL only; rules in rules/replay.ts).
import { builder } from "../core/builder.ts";
import { pageQuery } from "../core/list.ts";
import { WebhookDeliveryPage, WebhookDeliveryStatusEnum } from "./types.ts";
import { listDeliveries } from "./rules/replay.ts";
import { audienceOf } from "./rules/audience.ts";

builder.queryField("webhookDeliveries", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description: "The delivery log of this key's webhook endpoints, newest change first, with every attempt.",
    type: WebhookDeliveryPage,
    args: {
      endpointId: t.arg.int({ required: false, description: "Only deliveries to this endpoint of the key" }),
      status: t.arg({
        type: WebhookDeliveryStatusEnum,
        required: false,
        description: "Only deliveries in this status",
      }),
      since: t.arg({ type: "DateTime", required: false, description: "Only changes at or after this time" }),
      limit: t.arg.int({ required: false, description: "Page size (default 25, maximum 100)" }),
      offset: t.arg.int({ required: false, description: "Deliveries to skip (default 0)" }),
    },
    resolve: (_root, args, ctx, info) => listDeliveries(ctx.db, audienceOf(ctx.viewer), args, pageQuery(ctx, info)),
  }),
);
