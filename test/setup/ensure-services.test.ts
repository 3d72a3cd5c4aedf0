// What scripts/ensure-services.sh changes on a machine whose PostgreSQL refuses the password-less login
// of DATABASE_URL: it says so first, touches only that cluster's pg_hba.conf (a backup, two trust lines
// for DATABASE_URL's user from localhost), and SETUP_PG_TRUST=no refuses. Run against stand-ins for
// psql, pg_isready, pg_lsclusters, pg_ctlcluster and redis-cli, so no real server is touched.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { ROOT } from "../support/operator-cli.ts";

let dir: string;
let hba: string;
const ORIGINAL =
  "# TYPE  DATABASE  USER  ADDRESS  METHOD\nlocal   all   postgres   peer\nhost    all   all   127.0.0.1/32   scram-sha-256\n";

const STUBS: Record<string, string> = {
  pg_isready: "exit 0",
  "redis-cli": "echo PONG",
  pg_lsclusters:
    'echo "15 main 5999 online postgres /var/lib/postgresql/15/main /var/log/postgresql/postgresql-15-main.log"',
  pg_ctlcluster: 'echo "STUB pg_ctlcluster $*" >&2',
  // Logs in once the trust lines are there, as the reloaded server would.
  psql: `if grep -q "^host    all    wo_tester    127.0.0.1/32    trust" "$STUB_HBA"; then echo 1; exit 0; fi
echo 'psql: error: connection to server at "127.0.0.1", port 5999 failed: FATAL:  no pg_hba.conf entry for host "127.0.0.1", user "wo_tester", database "postgres", no encryption' >&2
exit 2`,
  sudo: 'exec "$@"',
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ensure-services-"));
  fs.mkdirSync(path.join(dir, "bin"));
  for (const [name, body] of Object.entries(STUBS))
    fs.writeFileSync(path.join(dir, "bin", name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(dir, "etc/15/main"), { recursive: true });
  hba = path.join(dir, "etc/15/main/pg_hba.conf");
});
beforeEach(() => {
  fs.writeFileSync(hba, ORIGINAL);
  fs.rmSync(`${hba}.before-wo-service`, { force: true });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function ensureServices(env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      [path.join(ROOT, "scripts/ensure-services.sh")],
      {
        env: {
          ...process.env,
          PATH: `${path.join(dir, "bin")}:${process.env.PATH}`,
          PG_CONFIG_DIR: path.join(dir, "etc"),
          STUB_HBA: hba,
          DATABASE_URL: "postgresql://wo_tester@127.0.0.1:5999/wo_service",
          REDIS_URL: "redis://127.0.0.1:6399",
          SETUP_PG_TRUST: "",
          ...env,
        },
        timeout: 30_000,
      },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

it("says what it will change, then adds trust for DATABASE_URL's user from localhost only, with a backup", async () => {
  const run = await ensureServices();
  expect(run.code).toBe(0);
  const lines = run.stderr.trimEnd().split("\n");
  const reload = lines.indexOf("STUB pg_ctlcluster --skip-systemctl-redirect 15 main reload");
  const notice = lines.findIndex((l) => l.includes(`1. ${hba} is copied to ${hba}.before-wo-service`));
  expect(notice).toBeGreaterThan(0);
  expect(reload).toBeGreaterThan(notice);
  expect(lines.slice(0, reload).join("\n")).toContain("host    all    wo_tester    ::1/128         trust");
  expect(run.stderr).toContain("SETUP_PG_TRUST=no");

  expect(fs.readFileSync(`${hba}.before-wo-service`, "utf8")).toBe(ORIGINAL);
  expect(fs.readFileSync(hba, "utf8")).toBe(
    "# wo-service scripts/ensure-services.sh: password-less TCP logins as wo_tester from this machine (local development)\n" +
      "host    all    wo_tester    127.0.0.1/32    trust\nhost    all    wo_tester    ::1/128         trust\n\n" +
      ORIGINAL,
  );

  // Once the login works the script changes nothing and says nothing.
  const again = await ensureServices();
  expect(again).toEqual({ code: 0, stderr: "" });
});

it("leaves pg_hba.conf alone with SETUP_PG_TRUST=no and says what to do instead", async () => {
  const run = await ensureServices({ SETUP_PG_TRUST: "no" });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`SETUP_PG_TRUST=no, so ${hba} is left alone`);
  expect(run.stderr).toContain("host    all    wo_tester    127.0.0.1/32    trust");
  expect(run.stderr).not.toContain("STUB pg_ctlcluster");
  expect(fs.readFileSync(hba, "utf8")).toBe(ORIGINAL);
  expect(fs.existsSync(`${hba}.before-wo-service`)).toBe(false);
});
