-- The search vector (docs/work-order-search.md "Search"). search/vector.ts writes it on every change of
-- searchable text; bench/work-orders.ts computes it in its bulk load; a migration that changes what the
-- vector holds rewrites the rows with work_order_search_vector.

-- The words of a text whose lowercased form is not one of its English lexemes, marked with a leading '#'
-- and without positions or weight (`'#escalation'`, where the stem is `escal`), so that every prefix of a
-- word finds it. No lexeme the parser makes starts with '#' and no search text can produce one: only the
-- typed-word prefix query looks for them. English stop words stay out, and so do words of one or two
-- characters (typed, they match exactly).
CREATE OR REPLACE FUNCTION work_order_search_prefixes(doc text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_to_tsvector(coalesce(array(
    SELECT '#' || word FROM (
      SELECT word FROM unnest(tsvector_to_array(to_tsvector('simple', doc))) AS word
       WHERE length(word) > 2 AND cardinality(ts_lexize('english_stem', word)) > 0
      EXCEPT
      SELECT unnest(tsvector_to_array(to_tsvector('english', doc)))
    ) AS words(word)
  ), '{}'))
$$;

-- A work order's vector from its searchable text: the title (weight A), its id, PO number and main asset
-- serial as simple tokens (A), description, location and problem type names (B), root-thread notes and
-- service call notes (C), all English stems but the reference numbers, plus the marked words above.
-- `notes` and `calls` are each the texts joined with spaces ('' for none).
CREATE OR REPLACE FUNCTION work_order_search_vector(
  id int, title text, po_number text, serial_number text, description text, location text, problem_type text,
  notes text, calls text
) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('english', title), 'A')
      || setweight(to_tsvector('simple', concat_ws(' ', id::text, po_number, serial_number)), 'A')
      || setweight(to_tsvector('english', concat_ws(' ', description, location, problem_type)), 'B')
      || setweight(to_tsvector('english', notes), 'C')
      || setweight(to_tsvector('english', calls), 'C')
      || work_order_search_prefixes(concat_ws(' ', title, description, location, problem_type, notes, calls))
$$;
