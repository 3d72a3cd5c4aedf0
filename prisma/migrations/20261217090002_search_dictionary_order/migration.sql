-- The dictionary's rows in key order (docs/operations.md "The search index"; #29): count_by reads a
-- company's range of one facet's terms (an asset's 20,000 `a` terms) and a page by location name under a
-- status the range of the status's facet terms; written by a rebuild in the order its GROUP BY came out,
-- the bench's 20,000 asset terms lay on 4,004 of the table's 4,021 pages (a bitmap heap scan of 14 ms;
-- in key order 128 pages). A rebuild now writes them in key order; the free space a fillfactor of 70
-- leaves on each page keeps a count's update on its page (a HOT update, no index entry), so the order
-- holds as the indexer updates counts. Terms new to a company are appended; CLUSTER restores the order.
ALTER TABLE "WorkOrderSearchTerm" SET (fillfactor = 70);
CLUSTER "WorkOrderSearchTerm" USING "WorkOrderSearchTerm_pkey";
