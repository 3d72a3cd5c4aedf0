#!/usr/bin/env bash
# Creates the database named in DATABASE_URL if it does not exist, then applies the Prisma
# migrations (`prisma migrate deploy`). Needs a reachable server (scripts/ensure-services.sh) and
# node_modules (npm ci). Quiet when there is nothing to do.
#
# Variables come from the environment, then .env, then the defaults below.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/env.sh

log() { echo "ensure-database: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

urldecode() { local s="${1//+/ }"; printf '%b' "${s//%/\\x}"; }

# postgresql://user:pass@host:port/dbname?params -> database name, and a URL of the same server's
# `postgres` database for psql (Prisma-only parameters such as schema= would make libpq fail, so
# only sslmode is kept).
base="${DATABASE_URL%%\?*}"
query=""
[[ "$DATABASE_URL" == *\?* ]] && query="${DATABASE_URL#*\?}"
scheme="${base%%://*}"
rest="${base#*://}"
authority="${rest%%/*}"
path=""
[[ "$rest" == */* ]] && path="${rest#*/}"
DB_NAME="$(urldecode "$path")"
[ -n "$DB_NAME" ] || die "DATABASE_URL has no database name: $DATABASE_URL"
ADMIN_URL="$scheme://$authority/postgres"
sslmode="$(printf '%s' "$query" | tr '&' '\n' | sed -n 's/^sslmode=//p' | head -n1)"
[ -n "$sslmode" ] && ADMIN_URL="$ADMIN_URL?sslmode=$sslmode"

[ -x node_modules/.bin/prisma ] || die "node_modules is missing or incomplete; run npm ci first"

# Prints "exists", "created", or fails with the server's error.
create_database() {
  if command -v psql >/dev/null; then
    local psql=(psql -w -X -q -tA -v ON_ERROR_STOP=1 -v "db=$DB_NAME" "$ADMIN_URL")
    local found err
    found="$(printf "SELECT 1 FROM pg_database WHERE datname = :'db';\n" | PGCONNECT_TIMEOUT=10 "${psql[@]}")" || return 1
    if [ "$found" = 1 ]; then echo exists; return 0; fi
    if err="$(printf 'CREATE DATABASE :"db";\n' | PGCONNECT_TIMEOUT=10 "${psql[@]}" 2>&1)"; then echo created
    elif [[ "$err" == *"already exists"* ]]; then echo exists
    else echo "$err" >&2; return 1; fi
  else
    # No psql (e.g. the node:20 container): the pg package from node_modules does the same.
    node -e '
      const { Client } = require("pg");
      const [url, db] = process.argv.slice(1);
      (async () => {
        const client = new Client({ connectionString: url, connectionTimeoutMillis: 10000 });
        await client.connect();
        try {
          const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [db]);
          if (rowCount) return console.log("exists");
          try {
            await client.query(`CREATE DATABASE "${db.replace(/"/g, "\"\"")}"`);
            console.log("created");
          } catch (e) {
            if (e.code !== "42P04") throw e; // created concurrently
            console.log("exists");
          }
        } finally {
          await client.end();
        }
      })().catch((e) => { console.error(e.message); process.exit(1); });
    ' "$ADMIN_URL" "$DB_NAME"
  fi
}

status="$(create_database)" ||
  die "could not create database \"$DB_NAME\" on ${authority##*@} (is PostgreSQL running? try scripts/ensure-services.sh)"
[ "$status" = created ] && log "created database \"$DB_NAME\""

if ! out="$(npx --no-install prisma migrate deploy 2>&1)"; then
  echo "$out" >&2
  die "prisma migrate deploy failed for database \"$DB_NAME\""
fi
if [[ "$out" != *"No pending migrations"* ]]; then
  applied="$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*└─ \(.*\)\/$/\1/p' | grep -v '^migrations$' || true)"
  if [ -n "$applied" ]; then
    log "applied migrations to \"$DB_NAME\": $(echo $applied)"
  else
    echo "$out" >&2
  fi
fi
