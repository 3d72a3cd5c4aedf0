-- The priority as a facet of the bitmap postings (#29, docs/work-order-search.md "The page"): every
-- indexed work order gets the term of its woPriority (work_order_search_facets, now of eight columns), so
-- that a page by woPriority counts each priority's matches by AND and walks only the runs it lands in.
--
-- As 20261213090002 built the group facets: one statement (a DO block), so one transaction under the
-- indexer's lock, with writers waiting on the pending table. The terms are those of the priority each doc
-- holds (the indexed one, which the docs' woPriority index walks), and a pending work order's old value is
-- recorded as that same value, so the indexer's next diff starts from exactly what the bits hold; the
-- facets under a status count it with the indexed status (a pending work order's old one). Terms in 1,000
-- work orders of a company or more get bitmaps (SEARCH_BITMAP_MIN_DOCS's default).
DO $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;

  -- The facets of seven columns, replaced by the generated migration's eight.
  DROP FUNCTION work_order_search_facets(int, int, int, int, boolean, int, int);

  UPDATE "WorkOrderSearchPending" p SET "oldWoPriority" = d."woPriority"
    FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = p."workOrderId";

  CREATE TEMP TABLE work_order_search_priority_all ON COMMIT DROP AS
  SELECT d."buyerCompanyId" AS company, d.ordinal, 'r' || d."woPriority" AS term,
         coalesce(p."oldStatus", w.status) AS status
    FROM "WorkOrderSearchDoc" d JOIN "WorkOrder" w ON w.id = d."workOrderId"
    LEFT JOIN "WorkOrderSearchPending" p ON p."workOrderId" = d."workOrderId"
   WHERE d."woPriority" IS NOT NULL;
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, count(*), count(*) >= 1000 FROM work_order_search_priority_all GROUP BY company, term
  UNION ALL
  SELECT company, 'x' || status || ' ' || term, count(*), false FROM work_order_search_priority_all GROUP BY company, status, term;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT x.company, x.term, b.chunk, b.bits
    FROM (SELECT a.company, a.term, array_agg(a.ordinal) AS ordinals
            FROM work_order_search_priority_all a
            JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = a.company AND t.term = a.term AND t.bitmapped
           GROUP BY a.company, a.term) x,
         work_order_search_bits(x.ordinals) b;
END $$;
