-- Two speed-ups of the search bitmaps (docs/work-order-search.md, "Bitmap postings"): phrases of three
-- lexemes answered exactly from bitmaps, and a search's page found without reading work order rows.
--
-- Phrases. Two adjacent pairs do not prove a three-word phrase (the pairs may sit in different
-- places), so such phrases used to be confirmed row by row, as slow as the GIN path. A third kind of
-- term, 't' || gap1 || gap2 || a || ' ' || b || ' ' || c (three lexemes, each one or two positions after
-- the one before), decides them exactly. Every work order has about as many triples as words and most
-- triples are rare (72,679 distinct triples in a 10,000-work-order sample of the bench's corpus, against
-- 10,109 pairs): kept like pairs, they would multiply the dictionary and the bitmaps. So a triple is
-- kept only once a search asked for it ("materialized"): the search path records the request in
-- WorkOrderSearchPhrase and answers from the pairs, confirmed row by row, meanwhile; the indexer builds
-- the triple's bitmaps from the GIN index and from then on maintains them like any bitmapped term.

-- The triples of a vector (lexemes with a digit left out, as for the other terms).
CREATE FUNCTION work_order_search_triples(v tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH x AS (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]')
  SELECT array(
    SELECT DISTINCT 't' || (b.p - a.p) || (c.p - b.p) || a.lexeme || ' ' || b.lexeme || ' ' || c.lexeme
      FROM x a JOIN x b ON b.p - a.p IN (1, 2) JOIN x c ON c.p - b.p IN (1, 2)
  )
$$;

-- The materialized triples of one company that a vector holds (what the indexer maintains). Companies
-- without any are skipped before a triple is computed.
CREATE FUNCTION work_order_search_materialized(company int, v tsvector) RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT t.term FROM unnest(work_order_search_triples(v)) t (term)
   WHERE EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" x WHERE x."buyerCompanyId" = company AND x.term >= 't' COLLATE "C" AND x.term < 'u' COLLATE "C")
     AND EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" x WHERE x."buyerCompanyId" = company AND x.term = t.term COLLATE "C")
$$;

-- A triple as the tsquery that finds it: 't12a b c' → 'a' <-> 'b' <2> 'c'.
CREATE FUNCTION work_order_search_triple_query(t text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT (quote_literal(split_part(substr(t, 4), ' ', 1)) || ' <' || substr(t, 2, 1) || '> '
       || quote_literal(split_part(substr(t, 4), ' ', 2)) || ' <' || substr(t, 3, 1) || '> '
       || quote_literal(split_part(substr(t, 4), ' ', 3)))::tsquery
$$;

-- Triples searches asked for, not yet materialized (written by the search path, emptied by the indexer).
CREATE TABLE "WorkOrderSearchPhrase" (
    "buyerCompanyId" INTEGER NOT NULL,
    "term" TEXT COLLATE "C" NOT NULL,
    "requested" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY ("buyerCompanyId", "term")
);

-- Up to max_terms requested triples, in the caller's transaction, under the indexer's lock. A triple's
-- bits are those of the indexed state, as the indexer will diff it: the live rows of work orders that are
-- not pending, and the indexed vector (oldVector) of pending ones that have an ordinal.
CREATE FUNCTION work_order_search_materialize(max_terms int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  q tsquery;
  ordinals int[];
  n int := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  FOR r IN SELECT "buyerCompanyId" AS company, term FROM "WorkOrderSearchPhrase" ORDER BY requested, term LIMIT max_terms LOOP
    IF NOT EXISTS (SELECT 1 FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = r.company AND term = r.term) THEN
      q := work_order_search_triple_query(r.term);
      ordinals := array(
        SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
         WHERE w."buyerCompanyId" = r.company AND w."searchVector" @@ q
           AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchPending" p WHERE p."workOrderId" = w.id)
        UNION ALL
        SELECT d.ordinal FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId")
         WHERE p."buyerCompanyId" = r.company AND p."oldVector" @@ q);
      INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped) VALUES (r.company, r.term, cardinality(ordinals), true);
      -- Bits left by a dictionary row deleted by hand (docs/operations.md) are replaced.
      DELETE FROM "WorkOrderSearchBitmap" WHERE "buyerCompanyId" = r.company AND term = r.term;
      INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
      SELECT r.company, r.term, b.chunk, b.bits FROM work_order_search_bits(ordinals) b;
    END IF;
    DELETE FROM "WorkOrderSearchPhrase" WHERE "buyerCompanyId" = r.company AND term = r.term;
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;

-- A copy of each work order's createdAt and woPriority beside its ordinal, so that a search's page in
-- either order (the list's default, createdAt then id; or woPriority) is found in the ordinals' own
-- indexes, never reading the work orders' rows: a few matches are decoded and sorted, many are found by
-- walking the sort and testing bits. Kept by the indexer (an update of either makes a work order
-- pending like a change of its vector).
ALTER TABLE "WorkOrderSearchDoc" ADD COLUMN "createdAt" TIMESTAMPTZ(3), ADD COLUMN "woPriority" INTEGER;
UPDATE "WorkOrderSearchDoc" d SET "createdAt" = w."createdAt", "woPriority" = w."woPriority" FROM "WorkOrder" w WHERE w.id = d."workOrderId";
-- Docs of deleted work orders still pending: their rows are gone, any time will do until the indexer removes them.
UPDATE "WorkOrderSearchDoc" SET "createdAt" = 'epoch' WHERE "createdAt" IS NULL;
ALTER TABLE "WorkOrderSearchDoc" ALTER COLUMN "createdAt" SET NOT NULL;
DROP INDEX "WorkOrderSearchDoc_company_ordinal";
CREATE UNIQUE INDEX "WorkOrderSearchDoc_company_ordinal" ON "WorkOrderSearchDoc" ("buyerCompanyId", "ordinal") INCLUDE ("workOrderId", "createdAt", "woPriority");
CREATE INDEX "WorkOrderSearchDoc_company_createdAt" ON "WorkOrderSearchDoc" ("buyerCompanyId", "createdAt" DESC, "workOrderId" DESC) INCLUDE ("ordinal", "woPriority");
CREATE INDEX "WorkOrderSearchDoc_company_woPriority" ON "WorkOrderSearchDoc" ("buyerCompanyId", "woPriority", "workOrderId") INCLUDE ("ordinal", "createdAt");

DROP TRIGGER work_order_search_update ON "WorkOrder";
CREATE TRIGGER work_order_search_update AFTER UPDATE OF "searchVector", status, "createdAt", "woPriority" ON "WorkOrder"
  FOR EACH ROW WHEN (OLD."searchVector" IS DISTINCT FROM NEW."searchVector" OR OLD.status IS DISTINCT FROM NEW.status
                     OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt" OR OLD."woPriority" IS DISTINCT FROM NEW."woPriority")
  EXECUTE FUNCTION work_order_search_changed();

-- The indexer: as before, plus the materialized triples of the old and new vectors in the delta and
-- the docs' createdAt and woPriority.
CREATE OR REPLACE FUNCTION work_order_search_index(batch_size int, common int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  ids int[];
  promoted record;
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
  SELECT p."buyerCompanyId", unnest(work_order_search_terms(p."oldVector", p."oldStatus")), d.ordinal, -1
    FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId")
   WHERE p."workOrderId" = ANY(ids)
  UNION ALL
  SELECT p."buyerCompanyId", t.term, d.ordinal, -1
    FROM "WorkOrderSearchPending" p JOIN "WorkOrderSearchDoc" d USING ("workOrderId"),
         work_order_search_materialized(p."buyerCompanyId", p."oldVector") t (term)
   WHERE p."workOrderId" = ANY(ids);
  UPDATE "WorkOrderSearchDoc" d SET "createdAt" = w."createdAt", "woPriority" = w."woPriority" FROM "WorkOrder" w
   WHERE w.id = ANY(ids) AND d."workOrderId" = w.id
     AND (d."createdAt" <> w."createdAt" OR d."woPriority" IS DISTINCT FROM w."woPriority");
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal, "createdAt", "woPriority")
  SELECT w.id, w."buyerCompanyId",
         coalesce((SELECT max(d.ordinal) FROM "WorkOrderSearchDoc" d WHERE d."buyerCompanyId" = w."buyerCompanyId"), -1)
           + row_number() OVER (PARTITION BY w."buyerCompanyId" ORDER BY w.id), w."createdAt", w."woPriority"
    FROM "WorkOrder" w
   WHERE w.id = ANY(ids) AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = w.id);
  INSERT INTO work_order_search_delta
  SELECT w."buyerCompanyId", unnest(work_order_search_terms(w."searchVector", w.status)), d.ordinal, 1
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
  SELECT company, term, sum(sign), term LIKE 's%' FROM work_order_search_delta GROUP BY company, term ORDER BY company, term
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

  -- Terms that became common get their bitmaps from the live rows.
  FOR promoted IN
    SELECT t."buyerCompanyId" AS company, t.term FROM "WorkOrderSearchTerm" t
      JOIN (SELECT DISTINCT company, term FROM work_order_search_delta) x ON x.company = t."buyerCompanyId" AND x.term = t.term
     WHERE NOT t.bitmapped AND t.docs >= common
  LOOP
    INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
    SELECT promoted.company, promoted.term, b.chunk, b.bits
      FROM work_order_search_bits(work_order_search_term_ordinals(promoted.company, promoted.term)) b;
    UPDATE "WorkOrderSearchTerm" SET bitmapped = true WHERE "buyerCompanyId" = promoted.company AND term = promoted.term;
  END LOOP;

  DELETE FROM "WorkOrderSearchTerm" t USING (SELECT DISTINCT company, term FROM work_order_search_delta) x
   WHERE t."buyerCompanyId" = x.company AND t.term = x.term AND t.docs = 0 AND NOT t.bitmapped;
  DELETE FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = ANY(ids) AND NOT EXISTS (SELECT 1 FROM "WorkOrder" w WHERE w.id = d."workOrderId");
  DELETE FROM "WorkOrderSearchPending" WHERE "workOrderId" = ANY(ids);
  RETURN cardinality(ids);
END $$;

-- The rebuild keeps what was materialized (as requests).
CREATE OR REPLACE FUNCTION work_order_search_rebuild(common int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;
  -- Materialized phrases are asked for again: the indexer builds them from the new ordinals.
  INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term)
  SELECT "buyerCompanyId", term FROM "WorkOrderSearchTerm" WHERE term LIKE 't%' ON CONFLICT DO NOTHING;
  TRUNCATE "WorkOrderSearchDoc", "WorkOrderSearchTerm", "WorkOrderSearchBitmap", "WorkOrderSearchPending";
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal, "createdAt", "woPriority")
  SELECT id, "buyerCompanyId", row_number() OVER (PARTITION BY "buyerCompanyId" ORDER BY id) - 1, "createdAt", "woPriority" FROM "WorkOrder";
  CREATE TEMP TABLE work_order_search_all ON COMMIT DROP AS
  SELECT d."buyerCompanyId" AS company, d.ordinal, unnest(work_order_search_terms(w."searchVector", w.status)) AS term
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id;
  INSERT INTO "WorkOrderSearchTerm" ("buyerCompanyId", term, docs, bitmapped)
  SELECT company, term, count(*), count(*) >= common OR term LIKE 's%' FROM work_order_search_all GROUP BY company, term;
  INSERT INTO "WorkOrderSearchBitmap" ("buyerCompanyId", term, chunk, bits)
  SELECT x.company, x.term, b.chunk, b.bits
    FROM (SELECT a.company, a.term, array_agg(a.ordinal) AS ordinals
            FROM work_order_search_all a JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = a.company AND t.term = a.term AND t.bitmapped
           GROUP BY a.company, a.term) x,
         work_order_search_bits(x.ordinals) b;
END $$;
