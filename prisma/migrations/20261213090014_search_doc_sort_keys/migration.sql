-- Every sort_by walked from the docs (#29, docs/work-order-search.md "The page"): each doc keeps its work
-- order's location name and last service call's scheduledAt beside createdAt and woPriority, indexed as
-- those are, so that a page sorted by locationName or lastServiceCallServiceScheduledAt walks the docs in
-- that order testing bits instead of sorting every match's row (0.3-2 s for a broad filter at 1M).
--
-- The indexer copies them from the live rows (work_order_search_sort_keys, applied by the migration
-- before this one); a location's rename and a service call's change mark their work orders pending
-- (work_order_search_touch), as a change of the work order's own row does. Filled here under the
-- indexer's lock, with writers waiting on the pending table.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;

  ALTER TABLE "WorkOrderSearchDoc" ADD COLUMN "locationName" text, ADD COLUMN "lastServiceCallAt" timestamptz(3);
  UPDATE "WorkOrderSearchDoc" d SET "locationName" = l.name, "lastServiceCallAt" = s.last
    FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
    LEFT JOIN (SELECT "workOrderId", max("scheduledAt") AS last FROM "ServiceCall" GROUP BY 1) s ON s."workOrderId" = w.id
   WHERE d."workOrderId" = w.id;
  ALTER TABLE "WorkOrderSearchDoc" ALTER COLUMN "locationName" SET NOT NULL;
  CREATE INDEX "WorkOrderSearchDoc_company_locationName" ON "WorkOrderSearchDoc" ("buyerCompanyId", "locationName", "workOrderId") INCLUDE ("ordinal");
  CREATE INDEX "WorkOrderSearchDoc_company_lastServiceCallAt" ON "WorkOrderSearchDoc" ("buyerCompanyId", "lastServiceCallAt", "workOrderId") INCLUDE ("ordinal");

  CREATE TRIGGER work_order_search_location AFTER UPDATE OF name ON "Location"
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION work_order_search_location_renamed();
  CREATE TRIGGER work_order_search_service_call AFTER INSERT OR DELETE ON "ServiceCall"
    FOR EACH ROW EXECUTE FUNCTION work_order_search_service_call_changed();
  CREATE TRIGGER work_order_search_service_call_update AFTER UPDATE OF "scheduledAt", "workOrderId" ON "ServiceCall"
    FOR EACH ROW WHEN (OLD."scheduledAt" IS DISTINCT FROM NEW."scheduledAt" OR OLD."workOrderId" <> NEW."workOrderId")
    EXECUTE FUNCTION work_order_search_service_call_changed();
END $$;
