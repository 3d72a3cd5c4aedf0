-- The indexer of the bitmap postings (docs/work-order-search.md "Bitmap postings"), run by the worker
-- role (work-orders/jobs.ts): the outbox a trigger fills, one round over it, and the phrase triples
-- searches asked for. One indexer at a time (an advisory lock), so ordinals and bitmaps have one writer.
-- The triggers that call work_order_search_changed are in migrations 20261207090000 and 20261212090001
-- (insert, delete, and an update of searchVector, status, createdAt, woPriority or a facet's column;
-- the count_by groups' columns since migration 20261213090002).

-- The index's outbox, WorkOrderSearchPending: every work order whose searchable state changed since it was
-- indexed, with the state it was indexed with (to clear its old bits), written in the writer's own
-- transaction so that no writer (the API, a migration, a bulk load, psql) can forget it. The first change
-- after indexing records the indexed state; later ones find the row there.
CREATE OR REPLACE FUNCTION work_order_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "WorkOrderSearchPending" ("workOrderId", "buyerCompanyId") VALUES (NEW.id, NEW."buyerCompanyId")
    ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO "WorkOrderSearchPending" ("workOrderId", "buyerCompanyId", "oldVector", "oldStatus",
                                          "oldLocationId", "oldSupplierFacilityId", "oldProblemTypeId",
                                          "oldPlannedMaintenanceScheduleId", "oldIsPM", "oldAssetId", "oldBuyerFacilityId", "oldWoPriority")
    VALUES (OLD.id, OLD."buyerCompanyId", OLD."searchVector", OLD.status, OLD."locationId", OLD."supplierFacilityId", OLD."problemTypeId",
            OLD."plannedMaintenanceScheduleId", OLD."isPM", OLD."assetId", OLD."buyerFacilityId", OLD."woPriority")
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- The sort keys a doc keeps of its work order (docs/work-order-search.md "The page"), read from the live
-- rows: createdAt, woPriority, its location's name and its last service call's scheduledAt, the four
-- sort_by values, so that a page in any of those orders walks the docs' indexes.
CREATE OR REPLACE FUNCTION work_order_search_sort_keys(ids int[])
RETURNS TABLE (id int, "buyerCompanyId" int, "createdAt" timestamptz, "woPriority" int, "locationName" text, "lastServiceCallAt" timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT w.id, w."buyerCompanyId", w."createdAt", w."woPriority", l.name,
         (SELECT max(s."scheduledAt") FROM "ServiceCall" s WHERE s."workOrderId" = w.id)
    FROM "WorkOrder" w JOIN "Location" l ON l.id = w."locationId"
   WHERE w.id = ANY(ids)
$$;

-- Work orders whose sort keys changed outside their own row (a location renamed; a service call added,
-- moved or deleted) are marked pending as they stand, as work_order_search_changed marks a changed row:
-- the indexer copies their new keys into their docs, and reads take their live rows meanwhile. Each is
-- locked first, as every writer of a work order does (work_order_search_index relies on it), so that no
-- such change can commit between the indexer's read of the keys and its clearing of the pending rows.
CREATE OR REPLACE FUNCTION work_order_search_touch(ids int[]) RETURNS void
LANGUAGE sql AS $$
  WITH locked AS (SELECT * FROM "WorkOrder" WHERE id = ANY(ids) ORDER BY id FOR NO KEY UPDATE)
  INSERT INTO "WorkOrderSearchPending" ("workOrderId", "buyerCompanyId", "oldVector", "oldStatus",
                                        "oldLocationId", "oldSupplierFacilityId", "oldProblemTypeId",
                                        "oldPlannedMaintenanceScheduleId", "oldIsPM", "oldAssetId", "oldBuyerFacilityId", "oldWoPriority")
  SELECT id, "buyerCompanyId", "searchVector", status, "locationId", "supplierFacilityId", "problemTypeId",
         "plannedMaintenanceScheduleId", "isPM", "assetId", "buyerFacilityId", "woPriority"
    FROM locked
  ON CONFLICT DO NOTHING
$$;

-- The triggers' functions (migration 20261213090014): a location's new name, a service call's change.
CREATE OR REPLACE FUNCTION work_order_search_location_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM work_order_search_touch(array(SELECT id FROM "WorkOrder" WHERE "locationId" = NEW.id));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION work_order_search_service_call_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM work_order_search_touch(CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW."workOrderId"]
                                             WHEN 'DELETE' THEN ARRAY[OLD."workOrderId"]
                                             ELSE ARRAY[OLD."workOrderId", NEW."workOrderId"] END);
  RETURN NULL;
END $$;

-- The materialized triples of one company that a vector holds (what the indexer maintains). Companies
-- without any are skipped before a triple is computed.
CREATE OR REPLACE FUNCTION work_order_search_materialized(company int, v tsvector) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT t.term FROM unnest(work_order_search_triples(v)) t (term)
   WHERE EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" x WHERE x."buyerCompanyId" = company AND x.term >= '{{TERM_TRIPLE}}' COLLATE "C" AND x.term < '{{TERM_TRIPLE_END}}' COLLATE "C")
     AND EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" x WHERE x."buyerCompanyId" = company AND x.term = t.term COLLATE "C")
$$;

-- One round: up to batch_size pending work orders, oldest first, in the caller's transaction. New work
-- orders get the next ordinals of their company; old and new terms (the materialized triples among them)
-- are diffed, the dictionary updated, bits set and cleared with one write per (term, chunk); terms in
-- `common` or more work orders of a company get bitmaps (SEARCH_BITMAP_MIN_DOCS), but for the facets
-- under a status, which are only counted. Returns how many work orders it indexed.
CREATE OR REPLACE FUNCTION work_order_search_index(batch_size int, common int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  ids int[];
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  ids := array(SELECT "workOrderId" FROM "WorkOrderSearchPending" ORDER BY since, "workOrderId" LIMIT batch_size);
  IF cardinality(ids) = 0 THEN RETURN 0; END IF;
  -- Every writer changes a work order under its row lock: holding it until this commits, no change can
  -- commit between reading the live rows below and clearing their pending rows.
  PERFORM 1 FROM "WorkOrder" WHERE id = ANY(ids) ORDER BY id FOR SHARE;

  CREATE TEMP TABLE IF NOT EXISTS work_order_search_delta (company int, term text COLLATE "C", ordinal int, sign int) ON COMMIT DELETE ROWS;
  DELETE FROM work_order_search_delta;
  -- The old terms of work orders indexed before, then ordinals for new work orders (the next ones of
  -- their company), then the live rows' terms; what is in both cancels out.
  INSERT INTO work_order_search_delta
  SELECT p."buyerCompanyId",
         unnest(work_order_search_terms(p."oldVector", p."oldStatus")
                || work_order_search_with_status(p."oldStatus", work_order_search_facets(
                     p."oldLocationId", p."oldSupplierFacilityId", p."oldProblemTypeId",
                     p."oldPlannedMaintenanceScheduleId", p."oldIsPM", p."oldAssetId", p."oldBuyerFacilityId",
                     p."oldWoPriority"))), d.ordinal, -1
    FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId")
   WHERE p."workOrderId" = ANY(ids)
  UNION ALL
  SELECT p."buyerCompanyId", t.term, d.ordinal, -1
    FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId"),
         work_order_search_materialized(p."buyerCompanyId", p."oldVector") t (term)
   WHERE p."workOrderId" = ANY(ids);
  UPDATE "WorkOrderSearchDoc" d
     SET "createdAt" = w."createdAt", "woPriority" = w."woPriority", "locationName" = w."locationName",
         "lastServiceCallAt" = w."lastServiceCallAt"
    FROM work_order_search_sort_keys(ids) w
   WHERE d."workOrderId" = w.id
     AND (d."createdAt" <> w."createdAt" OR d."woPriority" IS DISTINCT FROM w."woPriority"
          OR d."locationName" <> w."locationName" OR d."lastServiceCallAt" IS DISTINCT FROM w."lastServiceCallAt");
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal, "createdAt", "woPriority", "locationName", "lastServiceCallAt")
  SELECT w.id, w."buyerCompanyId",
         coalesce((SELECT max(d.ordinal) FROM "WorkOrderSearchDoc" d WHERE d."buyerCompanyId" = w."buyerCompanyId"), -1)
           + row_number() OVER (PARTITION BY w."buyerCompanyId" ORDER BY w.id), w."createdAt", w."woPriority",
         w."locationName", w."lastServiceCallAt"
    FROM work_order_search_sort_keys(ids) w
   WHERE NOT EXISTS (SELECT 1 FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = w.id);
  -- The bounds of the blocks these docs are in, widened to hold them (new docs, changed createdAt).
  INSERT INTO "WorkOrderSearchBlock" AS b ("buyerCompanyId", block, "minCreatedAt", "maxCreatedAt", "minWorkOrderId", "maxWorkOrderId")
  SELECT d."buyerCompanyId", d.ordinal / {{ORDINAL_BLOCK}}, min(d."createdAt"), max(d."createdAt"), min(d."workOrderId"), max(d."workOrderId")
    FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = ANY(ids) GROUP BY 1, 2
  ON CONFLICT ("buyerCompanyId", block) DO UPDATE
     SET "minCreatedAt" = least(b."minCreatedAt", excluded."minCreatedAt"),
         "maxCreatedAt" = greatest(b."maxCreatedAt", excluded."maxCreatedAt"),
         "minWorkOrderId" = least(b."minWorkOrderId", excluded."minWorkOrderId"),
         "maxWorkOrderId" = greatest(b."maxWorkOrderId", excluded."maxWorkOrderId")
   WHERE excluded."minCreatedAt" < b."minCreatedAt" OR excluded."maxCreatedAt" > b."maxCreatedAt"
      OR excluded."minWorkOrderId" < b."minWorkOrderId" OR excluded."maxWorkOrderId" > b."maxWorkOrderId";
  INSERT INTO work_order_search_delta
  SELECT w."buyerCompanyId",
         unnest(work_order_search_terms(w."searchVector", w.status)
                || work_order_search_with_status(w.status, work_order_search_facets(
                     w."locationId", w."supplierFacilityId", w."problemTypeId",
                     w."plannedMaintenanceScheduleId", w."isPM", w."assetId", w."buyerFacilityId", w."woPriority"))), d.ordinal, 1
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
   WHERE w.id = ANY(ids)
  UNION ALL
  SELECT w."buyerCompanyId", t.term, d.ordinal, 1
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id,
         work_order_search_materialized(w."buyerCompanyId", w."searchVector") t (term)
   WHERE w.id = ANY(ids);
  DELETE FROM work_order_search_delta a USING work_order_search_delta b
   WHERE b.company = a.company AND b.term = a.term AND b.ordinal = a.ordinal AND b.sign = -a.sign;

  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, sum(sign), term LIKE '{{TERM_STATUS}}%' FROM work_order_search_delta GROUP BY company, term ORDER BY company, term
  ON CONFLICT ("buyerCompanyId", term) DO UPDATE SET docs = "WorkOrderSearchTerm".docs + excluded.docs;

  -- Bitmapped terms: per chunk, the bits to set and the bits to clear, then one write per chunk.
  CREATE TEMP TABLE IF NOT EXISTS work_order_search_change (company int, term text COLLATE "C", chunk int, set_bits varbit, clear_bits varbit) ON COMMIT DELETE ROWS;
  DELETE FROM work_order_search_change;
  INSERT INTO work_order_search_change
  WITH bitmapped AS (
    SELECT d.* FROM work_order_search_delta d
      JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = d.company AND t.term = d.term AND t.bitmapped
  ), s AS (
    SELECT g.company, g.term, b.chunk, b.bits FROM (
      SELECT company, term, array_agg(ordinal) AS ordinals FROM bitmapped WHERE sign = 1 GROUP BY company, term) g,
      work_order_search_bits(g.ordinals) b
  ), c AS (
    SELECT g.company, g.term, b.chunk, b.bits FROM (
      SELECT company, term, array_agg(ordinal) AS ordinals FROM bitmapped WHERE sign = -1 GROUP BY company, term) g,
      work_order_search_bits(g.ordinals) b
  )
  SELECT coalesce(s.company, c.company), coalesce(s.term, c.term), coalesce(s.chunk, c.chunk), s.bits, c.bits
    FROM s FULL JOIN c ON c.company = s.company AND c.term = s.term AND c.chunk = s.chunk;
  UPDATE "WorkOrderSearchBitmap" b
     SET bits = (b.bits & ~coalesce(x.clear_bits, b.bits & ~b.bits)) | coalesce(x.set_bits, b.bits & ~b.bits)
    FROM work_order_search_change x
   WHERE b."buyerCompanyId" = x.company AND b.term = x.term AND b.chunk = x.chunk;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT company, term, chunk, set_bits FROM work_order_search_change WHERE set_bits IS NOT NULL
  ON CONFLICT DO NOTHING;

  -- Terms that became common are queued for their bitmaps, which work_order_search_build_read builds
  -- from the live rows in a round of its own: at 1M work orders one build reads its rows through the GIN
  -- index for 0.4-1.1 s, and several terms crossing together held the pending work orders up for
  -- seconds (the index lag's stall, #29). Until built, a search reads the term as a rare one.
  INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term)
  SELECT t."buyerCompanyId", t.term FROM "WorkOrderSearchTerm" t
    JOIN (SELECT DISTINCT company, term FROM work_order_search_delta) x ON x.company = t."buyerCompanyId" AND x.term = t.term
   WHERE NOT t.bitmapped AND t.docs >= common AND t.term NOT LIKE '{{TERM_STATUS_FACET}}%'
  ON CONFLICT DO NOTHING;

  DELETE FROM "WorkOrderSearchTerm" t USING (SELECT DISTINCT company, term FROM work_order_search_delta) x
   WHERE t."buyerCompanyId" = x.company AND t.term = x.term AND t.docs = 0 AND NOT t.bitmapped;
  -- The docs this batch indexed, for the bitmap builds under way (work_order_search_build_read); the
  -- log keeps its last 1,000 rows (always its newest, the mark a build reads).
  INSERT INTO "WorkOrderSearchIndexed" ("buyerCompanyId", ordinals)
  SELECT "buyerCompanyId", array_agg(ordinal) FROM "WorkOrderSearchDoc" WHERE "workOrderId" = ANY(ids) GROUP BY 1;
  DELETE FROM "WorkOrderSearchIndexed" WHERE id < (SELECT max(id) FROM "WorkOrderSearchIndexed") - 1000;
  DELETE FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = ANY(ids) AND NOT EXISTS (SELECT 1 FROM "WorkOrder" w WHERE w.id = d."workOrderId");
  DELETE FROM "WorkOrderSearchPending" WHERE "workOrderId" = ANY(ids);
  RETURN cardinality(ids);
END $$;

-- A triple's work orders in the indexed state, as the indexer will diff them: the live rows of work
-- orders that are not pending, and the indexed vector (oldVector) of pending ones that have an ordinal.
CREATE OR REPLACE FUNCTION work_order_search_triple_ordinals(company int, triple text) RETURNS int[]
LANGUAGE sql STABLE AS $$
  SELECT array(
    SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
     WHERE w."buyerCompanyId" = company AND w."searchVector" @@ work_order_search_triple_query(triple)
       AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPending" p WHERE p."workOrderId" = w.id)
    UNION ALL
    SELECT d.ordinal FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId")
     WHERE p."buyerCompanyId" = company AND p."oldVector" @@ work_order_search_triple_query(triple))
$$;

-- The work orders a requested bitmap holds (a triple's in the indexed state, a common term's from the
-- live rows), read in full.
CREATE OR REPLACE FUNCTION work_order_search_requested_ordinals(company int, term text) RETURNS int[]
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN left(term, 1) = '{{TERM_TRIPLE}}' THEN work_order_search_triple_ordinals(company, term)
              ELSE work_order_search_term_ordinals(company, term) END
$$;

-- Of some docs of a company (those indexed since a build's first read), the ones whose indexed state
-- holds a triple, word, pair, status or facet: as work_order_search_requested_ordinals reads them, for
-- those docs alone (a pending work order by the state it was indexed with, which either read allows for
-- a common term).
CREATE OR REPLACE FUNCTION work_order_search_ordinals_holding(company int, term text, ordinals int[]) RETURNS int[]
LANGUAGE sql STABLE AS $$
  WITH indexed AS (
    SELECT d.ordinal, w."searchVector" AS v, w.status AS s,
           work_order_search_facets(w."locationId", w."supplierFacilityId", w."problemTypeId", w."plannedMaintenanceScheduleId",
                                    w."isPM", w."assetId", w."buyerFacilityId", w."woPriority") AS facets
      FROM "WorkOrderSearchDoc" d JOIN "WorkOrder" w ON w.id = d."workOrderId"
     WHERE d."buyerCompanyId" = company AND d.ordinal = ANY(ordinals)
       AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPending" p WHERE p."workOrderId" = w.id)
    UNION ALL
    SELECT d.ordinal, p."oldVector", p."oldStatus",
           work_order_search_facets(p."oldLocationId", p."oldSupplierFacilityId", p."oldProblemTypeId",
                                    p."oldPlannedMaintenanceScheduleId", p."oldIsPM", p."oldAssetId", p."oldBuyerFacilityId",
                                    p."oldWoPriority")
      FROM "WorkOrderSearchDoc" d JOIN "WorkOrderSearchPending" p USING ("workOrderId")
     WHERE d."buyerCompanyId" = company AND d.ordinal = ANY(ordinals))
  SELECT array(
    SELECT ordinal FROM indexed
     WHERE term = ANY(CASE WHEN left(term, 1) = '{{TERM_TRIPLE}}' THEN work_order_search_triples(v)
                           ELSE work_order_search_terms(v, s) || facets END))
$$;

-- Requested bitmaps (WorkOrderSearchPhrase) are built in two steps, each its own transaction on one
-- session (work-orders/jobs.ts): phrase triples a search asked for, and terms that became common (queued
-- by work_order_search_index). A triple's bits are those of the indexed state, as the indexer will diff
-- it; a common term's come from the live rows (pending work orders may be included or not: queries read
-- those from their live rows).
-- 1. The read: up to max_terms requests' work orders (1.5 s from disk at 1M work orders: a pair's GIN
--    recheck visits every row holding both words), without the indexer's lock, so the indexer goes on,
--    and with the last indexer batch their state includes; kept in a temporary table of the session.
--    Its own transaction, so that it holds no lock on the index's tables while the build waits for the
--    indexer's: a rebuild or a migration holding that lock waits for those tables, and the two deadlocked.
-- 2. The build, under the indexer's lock: only the docs of the batches committed since the read are read
--    again (WorkOrderSearchIndexed), so the lock is held for the writes (the index lag's stall, #29: the
--    whole second read, from disk in a cold database, held the indexer up for seconds); everything again
--    if those batches were pruned or a rebuild numbered the docs afresh (it clears the log).
CREATE OR REPLACE FUNCTION work_order_search_read_requested(max_terms int) RETURNS int
LANGUAGE plpgsql AS $$
BEGIN
  -- The loop asks every interval; mostly nothing is requested.
  IF NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPhrase") THEN RETURN 0; END IF;
  CREATE TEMP TABLE IF NOT EXISTS work_order_search_requested_read (company int, term text COLLATE "C", ordinals int[], seen bigint);
  DELETE FROM work_order_search_requested_read;
  -- One statement, so one snapshot: the work orders, and the last batch their state includes.
  INSERT INTO work_order_search_requested_read
  SELECT p."buyerCompanyId", p.term, work_order_search_requested_ordinals(p."buyerCompanyId", p.term),
         (SELECT max(id) FROM "WorkOrderSearchIndexed")
    FROM (SELECT "buyerCompanyId", term FROM "WorkOrderSearchPhrase" ORDER BY requested, term LIMIT max_terms) p;
  RETURN (SELECT count(*) FROM work_order_search_requested_read);
END $$;

CREATE OR REPLACE FUNCTION work_order_search_build_read() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  ordinals int[];
  changed int[];
  n int := 0;
BEGIN
  IF to_regclass('pg_temp.work_order_search_requested_read') IS NULL THEN RETURN 0; END IF;
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  FOR r IN SELECT * FROM work_order_search_requested_read LOOP
    -- Built meanwhile by another worker.
    CONTINUE WHEN NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPhrase" WHERE "buyerCompanyId" = r.company AND term = r.term);
    -- The log is pruned from its oldest rows: while the mark is there, so is every batch after it.
    IF EXISTS (SELECT 1 FROM "WorkOrderSearchIndexed" WHERE id = r.seen) THEN
      changed := array(SELECT unnest(x.ordinals) FROM "WorkOrderSearchIndexed" x WHERE x.id > r.seen AND x."buyerCompanyId" = r.company);
      ordinals := array(SELECT o FROM unnest(r.ordinals) o WHERE o <> ALL (changed))
                  || work_order_search_ordinals_holding(r.company, r.term, changed);
    ELSE
      ordinals := work_order_search_requested_ordinals(r.company, r.term);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = r.company AND term = r.term) THEN
      INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped) VALUES (r.company, r.term, cardinality(ordinals), true);
      -- Bits left by a dictionary row deleted by hand (docs/operations.md) are replaced.
      DELETE FROM "WorkOrderSearchBitmap" WHERE "buyerCompanyId" = r.company AND term = r.term;
      INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
      SELECT r.company, r.term, b.chunk, b.bits FROM work_order_search_bits(ordinals) b;
    ELSIF EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = r.company AND term = r.term AND NOT bitmapped) THEN
      INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
      SELECT r.company, r.term, b.chunk, b.bits FROM work_order_search_bits(ordinals) b;
      UPDATE "WorkOrderSearchTerm" SET bitmapped = true WHERE "buyerCompanyId" = r.company AND term = r.term;
    END IF;
    DELETE FROM "WorkOrderSearchPhrase" WHERE "buyerCompanyId" = r.company AND term = r.term;
    n := n + 1;
  END LOOP;
  DELETE FROM work_order_search_requested_read;
  RETURN n;
END $$;
