-- The terms of a work order, as the bitmap postings index them (docs/work-order-search.md "Bitmap
-- postings"). Kinds, by prefix (search/terms.ts TERM): {{TERM_WORD}} + a lexeme of the vector;
-- {{TERM_PAIR}} + two lexemes at adjacent positions and {{TERM_GAP_PAIR}} + two positions apart (phrases, stop words
-- between); {{TERM_STATUS}} + the status; {{TERM_TRIPLE}} + two gaps + three lexemes (phrases of three, kept only once a
-- search asked for them). Lexemes with a digit (ids, PO and serial numbers, codes) are left out: nearly
-- every one is unique, they made up most of the dictionary, and searches for them take the GIN path.

-- Words, pairs and the status of one vector and status.
CREATE OR REPLACE FUNCTION work_order_search_terms(v tsvector, s "WorkOrderStatus") RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array(
    SELECT '{{TERM_WORD}}' || lexeme FROM unnest(v) WHERE lexeme !~ '[0-9]'
    UNION ALL
    SELECT DISTINCT CASE b.p - a.p WHEN 1 THEN '{{TERM_PAIR}}' ELSE '{{TERM_GAP_PAIR}}' END || a.lexeme || ' ' || b.lexeme
      FROM (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]') a
      JOIN (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]') b ON b.p - a.p IN (1, 2)
    UNION ALL
    SELECT '{{TERM_STATUS}}' || s
  )
$$;

-- The facets of one work order (#29: filter-only lists and counts): {{TERM_LOCATION}} + locationId,
-- {{TERM_SUPPLIER_FACILITY}} + supplierFacilityId (none when unassigned), {{TERM_PROBLEM_TYPE}} + problemTypeId; and the count_by
-- groups {{TERM_PM_SCHEDULE}} + plannedMaintenanceScheduleId, {{TERM_IS_PM}} + isPM ('true' / 'false'), {{TERM_ASSET}} + the main assetId,
-- {{TERM_BUYER_FACILITY}} + buyerFacilityId (search/terms.ts GROUP_FACETS); and {{TERM_PRIORITY}} + woPriority, the runs of a page
-- by priority (search/bitmaps.ts priorityPageSql). A null column has no term.
CREATE OR REPLACE FUNCTION work_order_search_facets(
  location int, supplier int, problem int, schedule int, is_pm boolean, asset int, buyer_facility int, priority int
) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_remove(ARRAY['{{TERM_LOCATION}}' || location, '{{TERM_SUPPLIER_FACILITY}}' || supplier, '{{TERM_PROBLEM_TYPE}}' || problem, '{{TERM_PM_SCHEDULE}}' || schedule,
                            '{{TERM_IS_PM}}' || is_pm, '{{TERM_ASSET}}' || asset, '{{TERM_BUYER_FACILITY}}' || buyer_facility,
                            '{{TERM_PRIORITY}}' || priority], NULL)
$$;

-- A work order's facet terms (work_order_search_facets) and each of them again under its status:
-- {{TERM_STATUS_FACET}} + status + ' ' + the facet term ('{{TERM_STATUS_FACET}}Unassigned {{TERM_LOCATION}}12'), whose dictionary counts
-- answer count_by with a status filter only (#29: a location's or asset's work orders per status,
-- without reading their rows). They are counted, never given bitmaps.
CREATE OR REPLACE FUNCTION work_order_search_with_status(s "WorkOrderStatus", facets text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT facets || array(SELECT '{{TERM_STATUS_FACET}}' || s || ' ' || f FROM unnest(facets) f)
$$;

-- Every triple of a vector: three lexemes, each one or two positions after the one before.
CREATE OR REPLACE FUNCTION work_order_search_triples(v tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH x AS (SELECT lexeme, unnest(positions) AS p FROM unnest(v) WHERE lexeme !~ '[0-9]')
  SELECT array(
    SELECT DISTINCT '{{TERM_TRIPLE}}' || (b.p - a.p) || (c.p - b.p) || a.lexeme || ' ' || b.lexeme || ' ' || c.lexeme
      FROM x a JOIN x b ON b.p - a.p IN (1, 2) JOIN x c ON c.p - b.p IN (1, 2)
  )
$$;

-- A triple as the tsquery that finds it: '{{TERM_TRIPLE}}12a b c' → 'a' <-> 'b' <2> 'c'.
CREATE OR REPLACE FUNCTION work_order_search_triple_query(t text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT (quote_literal(split_part(substr(t, 4), ' ', 1)) || ' <' || substr(t, 2, 1) || '> '
       || quote_literal(split_part(substr(t, 4), ' ', 2)) || ' <' || substr(t, 3, 1) || '> '
       || quote_literal(split_part(substr(t, 4), ' ', 3)))::tsquery
$$;

-- Ordinals of the live rows that hold one word, pair, status or facet (a term becoming common; the
-- rebuild). Pending work orders may be included or not: queries read those from their live rows.
CREATE OR REPLACE FUNCTION work_order_search_term_ordinals(company int, t text) RETURNS int[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  rest text := substr(t, 2);
BEGIN
  IF left(t, 1) = '{{TERM_STATUS}}' THEN
    RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                  WHERE w."buyerCompanyId" = company AND w.status::text = rest);
  END IF;
  -- A facet: its column, compared in the column's type so that its index is used where it has one.
  CASE left(t, 1)
    WHEN '{{TERM_LOCATION}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."locationId" = rest::int);
    WHEN '{{TERM_SUPPLIER_FACILITY}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."supplierFacilityId" = rest::int);
    WHEN '{{TERM_PROBLEM_TYPE}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."problemTypeId" = rest::int);
    WHEN '{{TERM_PM_SCHEDULE}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."plannedMaintenanceScheduleId" = rest::int);
    WHEN '{{TERM_IS_PM}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."isPM" = rest::boolean);
    WHEN '{{TERM_ASSET}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."assetId" = rest::int);
    WHEN '{{TERM_BUYER_FACILITY}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."buyerFacilityId" = rest::int);
    WHEN '{{TERM_PRIORITY}}' THEN RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                                  WHERE w."buyerCompanyId" = company AND w."woPriority" = rest::int);
    ELSE NULL;
  END CASE;
  RETURN array(SELECT d.ordinal FROM "WorkOrder" w JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = w.id
                WHERE w."buyerCompanyId" = company AND w."searchVector" @@ (CASE left(t, 1)
                  WHEN '{{TERM_WORD}}' THEN quote_literal(rest)::tsquery
                  WHEN '{{TERM_PAIR}}' THEN (quote_literal(split_part(rest, ' ', 1)) || ' <-> ' || quote_literal(split_part(rest, ' ', 2)))::tsquery
                  ELSE (quote_literal(split_part(rest, ' ', 1)) || ' <2> ' || quote_literal(split_part(rest, ' ', 2)))::tsquery END));
END $$;
