-- The outbox relay (src/schema/webhooks/jobs/relay.ts) is woken when events are committed instead of
-- at its next poll (RELAY_INTERVAL_MS, 100 ms): the poll's wait was most of commit → receipt's p99
-- (docs/performance.md, "Webhooks and subscriptions"). One notification per inserting statement, sent
-- when its transaction commits (PostgreSQL folds identical ones per transaction), to every worker
-- listening on the channel; the poll stays as the fallback while a worker's listening connection is down.
CREATE FUNCTION notify_outbox_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_event', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "OutboxEvent_notify" AFTER INSERT ON "OutboxEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_event();
