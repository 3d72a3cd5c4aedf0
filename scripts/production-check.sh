#!/usr/bin/env bash
# Proves the production path (`npm run test:production`, and a step of .ci/run): replays the
# Dockerfile without Docker, then runs the result like the image would.
#
#   1. Each FROM stage becomes a fresh directory (its WORKDIR). COPY takes files from the build
#      context (the checkout's files that git does not ignore, like .dockerignore) or, with
#      --from=<stage>, from that stage's directory; RUN runs there with the stage's ENV so far.
#      So the runtime stage installs production dependencies only (npm ci --omit=dev) and gets the
#      compiled dist/ from the build stage, exactly as in the image.
#   2. In the last stage's directory, with a .env of its own (a fresh database, a free port, a Redis
#      prefix): creates the database, `npm run migrate` (so it must read .env), starts the CMD and waits
#      for the HEALTHCHECK command to pass (GET /readyz 200).
#   3. The compiled operator CLI applies examples/operator-fixture.json, and a REST call with one of
#      its keys answers 200 (the generated Prisma client works from dist/); /docs and an interface's
#      docs page with its local Redoc bundle answer 200.
# Everything it made (directories, database, process) is removed at the end. Prints "production
# check: ok" last, or fails with the step that broke.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

. scripts/env.sh

log() { echo "production-check: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v git >/dev/null || die "git is needed to list the build context"
[ -f Dockerfile ] || die "no Dockerfile"

work="$(mktemp -d)"
server_pid=""
database=""
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$database" ] && [ -d "$work/app/node_modules/pg" ]; then
    (cd "$work/app" && node -e '
      const { Client } = require("pg");
      const [url, db] = process.argv.slice(1);
      const c = new Client({ connectionString: url });
      c.connect().then(() => c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`)).finally(() => c.end());
    ' "$ADMIN_URL" "$database") || log "could not drop database $database"
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# ---------------------------------------------------------------- 1. replay the Dockerfile

context="$work/context"
mkdir -p "$context"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar -C "$ROOT" --null -T - -cf - | tar -C "$context" -xf -

declare -A stage_dir
stage=""
stage_env=()
last_dir=""
cmd=""
healthcheck=""

# COPY [--from=stage] src... dest (dest relative to the stage directory; a trailing / or several
# sources mean "into this directory"; a directory source copies its contents).
copy() {
  local from="$context" args=("$@")
  if [[ "${args[0]}" == --from=* ]]; then
    from="${stage_dir[${args[0]#--from=}]:-}"
    [ -n "$from" ] || die "COPY ${args[0]}: unknown stage"
    args=("${args[@]:1}")
  fi
  local dest="${args[-1]}" sources=("${args[@]:0:${#args[@]}-1}") src target
  for src in "${sources[@]}"; do
    src="${src#/app/}"
    [ -e "$from/$src" ] || die "COPY $src: not in the ${from##*/} directory"
    if [ "${#sources[@]}" -gt 1 ] || [[ "$dest" == */ ]]; then target="$dir/$dest/$(basename "$src")"
    else target="$dir/$dest"; fi
    mkdir -p "$(dirname "$target")"
    if [ -d "$from/$src" ]; then mkdir -p "$target" && cp -a "$from/$src/." "$target/"
    else cp -a "$from/$src" "$target"; fi
  done
}

while IFS= read -r line || [ -n "$line" ]; do
  line="${line%$'\r'}"
  [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
  instruction="${line%% *}"
  rest="${line#* }"
  case "$instruction" in
    FROM)
      [[ "$rest" =~ [[:space:]]AS[[:space:]]+([A-Za-z0-9_-]+) ]] || die "FROM without a stage name: $line"
      stage="${BASH_REMATCH[1]}"
      dir="$work/$stage"
      mkdir -p "$dir"
      stage_dir[$stage]="$dir"
      stage_env=()
      last_dir="$dir"
      log "stage $stage"
      ;;
    WORKDIR) ;; # the stage directory stands for it
    ENV) stage_env+=("$rest") ;;
    COPY)
      read -r -a words <<<"$rest"
      copy "${words[@]}"
      ;;
    RUN)
      log "RUN $rest"
      (cd "$dir" && env "${stage_env[@]}" bash -euo pipefail -c "$rest") </dev/null || die "RUN $rest failed (stage $stage)"
      ;;
    USER | EXPOSE) ;;
    HEALTHCHECK) [[ "$rest" =~ CMD[[:space:]]+(.*)$ ]] && healthcheck="${BASH_REMATCH[1]}" ;;
    CMD) cmd="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).map((a) => JSON.stringify(a)).join(" "))' "$rest")" ;;
    *) die "the replay does not know the instruction $instruction (Dockerfile: $line)" ;;
  esac
done <Dockerfile

[ -n "$last_dir" ] && [ -n "$cmd" ] && [ -n "$healthcheck" ] || die "the Dockerfile needs a final stage with CMD and HEALTHCHECK"
app="$work/app"
mv "$last_dir" "$app" # the path named in cleanup
for dev in tsx vitest dependency-cruiser; do
  [ ! -d "$app/node_modules/$dev" ] || die "the runtime stage has dev dependencies ($dev)"
done

# ---------------------------------------------------------------- 2. migrate, start, health

base="${DATABASE_URL%%\?*}"
database="wo_prodcheck_$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
ADMIN_URL="${base%/*}/postgres"
port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); })')"
cat >"$app/.env" <<EOF
DATABASE_URL=${base%/*}/$database
REDIS_URL=$REDIS_URL
REDIS_PREFIX=woprodcheck:$database
PORT=$port
EOF

cd "$app"
node -e '
  const { Client } = require("pg");
  const [url, db] = process.argv.slice(1);
  const c = new Client({ connectionString: url });
  c.connect().then(() => c.query(`CREATE DATABASE "${db}"`)).finally(() => c.end());
' "$ADMIN_URL" "$database" || die "could not create database $database"

# Only .env names the database: the variables of this shell must not.
clean_env=(env -u DATABASE_URL -u REDIS_URL -u REDIS_PREFIX -u PORT "${stage_env[@]}")
log "npm run migrate (database $database from .env)"
out="$("${clean_env[@]}" npm run migrate 2>&1)" || { echo "$out" >&2; die "npm run migrate failed"; }
[[ "$out" == *"\"$database\""* ]] || { echo "$out" >&2; die "npm run migrate did not use the database of .env"; }

log "starting: $cmd"
"${clean_env[@]}" bash -c "exec $cmd" >"$work/server.log" 2>&1 &
server_pid=$!
healthy=0
for _ in $(seq 1 60); do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; die "the service exited"; }
  if "${clean_env[@]}" PORT="$port" bash -c "$healthcheck" 2>/dev/null; then healthy=1; break; fi
  sleep 0.5
done
[ "$healthy" = 1 ] || { cat "$work/server.log" >&2; die "HEALTHCHECK (/readyz) did not pass within 30 s"; }
log "healthy: GET /readyz 200"

# ---------------------------------------------------------------- 3. the compiled code at work

status() { node -e 'fetch(process.argv[1], { headers: JSON.parse(process.argv[2] || "{}") }).then((r) => process.stdout.write(String(r.status)), () => process.stdout.write("000"))' "$@"; }
url="http://127.0.0.1:$port"

applied="$("${clean_env[@]}" node dist/operator/cli.js apply examples/operator-fixture.json)" || die "operator apply (dist) failed"
headers="$(node -e 'const k = JSON.parse(process.argv[1]).keys["acme-key"]; process.stdout.write(JSON.stringify({ "X-API-KEY": k.apiKey, "SVC-KEY": k.svcKey }))' "$applied")"
for check in "/v1/buyer/location/locations|$headers" "/docs|" "/v1/buyer/docs|" "/assets/redoc.standalone.js|"; do
  path="${check%%|*}"
  got="$(status "$url$path" "${check#*|}")"
  [ "$got" = 200 ] || { cat "$work/server.log" >&2; die "GET $path answered $got"; }
  log "GET $path 200"
done

kill -TERM "$server_pid"
wait "$server_pid" || die "the service did not stop cleanly on SIGTERM"
server_pid=""
echo "production check: ok"
