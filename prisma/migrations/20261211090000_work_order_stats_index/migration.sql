-- workOrderStats (docs/dashboards.md, "Charts"): a company's work orders created in a range, grouped by
-- their keys. With the keys in the index the scan never visits the table (an index-only scan): at
-- 1,000,000 work orders a month's 28,000 rows were 23,000 heap pages read at random, about 0.9 s cold
-- (docs/performance.md, "Dashboards"). id is there for the status history join of the median.
CREATE INDEX "WorkOrder_stats_idx" ON "WorkOrder" ("buyerCompanyId", "createdAt")
  INCLUDE (status, "locationId", "supplierFacilityId", "problemTypeId", "woPriority", id);
