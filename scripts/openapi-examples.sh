#!/usr/bin/env bash
# Regenerates the OpenAPI documents' examples (src/rest/openapi-examples.json) from what the REST
# integration tests send and get: runs them with OPENAPI_EXAMPLES set (test/support/app.ts records the
# first 200 and 400 of each operation), then scripts/openapi-examples.mjs picks and writes them.
# Extra arguments choose the test files (default: the REST tests).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/work-orders test/commerce test/purchasing test/walkthroughs test/planned-maintenance/schedules.test.ts test/networks test/labels test/reference test/assets test/provisioning test/audit test/foundation)
OPENAPI_EXAMPLES="$dir" bash scripts/test.sh "${files[@]}"
node scripts/openapi-examples.mjs "$dir"
