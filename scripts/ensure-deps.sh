#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or package-lock.json is newer than
# node_modules/.package-lock.json (npm ci) — never through a node_modules that is a symlink to another
# checkout's install — and generates the Prisma client if src/generated is
# missing. Quiet when there is nothing to do. Used by setup-and-start.sh, test.sh, .ci/run,
# production-check.sh and the Dockerfile. Arguments go to npm ci (e.g. --omit=dev for production).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "ensure-deps: $*" >&2; }

out="$(mktemp)"
trap 'rm -f "$out"' EXIT

if [ -L node_modules ]; then
  # A checkout sharing another's install (a git worktree): npm ci would empty that install through the
  # link, under whatever runs there. The owner of the install keeps it current.
  [ -d node_modules/ ] || { log "ERROR: node_modules links to $(readlink node_modules), which is not a directory"; exit 1; }
elif [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies (npm ci${*:+ $*})"
  if ! npm ci --no-audit --no-fund "$@" </dev/null >"$out" 2>&1; then
    if grep -q "can only install packages when your package.json and package-lock.json" "$out"; then
      # Happens when the registry in use does not serve some other-platform optional packages
      # (so they are absent from the lockfile); npm install accepts that lockfile unchanged.
      log "npm ci rejected package-lock.json as out of sync; using npm install instead"
      npm install --no-audit --no-fund "$@" </dev/null >"$out" 2>&1 || { cat "$out" >&2; log "ERROR: npm install failed"; exit 1; }
    else
      cat "$out" >&2
      log "ERROR: npm ci failed"
      exit 1
    fi
  fi
fi

if [ ! -d src/generated ]; then
  log "generating the Prisma client (prisma generate)"
  npx --no-install prisma generate </dev/null >"$out" 2>&1 || { cat "$out" >&2; log "ERROR: prisma generate failed"; exit 1; }
fi
