-- Committed outbox events are announced to the relay by the writer after its commit, on a statement of
-- its own (src/schema/work-orders/events.ts announceOutbox), no longer by this trigger inside the writing
-- transaction: a NOTIFY holds PostgreSQL's notification lock until its transaction has committed, so
-- every writer's commit queued behind the one before it and its WAL flush (commit throughput halved at
-- 8 concurrent writers; docs/performance.md, "Index lag").
DROP TRIGGER "OutboxEvent_notify" ON "OutboxEvent";
DROP FUNCTION notify_outbox_event();
