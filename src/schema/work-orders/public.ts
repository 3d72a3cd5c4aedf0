// What other features may use of work orders: the events and who hears them (webhooks), the statuses
// (documents), and the scope and status change of a work order (features that act on one).
export { EVENT_TYPES, OUTBOX_CHANNEL, addressedTo, messagesFor } from "./events.ts";
export type {
  Audience,
  EventType,
  Message,
  NoteEventData,
  OutboxRow,
  StatusEventData,
  WorkOrderEventContext,
} from "./events.ts";
export { COMPLETED_STATUSES, STATUSES, type Status } from "./rules/state-machine.ts";
// Planned maintenance creates work orders through the buyer POST's rules; walkthroughs list the work
// orders linked to them within the caller's read scope.
export { createCompanyWorkOrder } from "./rules/create.ts";
export { workOrderScope, writableScope, type WorkOrderActor } from "./rules/scope.ts";
export { WorkOrderRef, WorkOrderStatusEnum } from "./types.ts";
export { invoicePaid } from "./rules/billing.ts";
// The worker role keeps the search bitmaps up to date; the metrics read its backlog.
export { searchIndexBacklog, startSearchIndexJobs } from "./jobs.ts";
