#!/usr/bin/env bash
# One-command local setup and start:
#   1. PostgreSQL and Redis running (scripts/ensure-services.sh; installs/starts them if needed)
#   2. npm dependencies installed (scripts/ensure-deps.sh: npm ci when node_modules is missing or
#      package-lock.json changed)
#   3. database created and migrated (scripts/ensure-database.sh)
#   4. exec npm run dev (the service from the sources, with tsx; `npm run build && npm start` runs the compiled code)
# --no-start stops after step 3. Every step is skipped quietly when there is nothing to do.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "setup-and-start: $*" >&2; }

start=1
for arg in "$@"; do
  case "$arg" in
    --no-start) start=0 ;;
    -h | --help)
      echo "usage: bash scripts/setup-and-start.sh [--no-start]"
      exit 0
      ;;
    *)
      log "unknown option: $arg (usage: bash scripts/setup-and-start.sh [--no-start])"
      exit 2
      ;;
  esac
done

bash scripts/ensure-services.sh
bash scripts/ensure-deps.sh
bash scripts/ensure-database.sh

[ "$start" = 1 ] || exit 0
exec npm run dev
