-- Facets in the bitmap postings (#29, docs/work-order-search.md "Facets"): the pending table records the
-- facet columns a work order was indexed with, beside its old vector and status, so the indexer can clear
-- their bits. Added before the functions that write them (20261211090003).
ALTER TABLE "WorkOrderSearchPending"
  ADD COLUMN "oldLocationId" INTEGER,
  ADD COLUMN "oldSupplierFacilityId" INTEGER,
  ADD COLUMN "oldProblemTypeId" INTEGER;
