-- Which charts a change can change (src/schema/core/kept-answers.ts; docs/dashboards.md "Kept chart
-- answers"): a name is shown only by the charts grouped by its dimension, so a renamed region, problem type
-- or supplier facility, or a renamed location, leaves every other kept chart exact. Before, any of them
-- made every chart of the company (or of every company) be read whole. A change row now says the
-- dimensions whose names or regions it changed ("dimensions", values of WorkOrderDimension: LOCATION,
-- REGION, PROBLEM_TYPE, SUPPLIER_FACILITY); a chart that neither groups by one of them nor, for REGION,
-- filters by region ignores it. Null: every chart (a work order written, a truncate, a location moved to
-- another company).
ALTER TABLE "StatsChange" ADD COLUMN "dimensions" TEXT[];

-- Two rows' dimensions as one: null (every chart) once either is.
CREATE FUNCTION stats_dimensions_union(a text[], b text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a IS NOT NULL AND b IS NOT NULL THEN array(SELECT DISTINCT unnest(a || b) ORDER BY 1) END
$$;

-- The change of migration 20261220090000, with the dimensions it is confined to; rows of one transaction
-- are merged.
DROP FUNCTION stats_change(int, timestamptz, timestamptz, int[], int[]);
CREATE FUNCTION stats_change(company int, created_from timestamptz, created_to timestamptz,
                             locations int[] DEFAULT NULL, supplier_facilities int[] DEFAULT NULL,
                             dimensions text[] DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "StatsChange" AS s ("buyerCompanyId", "createdFrom", "createdTo", "locationIds", "supplierFacilityIds",
                                  "dimensions")
  VALUES (company, created_from, created_to, CASE WHEN cardinality(locations) <= 64 THEN locations END,
          CASE WHEN cardinality(supplier_facilities) <= 64 THEN supplier_facilities END, dimensions)
  ON CONFLICT ("buyerCompanyId", xid) DO UPDATE
     SET "createdFrom" = CASE WHEN s."createdFrom" IS NOT NULL AND excluded."createdFrom" IS NOT NULL
                              THEN least(s."createdFrom", excluded."createdFrom") END,
         "createdTo" = CASE WHEN s."createdTo" IS NOT NULL AND excluded."createdTo" IS NOT NULL
                            THEN greatest(s."createdTo", excluded."createdTo") END,
         "locationIds" = stats_keys_union(s."locationIds", excluded."locationIds"),
         "supplierFacilityIds" = stats_keys_union(s."supplierFacilityIds", excluded."supplierFacilityIds"),
         "dimensions" = stats_dimensions_union(s."dimensions", excluded."dimensions")
$$;

-- A location renamed changes the charts grouped by location (its groups: the row names it); moved to
-- another region, also those grouped or filtered by region; deleted, both. Moved to another company: every
-- chart of both.
CREATE OR REPLACE FUNCTION stats_locations_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM stats_change(c, NULL, NULL, array_agg(id), NULL, dimensions)
       FROM (SELECT n."buyerCompanyId" AS c, n.id,
                    CASE WHEN n."regionId" IS DISTINCT FROM o."regionId" THEN '{LOCATION,REGION}' ELSE '{LOCATION}' END::text[]
                      AS dimensions
               FROM new_rows n JOIN old_rows o USING (id)
              WHERE (n.name IS DISTINCT FROM o.name OR n."regionId" IS DISTINCT FROM o."regionId")
                AND n."buyerCompanyId" IS NOT DISTINCT FROM o."buyerCompanyId"
             UNION ALL
             SELECT moved.c, moved.id, NULL FROM new_rows n JOIN old_rows o USING (id),
                    LATERAL (VALUES (n."buyerCompanyId", n.id), (o."buyerCompanyId", o.id)) moved(c, id)
              WHERE n."buyerCompanyId" IS DISTINCT FROM o."buyerCompanyId") changed
      GROUP BY c, dimensions;
  ELSE
    PERFORM stats_change("buyerCompanyId", NULL, NULL, array_agg(id), NULL, '{LOCATION,REGION}')
       FROM old_rows GROUP BY "buyerCompanyId";
  END IF;
  RETURN NULL;
END
$$;

-- A name only the charts grouped by TG_ARGV[1] show (REGION, PROBLEM_TYPE, SUPPLIER_FACILITY) changed: on
-- an update, when one of the columns TG_ARGV[2:] changed; on a delete, always. TG_ARGV[0]: whose charts,
-- the rows' companies' ('company') or every company's ('all': supplier facilities, whose ids the row
-- names: a chart grouped by them reads their groups again). A truncate ('all', no dimension) changes every
-- chart.
CREATE OR REPLACE FUNCTION stats_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := coalesce((SELECT string_agg(format('n.%1$I IS DISTINCT FROM o.%1$I', c), ' OR ') FROM unnest(TG_ARGV[2:]) c), 'TRUE');
  source text := CASE WHEN TG_OP = 'UPDATE' THEN 'new_rows n JOIN old_rows o USING (id)' ELSE 'old_rows n' END;
  dimensions text[] := CASE WHEN TG_ARGV[1] IS NOT NULL THEN ARRAY[TG_ARGV[1]] END;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM stats_change(NULL, NULL, NULL);
  ELSIF TG_ARGV[0] = 'all' THEN
    EXECUTE format('SELECT stats_change(NULL, NULL, NULL, NULL, ids, $1)
                      FROM (SELECT array_agg(n.id) AS ids FROM %s WHERE %s) x WHERE ids IS NOT NULL', source, changed)
      USING dimensions;
  ELSE
    EXECUTE format('SELECT stats_change(c, NULL, NULL, NULL, NULL, $1)
                      FROM (SELECT DISTINCT n."buyerCompanyId" AS c FROM %s WHERE %s) x', source, changed)
      USING dimensions;
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER "Region_stats_update" ON "Region";
DROP TRIGGER "Region_stats_delete" ON "Region";
DROP TRIGGER "ProblemType_stats_update" ON "ProblemType";
DROP TRIGGER "ProblemType_stats_delete" ON "ProblemType";
DROP TRIGGER "SupplierFacility_stats_update" ON "SupplierFacility";
DROP TRIGGER "SupplierFacility_stats_delete" ON "SupplierFacility";
CREATE TRIGGER "Region_stats_update" AFTER UPDATE ON "Region"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'REGION', 'name');
CREATE TRIGGER "Region_stats_delete" AFTER DELETE ON "Region"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'REGION');
CREATE TRIGGER "ProblemType_stats_update" AFTER UPDATE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'PROBLEM_TYPE', 'name');
CREATE TRIGGER "ProblemType_stats_delete" AFTER DELETE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'PROBLEM_TYPE');
CREATE TRIGGER "SupplierFacility_stats_update" AFTER UPDATE ON "SupplierFacility"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('all', 'SUPPLIER_FACILITY', 'name');
CREATE TRIGGER "SupplierFacility_stats_delete" AFTER DELETE ON "SupplierFacility"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('all', 'SUPPLIER_FACILITY');
