// `npm run migrate` (prisma migrate deploy) migrates the database the service uses: prisma.config.ts
// takes DATABASE_URL from src/config.ts, so the environment, then .env, then the built-in default.
// Checked with the real Prisma CLI in a directory of its own (`migrate status` only reads).
// The production path as a whole (build, npm ci --omit=dev, migrate, start) is scripts/production-check.sh.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrate-config-"));
  for (const entry of ["prisma.config.ts", "prisma", "scripts"])
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  fs.mkdirSync(path.join(dir, "src"));
  // What the Dockerfile copies before `prisma generate`: config.ts and the URL parsing it imports.
  for (const file of ["src/config.ts", "src/database-urls.ts"])
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The database `prisma migrate status` reports, run in `dir` without DATABASE_URL in the environment. */
function datasource(): Promise<string> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, "node_modules/.bin/prisma"),
      ["migrate", "status"],
      { cwd: dir, env, timeout: 60_000 },
      (_error, stdout, stderr) => {
        resolve(/Datasource "db": (.*)/.exec(`${stdout}${stderr}`)?.[1] ?? `no datasource line in: ${stdout}${stderr}`);
      },
    );
  });
}

it("uses the built-in default without DATABASE_URL or .env, then DATABASE_URL from .env", {
  timeout: 120_000,
}, async () => {
  const fallback = new URL(loadConfig({}).databaseUrl);
  expect(await datasource()).toBe(
    `PostgreSQL database "${fallback.pathname.slice(1)}", schema "public" at "${fallback.host}"`,
  );
  fs.writeFileSync(path.join(dir, ".env"), "DATABASE_URL=postgresql://postgres@127.0.0.1:5432/wo_from_dotenv_file\n");
  expect(await datasource()).toBe(`PostgreSQL database "wo_from_dotenv_file", schema "public" at "127.0.0.1:5432"`);
});
