-- The locations of the work orders a change wrote (src/schema/core/kept-answers.ts; docs/dashboards.md
-- "Kept chart answers"): a kept chart grouped by location that a status change has made stale is brought
-- up to date by reading again the groups of those locations only (a month's chart: 19,000 groups, one
-- location's a handful), not the whole chart. Null: the change is not confined to a set of locations (a
-- name, a truncate, a transaction that wrote work orders of more than 64 locations: the chart is read
-- whole, as before).
ALTER TABLE "StatsChange" ADD COLUMN "locationIds" INTEGER[];

-- The same change, with the locations; rows of one transaction are merged (a union of the locations, null
-- once either is null or the union passes 64: reading more groups again would cost what a whole read does).
DROP FUNCTION stats_change(int, timestamptz, timestamptz);
CREATE FUNCTION stats_change(company int, created_from timestamptz, created_to timestamptz, locations int[] DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "StatsChange" AS s ("buyerCompanyId", "createdFrom", "createdTo", "locationIds")
  VALUES (company, created_from, created_to, CASE WHEN cardinality(locations) <= 64 THEN locations END)
  ON CONFLICT ("buyerCompanyId", xid) DO UPDATE
     SET "createdFrom" = CASE WHEN s."createdFrom" IS NOT NULL AND excluded."createdFrom" IS NOT NULL
                              THEN least(s."createdFrom", excluded."createdFrom") END,
         "createdTo" = CASE WHEN s."createdTo" IS NOT NULL AND excluded."createdTo" IS NOT NULL
                            THEN greatest(s."createdTo", excluded."createdTo") END,
         "locationIds" = CASE WHEN s."locationIds" IS NOT NULL AND excluded."locationIds" IS NOT NULL
                              THEN (SELECT CASE WHEN count(*) <= 64 THEN array_agg(l ORDER BY l) END
                                      FROM (SELECT DISTINCT unnest(s."locationIds" || excluded."locationIds") l) u) END
$$;

-- Work orders written: per company, the range of their creation times and their locations (old and new
-- rows: an update may move either).
CREATE OR REPLACE FUNCTION stats_work_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"))
       FROM new_rows GROUP BY "buyerCompanyId";
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"))
       FROM old_rows GROUP BY "buyerCompanyId";
  ELSE
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"))
       FROM (SELECT "buyerCompanyId", "createdAt", "locationId" FROM new_rows
             UNION ALL SELECT "buyerCompanyId", "createdAt", "locationId" FROM old_rows) w
      GROUP BY "buyerCompanyId";
  END IF;
  RETURN NULL;
END
$$;
