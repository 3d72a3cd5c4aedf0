-- The chart answers kept between requests (src/schema/core/kept-answers.ts; docs/dashboards.md "Kept
-- chart answers"): one row per company and writing transaction that changed what a buyer's chart reads
-- (its work orders, any column: a filter may name it; its locations' names and regions; its regions' and
-- problem types' names, when they change rather than are written again), and a row without a company
-- when a name every company may show changed (a supplier facility's) or the work orders were truncated.
-- A kept answer remembers the snapshot it was read in; it is still right while no row of its company (or
-- none without one) comes from a transaction that snapshot did not see. Statement triggers with
-- transition tables: one row per company per transaction (the unique index folds the rest), whatever the
-- number of rows a statement wrote. The worker deletes the rows of transactions that had ended 15 minutes
-- before; a kept answer lives 10 at most.
CREATE TABLE "StatsChange" (
    "buyerCompanyId" INTEGER,
    "xid" XID8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE UNIQUE INDEX "StatsChange_company_xid" ON "StatsChange" ("buyerCompanyId", "xid") NULLS NOT DISTINCT;

-- Tables whose rows carry "buyerCompanyId": the companies of the rows a statement wrote.
CREATE FUNCTION stats_changed_companies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "StatsChange" ("buyerCompanyId") SELECT DISTINCT "buyerCompanyId" FROM new_rows
      ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "StatsChange" ("buyerCompanyId") SELECT DISTINCT "buyerCompanyId" FROM old_rows
      ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO "StatsChange" ("buyerCompanyId")
      SELECT "buyerCompanyId" FROM new_rows UNION SELECT "buyerCompanyId" FROM old_rows
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;

-- A change every company's charts may show.
CREATE FUNCTION stats_changed_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "StatsChange" ("buyerCompanyId") VALUES (NULL) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

-- An update of a named table: a change only when a column a chart shows changed (an operator's apply
-- that writes the same names again changes no chart). TG_ARGV: 'company' (the rows' "buyerCompanyId")
-- or 'all' (every company), then the columns compared.
CREATE FUNCTION stats_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := (SELECT string_agg(format('n.%1$I IS DISTINCT FROM o.%1$I', c), ' OR ') FROM unnest(TG_ARGV[1:]) c);
BEGIN
  IF TG_ARGV[0] = 'company' THEN
    EXECUTE format('INSERT INTO "StatsChange" ("buyerCompanyId") SELECT DISTINCT n."buyerCompanyId"
                      FROM new_rows n JOIN old_rows o USING (id) WHERE %s ON CONFLICT DO NOTHING', changed);
  ELSE
    EXECUTE format('INSERT INTO "StatsChange" ("buyerCompanyId") SELECT NULL
                     WHERE EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o USING (id) WHERE %s)
                    ON CONFLICT DO NOTHING', changed);
  END IF;
  RETURN NULL;
END
$$;

-- Transition tables allow one event per trigger.
CREATE TRIGGER "WorkOrder_stats_insert" AFTER INSERT ON "WorkOrder"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "WorkOrder_stats_update" AFTER UPDATE ON "WorkOrder"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "WorkOrder_stats_delete" AFTER DELETE ON "WorkOrder"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "WorkOrder_stats_truncate" AFTER TRUNCATE ON "WorkOrder"
  FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_all();

-- Names and regions: a new row names nothing a chart shows yet, so only updates and deletes count.
CREATE TRIGGER "Location_stats_update" AFTER UPDATE ON "Location"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_renamed('company', 'name', 'regionId');
CREATE TRIGGER "Location_stats_delete" AFTER DELETE ON "Location"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "Region_stats_update" AFTER UPDATE ON "Region"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_renamed('company', 'name');
CREATE TRIGGER "Region_stats_delete" AFTER DELETE ON "Region"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "ProblemType_stats_update" AFTER UPDATE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_renamed('company', 'name');
CREATE TRIGGER "ProblemType_stats_delete" AFTER DELETE ON "ProblemType"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_companies();
CREATE TRIGGER "SupplierFacility_stats_update" AFTER UPDATE ON "SupplierFacility"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stats_renamed('all', 'name');
CREATE TRIGGER "SupplierFacility_stats_delete" AFTER DELETE ON "SupplierFacility"
  FOR EACH STATEMENT EXECUTE FUNCTION stats_changed_all();
