-- The keys a change wrote (src/schema/core/kept-answers.ts; docs/dashboards.md "Kept chart answers"): the
-- locations and the supplier facilities of the work orders a transaction wrote, beside the creation range
-- of migration 20261219090000. A kept chart grouped by location (or, not by location, by supplier
-- facility) that a status change has made stale is brought up to date by reading again the groups of
-- those keys only (a month's chart: 19,000 groups, one location's a handful), not the whole chart. A work
-- order without a supplier facility counts as a null element (its group is the chart's null key). Null:
-- the change is not confined to such keys (a name, a truncate, a transaction that wrote work orders of
-- more than 64: the chart is read whole, as before).
ALTER TABLE "StatsChange" ADD COLUMN "locationIds" INTEGER[], ADD COLUMN "supplierFacilityIds" INTEGER[];

-- Two lists of keys of one transaction's changes as one: null once either is null or the union passes 64
-- (reading more groups again would cost what a whole read does).
CREATE FUNCTION stats_keys_union(a int[], b int[]) RETURNS int[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a IS NOT NULL AND b IS NOT NULL
              THEN (SELECT CASE WHEN count(*) <= 64 THEN array_agg(k ORDER BY k) END
                      FROM (SELECT DISTINCT unnest(a || b) k) u) END
$$;

-- The same change, with its keys; rows of one transaction are merged.
DROP FUNCTION stats_change(int, timestamptz, timestamptz);
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

-- Work orders written: per company, the range of their creation times and their keys (old and new rows:
-- an update may move any of them).
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

-- A location renamed, moved to another region or deleted changes, in a chart grouped by location, only
-- that location's groups: its change row names it, so such a chart is patched; every other chart of the
-- company is read whole (the row names no supplier facilities and has no creation range). Was
-- stats_names_changed('company', 'name', 'regionId').
CREATE FUNCTION stats_locations_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM stats_change(c, NULL, NULL, array_agg(id))
       FROM (SELECT n."buyerCompanyId" AS c, n.id FROM new_rows n JOIN old_rows o USING (id)
              WHERE n.name IS DISTINCT FROM o.name OR n."regionId" IS DISTINCT FROM o."regionId"
                 OR n."buyerCompanyId" IS DISTINCT FROM o."buyerCompanyId"
             UNION
             SELECT o."buyerCompanyId", o.id FROM new_rows n JOIN old_rows o USING (id)
              WHERE n."buyerCompanyId" IS DISTINCT FROM o."buyerCompanyId") changed
      GROUP BY c;
  ELSE
    PERFORM stats_change("buyerCompanyId", NULL, NULL, array_agg(id)) FROM old_rows GROUP BY "buyerCompanyId";
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER "Location_stats_update" ON "Location";
DROP TRIGGER "Location_stats_delete" ON "Location";
CREATE TRIGGER "Location_stats_update" AFTER UPDATE ON "Location"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_locations_changed();
CREATE TRIGGER "Location_stats_delete" AFTER DELETE ON "Location"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_locations_changed();
