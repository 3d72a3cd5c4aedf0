// Migrates a template database once per run; every test file clones it (CREATE DATABASE … TEMPLATE),
// which takes milliseconds and gives each file a database of its own.
import { execFileSync } from "node:child_process";
import pg from "pg";
import { TEMPLATE_DB, serverUrl, urlFor } from "./databases.ts";

export default async function setup() {
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  execFileSync("npx", ["--no-install", "prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: urlFor(TEMPLATE_DB) },
    stdio: "pipe",
  });
}
