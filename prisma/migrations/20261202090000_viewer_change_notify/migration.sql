-- The API's cache of verified keys (src/http/viewer-cache.ts) is told about every change that could
-- change what a key authenticates as: the key itself (revoked, expiry, rate limit, deleted), its
-- contact (roles, facility, name), and the facility and company rows a viewer is read from. The
-- notification is sent when the changing transaction commits, whoever wrote it (API, operator CLI,
-- a psql session), to every API instance listening on the channel.
CREATE FUNCTION notify_viewer_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('viewer_change', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

-- Statement triggers: one notification per statement (PostgreSQL folds identical ones per transaction).
-- New rows change no cached viewer (unknown keys are not cached), so inserts do not notify.
CREATE TRIGGER "ApiKey_viewer_change" AFTER UPDATE OR DELETE ON "ApiKey"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_viewer_change();
CREATE TRIGGER "Contact_viewer_change" AFTER UPDATE OR DELETE ON "Contact"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_viewer_change();
CREATE TRIGGER "BuyerFacility_viewer_change" AFTER UPDATE OF "buyerCompanyId" OR DELETE ON "BuyerFacility"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_viewer_change();
CREATE TRIGGER "SupplierFacility_viewer_change" AFTER UPDATE OF "supplierCompanyId" OR DELETE ON "SupplierFacility"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_viewer_change();
CREATE TRIGGER "SupplierCompany_viewer_change" AFTER UPDATE OF "internalTeamOfId" OR DELETE ON "SupplierCompany"
  FOR EACH STATEMENT EXECUTE FUNCTION notify_viewer_change();
