-- Every prefix of a word finds it (docs/work-order-search.md). The vector held English stems only, and a
-- typed word is matched as a prefix of them, so a word typed past its stem found nothing (`escalat`:
-- escalation is indexed as `escal`). The vector now also holds, without positions or weight, each
-- word of the searched text whose lowercased form is not already one of its English lexemes, marked
-- with a leading '#' (no lexeme the parser makes starts with '#', and no search text can produce one):
-- `'#escalation'`. Only the typed-word prefix query looks for them (`'#escalat':*`), so exact stems,
-- phrases and reference numbers match exactly as before. English stop words stay out, as in the rest
-- of the vector, and so do words of one or two characters (typed, they match exactly).
CREATE FUNCTION work_order_search_prefixes(doc text) RETURNS tsvector
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

-- Existing rows: the vector as src/schema/work-orders/rules/search.ts refreshSearchVector builds it.
UPDATE "WorkOrder" w SET "searchVector" =
    setweight(to_tsvector('english', w.title), 'A')
 || setweight(to_tsvector('simple', concat_ws(' ', w.id::text, w."poNumber", a."serialNumber")), 'A')
 || setweight(to_tsvector('english', concat_ws(' ', w.description, l.name, p.name)), 'B')
 || setweight(to_tsvector('english', t.notes), 'C')
 || setweight(to_tsvector('english', t.calls), 'C')
 || work_order_search_prefixes(concat_ws(' ', w.title, w.description, l.name, p.name, t.notes, t.calls))
  FROM "Location" l, "ProblemType" p, "WorkOrder" w2 LEFT JOIN "Asset" a ON a.id = w2."assetId",
       LATERAL (SELECT
         coalesce((SELECT string_agg(n.text, ' ') FROM "WorkOrderNote" n WHERE n."workOrderId" = w2.id AND n.thread = 'root'), '') AS notes,
         coalesce((SELECT string_agg(concat_ws(' ', s."checkInNote", s."checkOutNote"), ' ') FROM "ServiceCall" s WHERE s."workOrderId" = w2.id), '') AS calls
       ) t
 WHERE w2.id = w.id AND l.id = w."locationId" AND p.id = w."problemTypeId";
