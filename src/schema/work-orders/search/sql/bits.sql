-- Bitmaps of ordinals: one row per chunk of {{CHUNK_BITS}} ordinals (search/terms.ts CHUNK_BITS), a bit string
-- of exactly {{CHUNK_BITS}} bits whose bit i (get_bit, from the left) is ordinal chunk × {{CHUNK_BITS}} + i.
-- Tested on their own in test/work-orders/search-bits.test.ts.

-- Ordinals (any set, any order, duplicates allowed) → one bit string per chunk they fall in, built from
-- 64-bit words ({{CHUNK_BITS}} / 64 per chunk) written as 16 hex digits each.
CREATE OR REPLACE FUNCTION work_order_search_bits(ordinals int[]) RETURNS TABLE (chunk int, bits varbit)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT c.chunk, ('x' || string_agg(lpad(to_hex(coalesce(w.word, 0)), 16, '0'), '' ORDER BY k.k))::bit({{CHUNK_BITS}})::varbit
    FROM (SELECT DISTINCT o / {{CHUNK_BITS}} AS chunk FROM unnest(ordinals) o) c
   CROSS JOIN generate_series(0, {{CHUNK_BITS}} / 64 - 1) k(k)
    LEFT JOIN (SELECT o / {{CHUNK_BITS}} AS chunk, (o % {{CHUNK_BITS}}) / 64 AS k, bit_or(1::bigint << (63 - o % 64)) AS word
                 FROM unnest(ordinals) o GROUP BY 1, 2) w ON w.chunk = c.chunk AND w.k = k.k
   GROUP BY c.chunk
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
