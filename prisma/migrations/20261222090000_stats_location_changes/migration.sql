-- A location renamed, moved to another region or deleted changes, in a chart grouped by location, only
-- that location's groups (src/schema/core/kept-answers.ts): its change row now names it (locationIds), so
-- such a chart is patched; every other chart of the company is read whole as before (the row names no
-- supplier facilities and has no creation range). Was stats_names_changed('company', 'name', 'regionId').
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
