-- Data only (no schema change): every work order's search vector gains its buyer company's lexeme,
-- 'Buyer <buyerCompanyId>' without position, as src/schema/work-orders/search.ts refreshSearchVector
-- now writes it (see tenantLexeme there). A buyer's search then is one GIN condition, which lets its
-- exact count skip the heap (docs/work-order-search.md).
--
-- Appending the lexeme gives the same vector as recomputing it (the lexeme has no position, so the
-- other positions do not move), without re-reading notes and service calls. Rewrites every work
-- order row once: run VACUUM (ANALYZE) "WorkOrder" afterwards so pages are all-visible again.
UPDATE "WorkOrder"
   SET "searchVector" = coalesce("searchVector", ''::tsvector) || array_to_tsvector(ARRAY['Buyer ' || "buyerCompanyId"])
 WHERE "searchVector" IS NULL OR NOT "searchVector" @@ format('%L', 'Buyer ' || "buyerCompanyId")::tsquery;
