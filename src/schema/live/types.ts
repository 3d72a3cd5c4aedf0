// The typed work order event of subscriptions: the stream id, what happened, and the work order as
// the graph's WorkOrder (the subscriber's selection, scope and masking), next to the webhook's data.
import { builder } from "../core/builder.ts";
import { WorkOrderRef, WorkOrderStatusEnum, type Status } from "../work-orders/public.ts";
import type { LiveMessage } from "./stream.ts";

const text = (value: unknown) => (typeof value === "string" ? value : null);
const status = (value: unknown) => (typeof value === "string" ? (value as Status) : null);

export const WorkOrderEventRef = builder.objectRef<LiveMessage>("WorkOrderEvent").implement({
  subGraphs: ["graphql"],
  description:
    "A work order event as this key's tenant receives it (the same messages as its webhook endpoints), with its id in the stream",
  fields: (t) => ({
    id: t.string({
      description:
        "The event's id: increasing, one sequence for every tenant. Pass the last one you got as `after` to resume.",
      resolve: (m) => String(m.seq),
    }),
    eventType: t.string({
      description: "workorder.create, workorder.status_update or workorder.new_note",
      resolve: (m) => m.event_type,
    }),
    occurredAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the change happened (the webhook's changedAt or addedAt)",
      resolve: (m) => text(m.data.changedAt) ?? text(m.data.addedAt),
    }),
    workOrderId: t.int({
      resolve: (m) => m.data.workOrderId as number,
      description: "Id of the work order the event is about",
    }),
    workOrder: t.prismaField({
      type: WorkOrderRef,
      nullable: true,
      description:
        "The work order as it is when the event is delivered, as this key may see it (masked like every read); " +
        "null when the key can no longer see it",
      resolve: (query, m, _args, ctx) =>
        ctx.events!.live.workOrders.load({ id: m.data.workOrderId as number, query, viewer: ctx.viewer }) as never,
    }),
    note: t.string({
      nullable: true,
      description: "workorder.new_note: the note's text (empty for photo-only notes)",
      resolve: (m) => (m.event_type === "workorder.new_note" ? (text(m.data.newNote) ?? "") : null),
    }),
    oldStatus: t.field({
      type: WorkOrderStatusEnum,
      nullable: true,
      description: "Status updates: the status before (absent where the webhook leaves it out)",
      resolve: (m) => status(m.data.oldStatus),
    }),
    newStatus: t.field({
      type: WorkOrderStatusEnum,
      nullable: true,
      description: "Creates and status updates: the status after",
      resolve: (m) => status(m.data.newStatus),
    }),
    changedBy: t.string({
      nullable: true,
      description: "Who made the change or wrote the note (display name)",
      resolve: (m) => text(m.data.changedBy) ?? text(m.data.addedBy),
    }),
    data: t.field({
      type: "JSON",
      description: "The webhook's data object, field for field (kept for clients written against it)",
      resolve: (m) => m.data,
    }),
  }),
});
