import crypto from "node:crypto";
import pg from "pg";

/** The server of DATABASE_URL, at its maintenance database. */
function serverUrl(): string {
  const url = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/wo_service");
  url.pathname = "/postgres";
  return url.toString();
}

export function urlFor(database: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `wo_test_${crypto.randomBytes(5).toString("hex")}`;
  // Imported here, not at the top: global-setup.ts uses this module outside a test worker.
  const { inject } = await import("vitest");
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${inject("templateDatabase")}`);
  return { name, url: urlFor(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
