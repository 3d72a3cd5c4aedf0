// What other features may use of work orders: the events and who hears them (webhooks), the statuses
// (documents), and the scope and status change of a work order (features that act on one).
export { EVENT_TYPES, addressedTo, messagesFor, writeEvent } from "./events.ts";
export type { Audience, EventType, Message, NoteEventData, OutboxRow, StatusEventData, WorkOrderEventContext } from "./events.ts";
export { STATUSES, type Status } from "./rules/state-machine.ts";
export { workOrderScope } from "./rules/scope.ts";
