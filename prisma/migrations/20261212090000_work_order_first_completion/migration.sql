-- workOrderStats' medianHoursToCompletion (docs/dashboards.md, "Charts") read each work order's first
-- completion from its status history, one lookup per row of the period (28,000 for a month of the
-- bench's company: more than half the statement). The first completion is now kept on the work order
-- by a trigger on the history, whoever writes it, and the stats index carries it, so the chart is one
-- index-only scan.
ALTER TABLE "WorkOrder" ADD COLUMN "firstCompletedAt" TIMESTAMPTZ(3);

UPDATE "WorkOrder" w SET "firstCompletedAt" = c.at
  FROM (SELECT "workOrderId", min(at) AS at FROM "WorkOrderStatusChange"
         WHERE "to" IN ('WaitingForReview', 'WorkReviewedAndCompleted', 'PaymentMade') GROUP BY 1) c
 WHERE w.id = c."workOrderId";

-- The completed statuses are rules/state-machine.ts COMPLETED_STATUSES.
CREATE FUNCTION work_order_first_completion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "WorkOrder" SET "firstCompletedAt" = NEW.at
   WHERE id = NEW."workOrderId" AND ("firstCompletedAt" IS NULL OR "firstCompletedAt" > NEW.at);
  RETURN NULL;
END $$;

CREATE TRIGGER work_order_first_completion AFTER INSERT ON "WorkOrderStatusChange"
  FOR EACH ROW WHEN (NEW."to" IN ('WaitingForReview', 'WorkReviewedAndCompleted', 'PaymentMade'))
  EXECUTE FUNCTION work_order_first_completion();

DROP INDEX "WorkOrder_stats_idx";
CREATE INDEX "WorkOrder_stats_idx" ON "WorkOrder" ("buyerCompanyId", "createdAt")
  INCLUDE (status, "locationId", "supplierFacilityId", "problemTypeId", "woPriority", "firstCompletedAt", id);
