-- The supplier facilities of the work orders a change wrote, beside their locations (migration
-- 20261220090000; src/schema/core/kept-answers.ts): a kept chart grouped by supplier facility (and not by
-- location) that a change made stale reads again only those supplier facilities' groups. A work order
-- without one counts as null in the list (its group is the chart's null key). Null: not confined to 64.
ALTER TABLE "StatsChange" ADD COLUMN "supplierFacilityIds" INTEGER[];

-- Two lists of keys of one transaction's changes as one: null once either is null or the union passes 64.
CREATE FUNCTION stats_keys_union(a int[], b int[]) RETURNS int[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a IS NOT NULL AND b IS NOT NULL
              THEN (SELECT CASE WHEN count(*) <= 64 THEN array_agg(k ORDER BY k) END
                      FROM (SELECT DISTINCT unnest(a || b) k) u) END
$$;

DROP FUNCTION stats_change(int, timestamptz, timestamptz, int[]);
CREATE FUNCTION stats_change(company int, created_from timestamptz, created_to timestamptz,
                             locations int[] DEFAULT NULL, supplier_facilities int[] DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "StatsChange" AS s ("buyerCompanyId", "createdFrom", "createdTo", "locationIds", "supplierFacilityIds")
  VALUES (company, created_from, created_to, CASE WHEN cardinality(locations) <= 64 THEN locations END,
          CASE WHEN cardinality(supplier_facilities) <= 64 THEN supplier_facilities END)
  ON CONFLICT ("buyerCompanyId", xid) DO UPDATE
     SET "createdFrom" = CASE WHEN s."createdFrom" IS NOT NULL AND excluded."createdFrom" IS NOT NULL
                              THEN least(s."createdFrom", excluded."createdFrom") END,
         "createdTo" = CASE WHEN s."createdTo" IS NOT NULL AND excluded."createdTo" IS NOT NULL
                            THEN greatest(s."createdTo", excluded."createdTo") END,
         "locationIds" = stats_keys_union(s."locationIds", excluded."locationIds"),
         "supplierFacilityIds" = stats_keys_union(s."supplierFacilityIds", excluded."supplierFacilityIds")
$$;

CREATE OR REPLACE FUNCTION stats_work_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"),
                         array_agg(DISTINCT "supplierFacilityId"))
       FROM new_rows GROUP BY "buyerCompanyId";
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"),
                         array_agg(DISTINCT "supplierFacilityId"))
       FROM old_rows GROUP BY "buyerCompanyId";
  ELSE
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"), array_agg(DISTINCT "locationId"),
                         array_agg(DISTINCT "supplierFacilityId"))
       FROM (SELECT "buyerCompanyId", "createdAt", "locationId", "supplierFacilityId" FROM new_rows
             UNION ALL SELECT "buyerCompanyId", "createdAt", "locationId", "supplierFacilityId" FROM old_rows) w
      GROUP BY "buyerCompanyId";
  END IF;
  RETURN NULL;
END
$$;
