-- The facets under a status in the dictionary (#29, docs/work-order-search.md "Facets"): each facet term's
-- work orders per status (work_order_search_with_status, applied by the migration before this one), for
-- count_by with a status filter only. Counted, never given bitmaps.
--
-- As 20261213090002 built the group facets: one statement under the indexer's lock, with writers waiting
-- on the pending table, from the indexed state (a work order's live row when it is not pending, else the
-- values it was indexed with, the pending row's old columns), so that the indexer's next diff starts from
-- what the dictionary counts. Whatever an indexer round counted between the two migrations is replaced.
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;
  DELETE FROM "WorkOrderSearchTerm" WHERE term >= 'x' COLLATE "C" AND term < 'y' COLLATE "C";
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT x.company, 'x' || x.status || ' ' || facet, count(*), false
    FROM (
      SELECT d."buyerCompanyId" AS company, w.status,
             work_order_search_facets(w."locationId", w."supplierFacilityId", w."problemTypeId",
                                      w."plannedMaintenanceScheduleId", w."isPM", w."assetId", w."buyerFacilityId") AS facets
        FROM "WorkOrderSearchDoc" d JOIN "WorkOrder" w ON w.id = d."workOrderId"
       WHERE NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPending" p WHERE p."workOrderId" = d."workOrderId")
      UNION ALL
      SELECT d."buyerCompanyId", p."oldStatus",
             work_order_search_facets(p."oldLocationId", p."oldSupplierFacilityId", p."oldProblemTypeId",
                                      p."oldPlannedMaintenanceScheduleId", p."oldIsPM", p."oldAssetId", p."oldBuyerFacilityId")
        FROM "WorkOrderSearchDoc" d JOIN "WorkOrderSearchPending" p USING ("workOrderId")
    ) x, unnest(x.facets) facet
   GROUP BY 1, 2;
END $$;
