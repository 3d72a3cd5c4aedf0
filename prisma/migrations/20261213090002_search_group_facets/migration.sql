-- count_by groups in the bitmap postings (#29, docs/work-order-search.md "Facets"): every indexed work
-- order gets the terms of its PM schedule, isPM, main asset and buyer facility (work_order_search_facets,
-- now of seven columns), so that count_by on those fields is answered like count_by on a filter facet:
-- from the dictionary's counts without a filter, from the bitmaps with one.
--
-- As 20261211090004 built the filter facets: one statement (a DO block), so one transaction under the
-- indexer's lock, with writers waiting on the pending table; the bits come from the rows as they are now
-- and a pending work order's old values are recorded as those same values, so the indexer's next diff
-- starts from exactly what the bits hold. Terms in 1,000 work orders of a company or more get bitmaps
-- (SEARCH_BITMAP_MIN_DOCS's default); rarer ones are read through the column.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;

  -- The facets of three columns, replaced by the generated migration's seven.
  DROP FUNCTION work_order_search_facets(int, int, int);

  DROP TRIGGER work_order_search_update ON "WorkOrder";
  CREATE TRIGGER work_order_search_update
    AFTER UPDATE OF "searchVector", status, "createdAt", "woPriority", "locationId", "supplierFacilityId", "problemTypeId",
                    "plannedMaintenanceScheduleId", "isPM", "assetId", "buyerFacilityId" ON "WorkOrder"
    FOR EACH ROW EXECUTE FUNCTION work_order_search_changed();

  UPDATE "WorkOrderSearchPending" p
     SET "oldPlannedMaintenanceScheduleId" = w."plannedMaintenanceScheduleId", "oldIsPM" = w."isPM",
         "oldAssetId" = w."assetId", "oldBuyerFacilityId" = w."buyerFacilityId"
    FROM "WorkOrder" w WHERE w.id = p."workOrderId";

  CREATE TEMP TABLE work_order_search_group_all ON COMMIT DROP AS
  SELECT d."buyerCompanyId" AS company, d.ordinal,
         -- The new columns' terms only (the filter facets' columns passed as null have none).
         unnest(work_order_search_facets(NULL, NULL, NULL, w."plannedMaintenanceScheduleId", w."isPM", w."assetId", w."buyerFacilityId")) AS term
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id;
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, count(*), count(*) >= 1000 FROM work_order_search_group_all GROUP BY company, term;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT x.company, x.term, b.chunk, b.bits
    FROM (SELECT a.company, a.term, array_agg(a.ordinal) AS ordinals
            FROM work_order_search_group_all a
            JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = a.company AND t.term = a.term AND t.bitmapped
           GROUP BY a.company, a.term) x,
         work_order_search_bits(x.ordinals) b;
END $$;
