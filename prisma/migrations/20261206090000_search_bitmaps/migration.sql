-- Search postings as bitmaps beside the GIN index (docs/work-order-search.md, "Bitmap postings"), so a
-- broad search is counted exactly without one heap visit per match.
--
-- Terms of a work order: 'w' || each lexeme of its search vector, 'p' || a || ' ' || b for two lexemes at
-- adjacent positions and 'q' || a || ' ' || b for two positions apart (phrases, stop words between),
-- and 's' || its status. Lexemes with a digit (ids, PO and serial numbers, codes) are left out: nearly
-- every one is unique, they made up most of the dictionary (4.4M of 6.9M terms at 1M work orders, with
-- the pairs they form), and searches for them take the GIN path, which is fast for rare tokens. A term has bitmaps once it is common in its company (a threshold the indexer is
-- given; statuses always): one row per (company, term, chunk of 8,192 ordinals), a bit string of exactly
-- 8,192 bits, inline. Rare terms stay on the GIN path, which is fast for them.
CREATE FUNCTION work_order_search_terms(v tsvector, s "WorkOrderStatus") RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array(
    SELECT 'w' || lexeme FROM unnest(v) WHERE lexeme !~ '[0-9]'
    UNION ALL
    SELECT DISTINCT CASE b.p - a.p WHEN 1 THEN 'p' ELSE 'q' END || a.lexeme || ' ' || b.lexeme
      FROM (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]') a
      JOIN (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]') b ON b.p - a.p IN (1, 2)
    UNION ALL
    SELECT 's' || s
  )
$$;

-- Ordinals (any set, any order) → one 8,192-bit string per chunk they fall in.
CREATE FUNCTION work_order_search_bits(ordinals int[]) RETURNS TABLE (chunk int, bits varbit)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT c.chunk, ('x' || string_agg(lpad(to_hex(coalesce(w.word, 0)), 16, '0'), '' ORDER BY k.k))::bit(8192)::varbit
    FROM (SELECT DISTINCT o / 8192 AS chunk FROM unnest(ordinals) o) c
   CROSS JOIN generate_series(0, 127) k(k)
    LEFT JOIN (SELECT o / 8192 AS chunk, (o % 8192) / 64 AS k, bit_or(1::bigint << (63 - o % 64)) AS word
                 FROM unnest(ordinals) o GROUP BY 1, 2) w ON w.chunk = c.chunk AND w.k = k.k
   GROUP BY c.chunk
$$;

-- The ordinals set in one chunk's bits: 64-bit words, then bytes, are skipped while zero.
CREATE FUNCTION work_order_search_ordinals(chunk int, bits varbit) RETURNS SETOF int
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT chunk * 8192 + k * 64 + j * 8 + b
    FROM generate_series(0, 127) k
   CROSS JOIN LATERAL (SELECT substring(bits FROM k * 64 + 1 FOR 64) AS word) w
   CROSS JOIN LATERAL (SELECT j, substring(w.word FROM j * 8 + 1 FOR 8) AS byte FROM generate_series(0, 7) j
                        WHERE w.word <> B'0'::bit(64)) y
   CROSS JOIN LATERAL (SELECT b FROM generate_series(0, 7) b WHERE y.byte <> B'00000000' AND get_bit(y.byte, b) = 1) z
$$;

-- The sort indexes a search page walks, index-only (search-bitmaps.ts): ids in createdAt order (ties
-- by id, as the list sorts), and in woPriority order.
DROP INDEX "WorkOrder_buyerCompanyId_createdAt_idx";
CREATE INDEX "WorkOrder_buyerCompanyId_createdAt_id_idx" ON "WorkOrder" ("buyerCompanyId", "createdAt" DESC, id DESC);
CREATE INDEX "WorkOrder_buyerCompanyId_woPriority_id_idx" ON "WorkOrder" ("buyerCompanyId", "woPriority", id);

-- Dense ordinals per company, given by the indexer.
CREATE TABLE "WorkOrderSearchDoc" (
    "workOrderId" INTEGER NOT NULL PRIMARY KEY,
    "buyerCompanyId" INTEGER NOT NULL,
    "ordinal" INTEGER NOT NULL
);
CREATE UNIQUE INDEX "WorkOrderSearchDoc_company_ordinal" ON "WorkOrderSearchDoc" ("buyerCompanyId", "ordinal") INCLUDE ("workOrderId");

-- Every term's document count per company (the dictionary that word prefixes expand through).
CREATE TABLE "WorkOrderSearchTerm" (
    "buyerCompanyId" INTEGER NOT NULL,
    "term" TEXT COLLATE "C" NOT NULL,
    "docs" INTEGER NOT NULL,
    "bitmapped" BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY ("buyerCompanyId", "term")
);

CREATE TABLE "WorkOrderSearchBitmap" (
    "buyerCompanyId" INTEGER NOT NULL,
    "term" TEXT COLLATE "C" NOT NULL,
    "chunk" INTEGER NOT NULL,
    "bits" VARBIT(8192) NOT NULL,
    PRIMARY KEY ("buyerCompanyId", "term", "chunk")
) WITH (fillfactor = 70);

-- The index's outbox: every work order whose searchable state changed since it was indexed, with the
-- state it was indexed with (to clear its old bits). Written by a trigger, so no writer (the API, a
-- migration, a bulk load, psql) can forget it; emptied by the indexer. Queries treat a pending work
-- order by its live row, so results are exact while the indexer catches up.
CREATE TABLE "WorkOrderSearchPending" (
    "workOrderId" INTEGER NOT NULL PRIMARY KEY,
    "buyerCompanyId" INTEGER NOT NULL,
    "oldVector" TSVECTOR,
    "oldStatus" "WorkOrderStatus",
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX "WorkOrderSearchPending_company" ON "WorkOrderSearchPending" ("buyerCompanyId");
CREATE INDEX "WorkOrderSearchPending_since" ON "WorkOrderSearchPending" ("since");

-- The first change after indexing records the indexed state; later ones find the row there.
CREATE FUNCTION work_order_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "WorkOrderSearchPending" ("workOrderId", "buyerCompanyId") VALUES (NEW.id, NEW."buyerCompanyId")
    ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO "WorkOrderSearchPending" ("workOrderId", "buyerCompanyId", "oldVector", "oldStatus")
    VALUES (OLD.id, OLD."buyerCompanyId", OLD."searchVector", OLD.status)
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER work_order_search_insert AFTER INSERT ON "WorkOrder"
  FOR EACH ROW EXECUTE FUNCTION work_order_search_changed();
CREATE TRIGGER work_order_search_update AFTER UPDATE OF "searchVector", status ON "WorkOrder"
  FOR EACH ROW WHEN (OLD."searchVector" IS DISTINCT FROM NEW."searchVector" OR OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION work_order_search_changed();
CREATE TRIGGER work_order_search_delete AFTER DELETE ON "WorkOrder"
  FOR EACH ROW EXECUTE FUNCTION work_order_search_changed();

-- Bits of the live rows that hold one term (a term becoming common; the rebuild). Pending work orders may
-- be included or not: queries read those from their live rows.
CREATE FUNCTION work_order_search_term_ordinals(company int, t text) RETURNS int[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  rest text := substr(t, 2);
BEGIN
  IF left(t, 1) = 's' THEN
    RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                  WHERE w."buyerCompanyId" = company AND w.status::text = rest);
  END IF;
  RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                WHERE w."buyerCompanyId" = company AND w."searchVector" @@ (CASE left(t, 1)
                  WHEN 'w' THEN quote_literal(rest)::tsquery
                  WHEN 'p' THEN (quote_literal(split_part(rest, ' ', 1)) || ' <-> ' || quote_literal(split_part(rest, ' ', 2)))::tsquery
                  ELSE (quote_literal(split_part(rest, ' ', 1)) || ' <2> ' || quote_literal(split_part(rest, ' ', 2)))::tsquery END));
END $$;

-- One round of the indexer (src/schema/work-orders/rules/search-index.ts): up to batch_size pending work
-- orders, oldest first, in the caller's transaction. Terms in `common` or more work orders of a company
-- get bitmaps. One indexer at a time (an advisory lock), so ordinals and bitmaps have one writer.
-- Returns how many work orders it indexed.
CREATE FUNCTION work_order_search_index(batch_size int, common int) RETURNS int
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
   WHERE p."workOrderId" = ANY(ids);
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal)
  SELECT w.id, w."buyerCompanyId",
         coalesce((SELECT max(d.ordinal) FROM "WorkOrderSearchDoc" d WHERE d."buyerCompanyId" = w."buyerCompanyId"), -1)
           + row_number() OVER (PARTITION BY w."buyerCompanyId" ORDER BY w.id)
    FROM "WorkOrder" w
   WHERE w.id = ANY(ids) AND NOT EXISTS (SELECT 1 FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = w.id);
  INSERT INTO work_order_search_delta
  SELECT w."buyerCompanyId", unnest(work_order_search_terms(w."searchVector", w.status)), d.ordinal, 1
    FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
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

-- Builds the whole index from the live rows, set-based (this migration; after a bulk load,
-- docs/operations.md). Writers wait while it runs (it locks the pending table).
CREATE FUNCTION work_order_search_rebuild(common int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work_order_search_index'));
  LOCK TABLE "WorkOrderSearchPending" IN EXCLUSIVE MODE;
  TRUNCATE "WorkOrderSearchDoc", "WorkOrderSearchTerm", "WorkOrderSearchBitmap", "WorkOrderSearchPending";
  INSERT INTO "WorkOrderSearchDoc" ("workOrderId", "buyerCompanyId", ordinal)
  SELECT id, "buyerCompanyId", row_number() OVER (PARTITION BY "buyerCompanyId" ORDER BY id) - 1 FROM "WorkOrder";
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

SELECT work_order_search_rebuild(1000);
