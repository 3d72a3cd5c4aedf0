-- Builds the whole bitmap index from the live rows, set-based (docs/operations.md "The search index":
-- after a bulk load with triggers off, or to start afresh). Writers wait while it runs (it locks the
-- pending table). Terms in `common` or more work orders of a company get bitmaps (but for the facets
-- under a status, which are only counted): pass the service's SEARCH_BITMAP_MIN_DOCS. The triples that
-- were materialized are asked for again, and the indexer builds them from the new ordinals.
CREATE OR REPLACE FUNCTION work_order_search_rebuild(common int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;
  -- Materialized phrases are asked for again: the indexer builds them from the new ordinals.
  INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term)
  SELECT "buyerCompanyId", term FROM "WorkOrderSearchTerm" WHERE term LIKE '{{TERM_TRIPLE}}%' ON CONFLICT DO NOTHING;
  TRUNCATE "WorkOrderSearchDoc", "WorkOrderSearchTerm", "WorkOrderSearchBitmap", "WorkOrderSearchPending",
           "WorkOrderSearchBlock";
  -- The ordinals are numbered afresh: a bitmap build that read its work orders before this must read
  -- them again (work_order_search_build_read does when its mark is gone), and a new mark starts the log.
  DELETE FROM "WorkOrderSearchIndexed";
  INSERT INTO "WorkOrderSearchIndexed" ("buyerCompanyId", ordinals) VALUES (0, '{}');
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal, "createdAt", "woPriority", "locationName", "lastServiceCallAt")
  -- The sort keys as work_order_search_sort_keys reads them for a few ids, here joined for all at once.
  SELECT w.id, w."buyerCompanyId", row_number() OVER (PARTITION BY w."buyerCompanyId" ORDER BY w.id) - 1, w."createdAt", w."woPriority",
         l.name, s.last
    FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
    LEFT JOIN (SELECT "workOrderId", max("scheduledAt") AS last FROM "ServiceCall" GROUP BY 1) s ON s."workOrderId" = w.id;
  INSERT INTO "WorkOrderSearchBlock" ("buyerCompanyId", block, "minCreatedAt", "maxCreatedAt", "minWorkOrderId", "maxWorkOrderId")
  SELECT "buyerCompanyId", ordinal / {{ORDINAL_BLOCK}}, min("createdAt"), max("createdAt"), min("workOrderId"), max("workOrderId")
    FROM "WorkOrderSearchDoc" GROUP BY 1, 2;
  CREATE TEMP TABLE work_order_search_all ON COMMIT DROP AS
  SELECT d."buyerCompanyId" AS company, d.ordinal,
         unnest(work_order_search_terms(w."searchVector", w.status)
                || work_order_search_with_status(w.status, work_order_search_facets(
                     w."locationId", w."supplierFacilityId", w."problemTypeId",
                     w."plannedMaintenanceScheduleId", w."isPM", w."assetId", w."buyerFacilityId", w."woPriority"))) AS term
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id;
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, count(*), (count(*) >= common AND term NOT LIKE '{{TERM_STATUS_FACET}}%') OR term LIKE '{{TERM_STATUS}}%'
    FROM work_order_search_all GROUP BY company, term
  -- In key order: count_by and the status facets read a range of terms (20,000 of an asset's on 128 heap
  -- pages instead of 4,004: migration 20261217090002).
   ORDER BY company, term;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT x.company, x.term, b.chunk, b.bits
    FROM (SELECT a.company, a.term, array_agg(a.ordinal) AS ordinals
            FROM work_order_search_all a JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = a.company AND t.term = a.term AND t.bitmapped
           GROUP BY a.company, a.term) x,
         work_order_search_bits(x.ordinals) b;
END $$;
