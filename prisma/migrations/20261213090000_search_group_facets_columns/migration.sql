-- count_by groups in the bitmap postings (#29, docs/work-order-search.md "Facets"): the pending table
-- records the PM schedule, isPM, main asset and buyer facility a work order was indexed with, as it does
-- the filter facets (20261211090002), so the indexer can clear their bits. Added before the functions
-- that write them (the next, generated migration).
ALTER TABLE "WorkOrderSearchPending"
  ADD COLUMN "oldPlannedMaintenanceScheduleId" INTEGER,
  ADD COLUMN "oldIsPM" BOOLEAN,
  ADD COLUMN "oldAssetId" INTEGER,
  ADD COLUMN "oldBuyerFacilityId" INTEGER;
