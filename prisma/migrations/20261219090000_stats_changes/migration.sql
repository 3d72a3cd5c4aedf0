-- The chart answers kept between requests (src/schema/core/kept-answers.ts; docs/dashboards.md "Kept
-- chart answers"): one row per company and writing transaction that changed what a buyer's chart reads,
-- with the creation times of the work orders it changed (createdFrom to createdTo; a chart of another
-- period is not changed by it: most writes are to recent work orders, and last month's chart stays kept),
-- or no range when it changed a name a chart shows (a location's name or region, a region's or problem
-- type's name: when it changes, not when the same is written again). A row without a company changes
-- every company's charts (a supplier facility's name, a truncate). A kept answer remembers the snapshot it
-- was read in; it is still right while no row of its company (or none without one), over its period, comes
-- from a transaction that snapshot did not see. Statement triggers with transition tables: one row per
-- company per transaction (the unique index folds the rest, widening the range), whatever the number of
-- rows a statement wrote. The worker deletes the rows of transactions that had ended 15 minutes before; a
-- kept answer's snapshot is at most 10 minutes old.
CREATE TABLE "StatsChange" (
    "buyerCompanyId" INTEGER,
    "xid" XID8 NOT NULL DEFAULT pg_current_xact_id(),
    "createdFrom" TIMESTAMPTZ(3),
    "createdTo" TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "StatsChange_company_xid" ON "StatsChange" ("buyerCompanyId", "xid") NULLS NOT DISTINCT;

-- A change to a company's charts over the work orders created from `created_from` to `created_to` (null:
-- over all of them). A row of the same transaction is widened; one without a range stays without.
CREATE FUNCTION stats_change(company int, created_from timestamptz, created_to timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO "StatsChange" AS s ("buyerCompanyId", "createdFrom", "createdTo") VALUES (company, created_from, created_to)
  ON CONFLICT ("buyerCompanyId", xid) DO UPDATE
     SET "createdFrom" = CASE WHEN s."createdFrom" IS NOT NULL AND excluded."createdFrom" IS NOT NULL
                              THEN least(s."createdFrom", excluded."createdFrom") END,
         "createdTo" = CASE WHEN s."createdTo" IS NOT NULL AND excluded."createdTo" IS NOT NULL
                            THEN greatest(s."createdTo", excluded."createdTo") END
$$;

-- Work orders written: per company, the range of their creation times (old and new rows: an update may
-- move createdAt). Each branch names only the transition tables its event has.
CREATE FUNCTION stats_work_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt")) FROM new_rows GROUP BY "buyerCompanyId";
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt")) FROM old_rows GROUP BY "buyerCompanyId";
  ELSE
    PERFORM stats_change("buyerCompanyId", min("createdAt"), max("createdAt"))
       FROM (SELECT "buyerCompanyId", "createdAt" FROM new_rows UNION ALL SELECT "buyerCompanyId", "createdAt" FROM old_rows) w
      GROUP BY "buyerCompanyId";
  END IF;
  RETURN NULL;
END
$$;

-- A name every chart of the rows' companies ('company') or of every company ('all') may show: on an
-- update, when one of the columns TG_ARGV names after the first changed; on a delete or a truncate, always.
CREATE FUNCTION stats_names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := coalesce((SELECT string_agg(format('n.%1$I IS DISTINCT FROM o.%1$I', c), ' OR ') FROM unnest(TG_ARGV[1:]) c), 'TRUE');
  source text := CASE WHEN TG_OP = 'UPDATE' THEN 'new_rows n JOIN old_rows o USING (id)' ELSE 'old_rows n' END;
BEGIN
  IF TG_ARGV[0] = 'all' AND TG_OP <> 'UPDATE' THEN
    INSERT INTO "StatsChange" ("buyerCompanyId") VALUES (NULL) ON CONFLICT DO NOTHING;
  ELSIF TG_ARGV[0] = 'all' THEN
    EXECUTE format('INSERT INTO "StatsChange" ("buyerCompanyId") SELECT NULL WHERE EXISTS (SELECT 1 FROM %s WHERE %s)
                    ON CONFLICT DO NOTHING', source, changed);
  ELSE
    EXECUTE format('SELECT stats_change(c, NULL, NULL) FROM (SELECT DISTINCT n."buyerCompanyId" AS c FROM %s WHERE %s) x',
                   source, changed);
  END IF;
  RETURN NULL;
END
$$;

-- Transition tables allow one event per trigger.
CREATE TRIGGER "WorkOrder_stats_insert" AFTER INSERT ON "WorkOrder"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_work_orders_changed();
CREATE TRIGGER "WorkOrder_stats_update" AFTER UPDATE ON "WorkOrder"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_work_orders_changed();
CREATE TRIGGER "WorkOrder_stats_delete" AFTER DELETE ON "WorkOrder"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_work_orders_changed();
CREATE TRIGGER "WorkOrder_stats_truncate" AFTER TRUNCATE ON "WorkOrder"
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('all');

-- Names and regions: a new row names nothing a chart shows yet, so only updates and deletes count.
CREATE TRIGGER "Location_stats_update" AFTER UPDATE ON "Location"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'name', 'regionId');
CREATE TRIGGER "Location_stats_delete" AFTER DELETE ON "Location"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company');
CREATE TRIGGER "Region_stats_update" AFTER UPDATE ON "Region"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'name');
CREATE TRIGGER "Region_stats_delete" AFTER DELETE ON "Region"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company');
CREATE TRIGGER "ProblemType_stats_update" AFTER UPDATE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company', 'name');
CREATE TRIGGER "ProblemType_stats_delete" AFTER DELETE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('company');
CREATE TRIGGER "SupplierFacility_stats_update" AFTER UPDATE ON "SupplierFacility"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('all', 'name');
CREATE TRIGGER "SupplierFacility_stats_delete" AFTER DELETE ON "SupplierFacility"
  FOR EACH STATEMENT EXECUTE FUNCTION stats_names_changed('all');
