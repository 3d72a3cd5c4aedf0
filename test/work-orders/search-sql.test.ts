// The search subsystem's SQL has one source (src/schema/work-orders/search/sql/*.sql, applied by the
// migrations that scripts/search-migration.ts generates): the migrated database holds exactly the
// functions the sources define, as they define them, and the sources name the shared constants instead
// of repeating them.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchFunctionsSql, sourceFunctions } from "../../scripts/search-migration.ts";
import { createTestDatabase } from "../support/databases.ts";

const SOURCES = path.resolve(import.meta.dirname, "../../src/schema/work-orders/search/sql");

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

/**
 * Every search function and aggregate of the migrated database, by signature, with its definition as
 * PostgreSQL prints it (an aggregate: its state function, state type and initial state).
 */
async function definitions(): Promise<Record<string, string>> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `SELECT p.oid::regprocedure::text AS name,
            CASE WHEN p.prokind = 'a'
                 THEN (SELECT concat_ws(' ', a.aggtransfn::regprocedure, a.aggtranstype::regtype, a.agginitval, p.proparallel)
                         FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
                 ELSE pg_get_functiondef(p.oid) END AS def
       FROM pg_proc p
      WHERE p.proname LIKE 'work\\_order\\_search\\_%' AND p.pronamespace = 'public'::regnamespace ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

describe("search SQL", () => {
  it("the migrated database's functions are the sources' (else: npm run search:migration -- <name>)", async () => {
    const migrated = await definitions();
    // Applying the sources changes nothing, and defines nothing new.
    await client.query("BEGIN");
    try {
      await client.query(searchFunctionsSql());
      expect(await definitions()).toEqual(migrated);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("every search function of the database has its source", async () => {
    const names = [...new Set(Object.keys(await definitions()).map((signature) => signature.split("(")[0]))].sort();
    expect(sourceFunctions()).toEqual(names);
  });

  it("the sources name the term kinds and the chunk size (search/terms.ts) instead of repeating them", () => {
    for (const file of fs.readdirSync(SOURCES)) {
      const text = fs.readFileSync(path.join(SOURCES, file), "utf8");
      expect(text, file).not.toMatch(/8192|8,192|'[wpqstu]%?'/);
    }
  });
});
