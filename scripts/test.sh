#!/usr/bin/env bash
# The test command (`npm test`): makes sure PostgreSQL, Redis and node_modules are there, then runs
# `vitest run` with any extra arguments. The tests create their own databases on DATABASE_URL's
# server. VITEST_JSON=path additionally writes vitest's JSON report to that path.
set -euo pipefail
cd "$(dirname "$0")/.."

# .env without overriding variables that are already set (same rule as process.loadEnvFile).
load_env() {
  [ -f .env ] || return 0
  local line key val
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    line="${line#"${line%%[![:space:]]*}"}"
    case "$line" in '' | '#'*) continue ;; esac
    line="${line#export }"
    key="${line%%=*}"
    val="${line#*=}"
    [[ "$line" == *=* && "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    [ -n "${!key+x}" ] && continue
    if [[ "$val" =~ ^\"(.*)\"$ || "$val" =~ ^\'(.*)\'$ ]]; then
      val="${BASH_REMATCH[1]}"
    else
      val="${val%%[[:space:]]#*}"
      val="${val%"${val##*[![:space:]]}"}"
    fi
    export "$key=$val"
  done <.env
}
load_env
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/wo_service}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"

bash scripts/ensure-services.sh

bash scripts/ensure-deps.sh

args=(run)
if [ -n "${VITEST_JSON:-}" ]; then
  mkdir -p "$(dirname "$VITEST_JSON")"
  args+=(--reporter=default --reporter=json "--outputFile.json=$VITEST_JSON")
fi
exec npx --no-install vitest "${args[@]}" "$@"
