-- Every buyer company starts with a standard catalog of meter types, so a new company can create meters
-- before the operator adds types of its own (docs/walkthroughs.md, "Meter types"). The catalog is this one
-- function: the trigger gives each new company its rows, and the backfill below gives existing companies
-- the ones they do not have by name.
CREATE FUNCTION standard_meter_types() RETURNS TABLE (name text, "valueType" text, "valueUnit" text)
LANGUAGE sql IMMUTABLE AS $$
  VALUES
    ('Temperature (°F)', 'number', '°F'),
    ('Temperature (°C)', 'number', '°C'),
    ('Pressure (psi)', 'number', 'psi'),
    ('Pressure (kPa)', 'number', 'kPa'),
    ('Runtime hours (h)', 'number', 'h'),
    ('Cycles (count)', 'number', 'count'),
    ('Energy (kWh)', 'number', 'kWh'),
    ('Water volume (gal)', 'number', 'gal'),
    ('Water volume (m³)', 'number', 'm³'),
    ('Refrigerant weight (lb)', 'number', 'lb'),
    ('Refrigerant weight (kg)', 'number', 'kg')
$$;

CREATE FUNCTION buyer_company_standard_meter_types() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MeterType" ("buyerCompanyId", name, "valueType", "valueUnit")
  SELECT NEW.id, s.name, s."valueType", s."valueUnit" FROM standard_meter_types() s;
  RETURN NEW;
END
$$;

CREATE TRIGGER "BuyerCompany_standard_meter_types"
  AFTER INSERT ON "BuyerCompany"
  FOR EACH ROW EXECUTE FUNCTION buyer_company_standard_meter_types();

INSERT INTO "MeterType" ("buyerCompanyId", name, "valueType", "valueUnit")
SELECT c.id, s.name, s."valueType", s."valueUnit"
  FROM "BuyerCompany" c CROSS JOIN standard_meter_types() s
 WHERE NOT EXISTS (SELECT 1 FROM "MeterType" m WHERE m."buyerCompanyId" = c.id AND m.name = s.name)
 ORDER BY c.id;
