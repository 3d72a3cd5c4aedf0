#!/usr/bin/env bash
# The test command (`npm test`): makes sure PostgreSQL, Redis, node_modules and Chromium (for the docs
# test; scripts/ensure-browser.sh) are there, then runs `vitest run` with any extra arguments. The
# tests create their own databases on DATABASE_URL's server. VITEST_JSON=path additionally writes
# vitest's JSON report to that path.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/env.sh

bash scripts/ensure-services.sh

bash scripts/ensure-deps.sh

bash scripts/ensure-browser.sh

args=(run)
if [ -n "${VITEST_JSON:-}" ]; then
  mkdir -p "$(dirname "$VITEST_JSON")"
  args+=(--reporter=default --reporter=json "--outputFile.json=$VITEST_JSON")
fi
exec npx --no-install vitest "${args[@]}" "$@"
