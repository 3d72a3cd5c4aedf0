#!/usr/bin/env bash
# Measures the OpenAPI documents with Stoplight Prism's validating proxy (issue #28 item 1; the tests'
# own check is test/support/openapi-check.ts). On a throwaway database (created, migrated, seeded with
# test/fixtures/base.json, dropped at the end) it starts the service from the sources, puts each
# interface's document behind `prism proxy <doc> <service> --errors=false`, sends every operation an
# ordinary request (its recorded example, src/rest/openapi-examples.json) and a bad one through it,
# and prints the request and response violations Prism reported (scripts/prism-check.mjs).
# prism-cli is fetched by npx at run time (PRISM_CLI, default @stoplight/prism-cli@5): not a
# dependency of the project, and not part of `npm test`. Needs PostgreSQL and Redis running
# (scripts/ensure-services.sh) and node_modules. KEEP=1 keeps the output directory (logs, documents,
# every exchange with its violations in results.json) and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/env.sh

log() { echo "prism-check: $*" >&2; }

[ -x node_modules/.bin/tsx ] || { log "ERROR: node_modules is missing; run npm ci first"; exit 1; }

out="$(mktemp -d)"
database="wo_prism_check_$$"
db_url="$(node -e 'const u = new URL(process.argv[1]); u.pathname = `/${process.argv[2]}`; console.log(u.href)' "$DATABASE_URL" "$database")"
cleanup() {
  local rc=$?
  node -e '
    const { Client } = require("pg");
    const url = new URL(process.argv[1]);
    url.pathname = "/postgres";
    const c = new Client({ connectionString: url.href });
    c.connect().then(() => c.query(`DROP DATABASE IF EXISTS "${process.argv[2]}" WITH (FORCE)`)).finally(() => c.end());
  ' "$DATABASE_URL" "$database" || log "could not drop database $database"
  if [ "${KEEP:-}" = 1 ]; then log "output kept in $out"; else rm -rf "$out"; fi
  exit "$rc"
}
trap cleanup EXIT

export DATABASE_URL="$db_url"
bash scripts/ensure-database.sh
npx --no-install tsx src/operator/cli.ts apply test/fixtures/base.json >"$out/applied.json"
node scripts/prism-check.mjs "$out" "$out/applied.json"
