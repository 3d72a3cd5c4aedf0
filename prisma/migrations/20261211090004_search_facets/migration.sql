-- Facets in the bitmap postings (#29, docs/work-order-search.md "Facets"): every indexed work order gets
-- the terms of its location, supplier facility and problem type (work_order_search_facets), so that
-- filter-only lists and counts are answered like a search's status filter: bitmaps ANDed per chunk, the
-- dictionary's exact counts, the docs' own sort indexes.
--
-- One statement (a DO block), so one transaction under the indexer's lock, with writers waiting on the
-- pending table as work_order_search_rebuild makes them: the facet bits are built from the rows as they
-- are now, and a pending work order's old facets are recorded as those same values, so the indexer's
-- next diff starts from exactly what the bits hold. Terms in 1,000 work orders of a company or more get
-- bitmaps (the default of SEARCH_BITMAP_MIN_DOCS, as migration 20261206090000 built the rest with);
-- rarer ones are read through the column's btree index.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;

  DROP TRIGGER work_order_search_update ON "WorkOrder";
  CREATE TRIGGER work_order_search_update
    AFTER UPDATE OF "searchVector", status, "createdAt", "woPriority", "locationId", "supplierFacilityId", "problemTypeId" ON "WorkOrder"
    FOR EACH ROW EXECUTE FUNCTION work_order_search_changed();

  UPDATE "WorkOrderSearchPending" p
     SET "oldLocationId" = w."locationId", "oldSupplierFacilityId" = w."supplierFacilityId", "oldProblemTypeId" = w."problemTypeId"
    FROM "WorkOrder" w WHERE w.id = p."workOrderId";

  CREATE TEMP TABLE work_order_search_facet_all ON COMMIT DROP AS
  SELECT d."buyerCompanyId" AS company, d.ordinal,
         unnest(work_order_search_facets(w."locationId", w."supplierFacilityId", w."problemTypeId")) AS term
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id;
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, count(*), count(*) >= 1000 FROM work_order_search_facet_all GROUP BY company, term;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT x.company, x.term, b.chunk, b.bits
    FROM (SELECT a.company, a.term, array_agg(a.ordinal) AS ordinals
            FROM work_order_search_facet_all a
            JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = a.company AND t.term = a.term AND t.bitmapped
           GROUP BY a.company, a.term) x,
         work_order_search_bits(x.ordinals) b;
END $$;
