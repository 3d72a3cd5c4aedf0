-- A created window answered by the docs (#29, docs/work-order-search.md "The page"): a list whose only
-- filter is createdAt walks the docs in any sort_by order testing each doc's createdAt, or reads the
-- window's range and sorts it, without reading a work order row (the GIN path read the month's 27,000
-- rows before sorting: 30-57 ms p95 at 1M). So each sort index carries createdAt, and the createdAt index
-- every sort key: both index-only. Rebuilt in place; writers of the docs (the indexer) wait for it
-- (about 4 s per index at 2,000,000 docs).
DROP INDEX "WorkOrderSearchDoc_company_createdAt";
CREATE INDEX "WorkOrderSearchDoc_company_createdAt" ON "WorkOrderSearchDoc" ("buyerCompanyId", "createdAt" DESC, "workOrderId" DESC)
  INCLUDE ("ordinal", "woPriority", "locationName", "lastServiceCallAt");
DROP INDEX "WorkOrderSearchDoc_company_locationName";
CREATE INDEX "WorkOrderSearchDoc_company_locationName" ON "WorkOrderSearchDoc" ("buyerCompanyId", "locationName", "workOrderId")
  INCLUDE ("ordinal", "createdAt");
DROP INDEX "WorkOrderSearchDoc_company_lastServiceCallAt";
CREATE INDEX "WorkOrderSearchDoc_company_lastServiceCallAt" ON "WorkOrderSearchDoc" ("buyerCompanyId", "lastServiceCallAt", "workOrderId")
  INCLUDE ("ordinal", "createdAt");
