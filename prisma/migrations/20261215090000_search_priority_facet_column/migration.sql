-- The priority as a facet of the bitmap postings (#29, docs/work-order-search.md "The page"): the pending
-- table records the woPriority a work order was indexed with, as it does the other facets, so the indexer
-- can clear its run's bit. Added before the functions that write it (the next, generated migration).
ALTER TABLE "WorkOrderSearchPending" ADD COLUMN "oldWoPriority" INTEGER;
