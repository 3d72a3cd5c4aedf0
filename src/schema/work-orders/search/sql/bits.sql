-- Bitmaps of ordinals: one row per chunk of {{CHUNK_BITS}} ordinals (search/terms.ts CHUNK_BITS), a bit string
-- of exactly {{CHUNK_BITS}} bits whose bit i (get_bit, from the left) is ordinal chunk × {{CHUNK_BITS}} + i.
-- Tested on their own in test/work-orders/search-bits.test.ts.

-- A chunk's bits from its ordinals' positions: set_bit folded over them, from {{CHUNK_BITS}} zeros.
CREATE OR REPLACE AGGREGATE work_order_search_chunk_bits(int, int) (
  sfunc = set_bit, stype = bit, initcond = '{{CHUNK_ZEROS}}', parallel = safe
);

-- Ordinals (any set, any order, duplicates allowed) → one bit string per chunk they fall in. set_bit per
-- ordinal: 250 ordinals over 104 chunks (a rare term at 1M work orders) take 0.9 ms, against 9 ms when
-- each chunk was written out as its 128 words in hex (docs/performance.md, "Lists at scale").
CREATE OR REPLACE FUNCTION work_order_search_bits(ordinals int[]) RETURNS TABLE (chunk int, bits varbit)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT o / {{CHUNK_BITS}}, work_order_search_chunk_bits(o % {{CHUNK_BITS}}, 1)::varbit FROM unnest(ordinals) o GROUP BY 1
$$;

-- The ordinals set in one chunk's bits: 64-bit words, then bytes, are skipped while zero.
CREATE OR REPLACE FUNCTION work_order_search_ordinals(chunk int, bits varbit) RETURNS SETOF int
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT chunk * {{CHUNK_BITS}} + k * 64 + j * 8 + b
    FROM generate_series(0, {{CHUNK_BITS}} / 64 - 1) k
   CROSS JOIN LATERAL (SELECT substring(bits FROM k * 64 + 1 FOR 64) AS word) w
   CROSS JOIN LATERAL (SELECT j, substring(w.word FROM j * 8 + 1 FOR 8) AS byte FROM generate_series(0, 7) j
                        WHERE w.word <> B'0'::bit(64)) y
   CROSS JOIN LATERAL (SELECT b FROM generate_series(0, 7) b WHERE y.byte <> B'00000000' AND get_bit(y.byte, b) = 1) z
$$;
