// The pieces of the API fuzz test (api.fuzz.test.ts): inputs are fast-check arbitraries guided by the
// documents' schemas (operations discovered by test/support/operations.ts), mixed with hostile values;
// writes are counted by triggers in the test's own database.
import fc from "fast-check";
import pg from "pg";
import type { Operation, Schema } from "../support/operations.ts";

// ---- hostile values

const HOSTILE_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  '\'; DROP TABLE "WorkOrder"; --',
  "%00",
  "%",
  "../../etc/passwd",
  "🙂",
  "\uD800",
  "ÄÖÜ straße",
  "x".repeat(3000),
  "1e309",
  "NaN",
  "-1",
  "0",
  "2147483648",
  "99999999999999999999",
  "alice@acme.example",
  "gina@globex.example",
  "sam@coolco.example",
  "not-an-email",
  "https://example.com/a.pdf",
  "javascript:alert(1)",
  "12.345",
  "-0.01",
  "1.00",
  "2026-13-45",
  "2026-11-02T10:00:00Z",
  "true",
  "null",
  "[]",
  "{}",
  '"quoted"',
  "<script>",
];
const HOSTILE_NUMBERS = [
  0,
  -1,
  1,
  2,
  3,
  2147483647,
  2147483648,
  -2147483649,
  2 ** 53,
  2 ** 53 + 2,
  1e308,
  -0.5,
  3.14,
  1e-9,
];

const hostileText = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);
const hostileNumber = (ids: number[]) =>
  fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS, ...ids), fc.integer(), fc.double({ noNaN: true }));
const anything = fc.jsonValue({ maxDepth: 3 });

/** A value for a schema: usually of its type (ids from the fixture, hostile texts), sometimes anything. */
export function valueFor(schema: Schema | undefined, ids: number[], depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return anything;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((s) => valueFor(s, ids, depth + 1)));
  const typed = (() => {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    switch (schema.type) {
      case "integer":
        return hostileNumber(ids);
      case "number":
        return hostileNumber(ids);
      case "boolean":
        return fc.boolean();
      case "string":
        return hostileText;
      case "array":
        return fc.array(valueFor(schema.items, ids, depth + 1), { maxLength: 4 });
      case "object":
      case undefined: {
        const properties = schema.properties ?? {};
        const keys = Object.keys(properties);
        if (keys.length === 0) return anything;
        return fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(properties[k], ids, depth + 1)])), {
          requiredKeys: [],
        });
      }
      default:
        return anything;
    }
  })();
  return fc.oneof(
    { arbitrary: typed, weight: 8 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: anything, weight: 1 },
  );
}

/** A request body as sent: mostly JSON of the body's schema, sometimes other JSON or broken text. */
export function bodyFor(schema: Schema | undefined, ids: number[]): fc.Arbitrary<string | undefined> {
  const deep = "[".repeat(2000) + "1" + "]".repeat(2000);
  return fc.oneof(
    { arbitrary: valueFor(schema, ids).map((v) => JSON.stringify(v)), weight: 8 },
    { arbitrary: anything.map((v) => JSON.stringify(v)), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        undefined,
        "",
        "{",
        "[]",
        "null",
        '"x"',
        `{"a":${deep}}`,
        '{"__proto__":{"polluted":1}}',
      ),
      weight: 1,
    },
  );
}

/** %-encoded; a lone surrogate (which encodeURIComponent refuses) as the bytes a client could still send. */
const encodePath = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
};

/** A path parameter: a real id most of the time, else a hostile value (URL-encoded). */
export function pathValue(ids: number[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids).map(String), weight: 4 },
    { arbitrary: hostileNumber(ids).map(String), weight: 2 },
    { arbitrary: hostileText.map(encodePath), weight: 2 },
  );
}

const FILTER_NAMES = [
  "id",
  "name",
  "status",
  "locationId",
  "search",
  "toString",
  "constructor",
  "__proto__",
  "valueOf",
  "group_by",
  "limit",
  "offset",
  "sort_by",
  "order",
  "no_pagination",
  "statusChangedAt",
  "createdAtStart",
  "x".repeat(300),
];

/** Query parameters: declared ones and filter-like names, with hostile values. */
export function queryFor(op: Operation, ids: number[]): fc.Arbitrary<[string, string][]> {
  const names = [...new Set([...op.queryParams.map((p) => p.name), ...FILTER_NAMES])];
  return fc.array(fc.tuple(fc.constantFrom(...names), fc.oneof(hostileText, hostileNumber(ids).map(String))), {
    maxLength: 4,
  });
}

// ---- write detection

/**
 * Row-level triggers on every table of the test's database count committed row changes (a rolled-back
 * transaction rolls its count back too). Tables that a refused request may legitimately not touch:
 * all of them; tables written by successful reads are left out.
 */
export async function installWriteCounter(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`
    CREATE TABLE fuzz_write_count (n bigint NOT NULL);
    INSERT INTO fuzz_write_count VALUES (0);
    CREATE FUNCTION fuzz_count_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE fuzz_write_count SET n = n + 1; RETURN NULL; END $$;
    DO $$ DECLARE t text; BEGIN
      FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public'
               AND tablename NOT IN ('fuzz_write_count', '_prisma_migrations', 'WorkOrderThreadRead') LOOP
        EXECUTE format('CREATE TRIGGER fuzz_count AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION fuzz_count_write()', t);
      END LOOP;
    END $$;`);
  return {
    count: async () => Number((await client.query("SELECT n FROM fuzz_write_count")).rows[0].n),
    close: () => client.end(),
  };
}
