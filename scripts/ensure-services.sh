#!/usr/bin/env bash
# Makes sure PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) answer.
#
# - Service already reachable: says nothing and changes nothing.
# - Local service (127.0.0.1 / localhost / ::1) not reachable: installs the Debian package if it is
#   missing (apt-get), then starts it by hand (no systemd needed).
# - Remote service (e.g. the `postgres` host in docker-compose): waits for it up to
#   SERVICE_WAIT_SECONDS (default 60), then fails.
# - PostgreSQL reachable but the password-less login from the URL is refused (a fresh Debian
#   install asks for a password over TCP): only for a local Debian cluster and a DATABASE_URL without
#   a password, it first says what it will change, then backs up that cluster's pg_hba.conf, adds two
#   `trust` lines for DATABASE_URL's user only, from 127.0.0.1/32 and ::1/128 only, and reloads the
#   cluster. Nothing else in the PostgreSQL configuration is touched. SETUP_PG_TRUST=no refuses the
#   change (the script stops and says what to do instead). README.md "What the setup changes".
#
# Variables come from the environment, then .env, then the defaults below.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/env.sh
WAIT_SECONDS="${SERVICE_WAIT_SECONDS:-60}"
# Where Debian keeps each cluster's configuration (<version>/<cluster>/pg_hba.conf).
PG_CONFIG_DIR="${PG_CONFIG_DIR:-/etc/postgresql}"

log() { echo "ensure-services: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- helpers

# url_host URL / url_port URL DEFAULT / url_user URL / url_has_password URL
url_authority() {
  local rest="${1#*://}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  printf '%s' "$rest"
}
url_hostport() { local a; a="$(url_authority "$1")"; printf '%s' "${a##*@}"; }
url_host() {
  local hp; hp="$(url_hostport "$1")"
  if [[ "$hp" == \[* ]]; then hp="${hp#[}"; hp="${hp%%]*}"; else hp="${hp%%:*}"; fi
  printf '%s' "${hp:-127.0.0.1}"
}
url_port() {
  local hp port=""; hp="$(url_hostport "$1")"
  if [[ "$hp" == \[* ]]; then [[ "$hp" == *]:* ]] && port="${hp##*]:}"; else [[ "$hp" == *:* ]] && port="${hp##*:}"; fi
  printf '%s' "${port:-$2}"
}
url_userinfo() { local a; a="$(url_authority "$1")"; [[ "$a" == *@* ]] && printf '%s' "${a%@*}"; return 0; }
url_user() { local u; u="$(url_userinfo "$1")"; printf '%s' "${u%%:*}"; }
url_has_password() { local u; u="$(url_userinfo "$1")"; [[ "$u" == *:?* ]]; }

is_local_host() { case "$1" in 127.0.0.1 | localhost | ::1 | '') return 0 ;; *) return 1 ;; esac; }

tcp_open() { timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $*"; fi
}

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found; install $* yourself"
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "installing $* (apt-get)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---------------------------------------------------------------- PostgreSQL

PG_HOST="$(url_host "$DATABASE_URL")"
PG_PORT="$(url_port "$DATABASE_URL" 5432)"
PG_USER="$(url_user "$DATABASE_URL")"
PG_USER="${PG_USER:-postgres}"

pg_up() {
  if command -v pg_isready >/dev/null; then pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 3
  else tcp_open "$PG_HOST" "$PG_PORT"; fi
}

wait_for() { # seconds check-command...
  local secs="$1"; shift
  local i
  for ((i = 0; i < secs; i++)); do
    "$@" && return 0
    sleep 1
  done
  "$@"
}

# The Debian cluster (version and name) listening on PG_PORT, if any: prints "VER NAME".
pg_cluster_for_port() {
  command -v pg_lsclusters >/dev/null || return 1
  pg_lsclusters -h 2>/dev/null | awk -v p="$PG_PORT" '$3 == p { print $1, $2; found = 1; exit } END { exit !found }'
}

pg_start_local() {
  if ! command -v pg_ctlcluster >/dev/null || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt_install postgresql
    # The package's own start attempt may have worked (or not, without an init system).
    pg_up && return 0
  fi
  local cluster ver name
  if ! cluster="$(pg_cluster_for_port)"; then
    if [ -n "$(pg_lsclusters -h 2>/dev/null)" ]; then
      pg_lsclusters >&2 || true
      die "no PostgreSQL cluster listens on port $PG_PORT (see above); fix DATABASE_URL's port"
    fi
    ver="$(ls /usr/lib/postgresql | sort -V | tail -n1)"
    log "creating PostgreSQL $ver cluster 'main' on port $PG_PORT"
    as_root pg_createcluster -p "$PG_PORT" "$ver" main >/dev/null
    cluster="$ver main"
  fi
  read -r ver name <<<"$cluster"
  if pg_lsclusters -h "$ver" "$name" 2>/dev/null | awk '{ exit $4 != "online" }'; then
    log "waiting for PostgreSQL $ver/$name on port $PG_PORT to accept connections"
  else
    log "starting PostgreSQL $ver/$name on port $PG_PORT"
    as_root pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start
  fi
  wait_for 30 pg_up || die "PostgreSQL $ver/$name did not come up on $PG_HOST:$PG_PORT (see /var/log/postgresql/)"
}

# Logs in like DATABASE_URL does (its user and password, never a prompt), to the `postgres`
# database (the app's own database may not exist yet). Prints psql's error; fails if login works.
pg_login_error() {
  local userinfo err
  userinfo="$(url_userinfo "$DATABASE_URL")"
  err="$(PGCONNECT_TIMEOUT=5 psql -w -X -q -tA -c 'SELECT 1' \
    "postgresql://${userinfo:-postgres}@$(url_hostport "$DATABASE_URL")/postgres" 2>&1 >/dev/null)" && return 1
  printf '%s\n' "${err:-psql failed}"
}

as_postgres_psql() { # runs psql as the postgres OS user over the local socket (peer auth)
  if command -v runuser >/dev/null; then as_root runuser -u postgres -- psql -X -q -p "$PG_PORT" "$@"
  else as_root su postgres -s /bin/sh -c 'psql -X -q -p "$0" "$@"' "$PG_PORT" "$@"; fi
}

pg_fix_login() { # only called when the login from DATABASE_URL failed
  local err="$1" cluster ver name hba mark user
  cluster="$(pg_cluster_for_port)" || die "cannot log in to PostgreSQL at $PG_HOST:$PG_PORT as $PG_USER, and it is not a local Debian cluster I can configure:
$err"
  read -r ver name <<<"$cluster"
  if url_has_password "$DATABASE_URL"; then
    die "cannot log in to PostgreSQL $ver/$name as $PG_USER with the password in DATABASE_URL:
$err"
  fi
  if [[ "$err" == *"role \"$PG_USER\" does not exist"* ]]; then
    log "creating PostgreSQL role $PG_USER (LOGIN CREATEDB): DATABASE_URL logs in as it"
    printf 'CREATE ROLE %s LOGIN CREATEDB;\n' "\"${PG_USER//\"/\"\"}\"" | as_postgres_psql
    return 0
  fi
  case "$err" in
    *"password authentication failed"* | *"no password supplied"* | *"no pg_hba.conf entry"* | *"authentication failed"*) ;;
    *) die "cannot log in to PostgreSQL $ver/$name as $PG_USER:
$err" ;;
  esac
  hba="$PG_CONFIG_DIR/$ver/$name/pg_hba.conf"
  [ -f "$hba" ] || die "cannot log in to PostgreSQL as $PG_USER and $hba is missing:
$err"
  mark="# wo-service scripts/ensure-services.sh: password-less TCP logins as $PG_USER from this machine (local development)"
  if grep -qF "$mark" "$hba"; then
    die "cannot log in to PostgreSQL $ver/$name as $PG_USER even with the trust lines in $hba:
$err"
  fi
  user="$PG_USER"
  [[ "$user" =~ ^[a-z_][a-z0-9_]*$ ]] || user="\"${user//\"/\"\"}\""
  local lines=("host    all    $user    127.0.0.1/32    trust" "host    all    $user    ::1/128         trust")
  log "PostgreSQL $ver/$name refused a password-less login as $PG_USER over TCP:"
  log "  ${err%%$'\n'*}"
  if [ "${SETUP_PG_TRUST:-yes}" = no ]; then
    die "SETUP_PG_TRUST=no, so $hba is left alone. Either give DATABASE_URL a user and password that can log in
(e.g. postgresql://wo:secret@127.0.0.1:$PG_PORT/wo_service in .env), or add these lines at the top of $hba
and reload PostgreSQL (pg_ctlcluster $ver $name reload):
  ${lines[0]}
  ${lines[1]}"
  fi
  log "DATABASE_URL has no password, so this machine's PostgreSQL must trust $PG_USER from localhost. Changing:"
  log "  1. $hba is copied to $hba.before-wo-service"
  log "  2. these lines are added at its top (user $PG_USER only, from this machine only, every database:"
  log "     the tests create their own):"
  log "       ${lines[0]}"
  log "       ${lines[1]}"
  log "  3. the cluster reloads its configuration (pg_ctlcluster $ver $name reload)"
  log "Other users, hosts and settings are unchanged. To undo: copy the backup back and reload. To refuse this"
  log "change, run with SETUP_PG_TRUST=no (or set it in .env)."
  local tmp
  tmp="$(mktemp)"
  {
    echo "$mark"
    printf '%s\n' "${lines[@]}"
    echo
    cat "$hba"
  } >"$tmp"
  as_root cp -p "$hba" "$hba.before-wo-service"
  as_root cp "$tmp" "$hba"
  rm -f "$tmp"
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload
  log "done: $hba now trusts $PG_USER from 127.0.0.1 and ::1"
  sleep 1
}

ensure_postgres() {
  if ! pg_up; then
    if is_local_host "$PG_HOST"; then
      pg_start_local
    else
      log "waiting up to ${WAIT_SECONDS}s for PostgreSQL at $PG_HOST:$PG_PORT"
      wait_for "$WAIT_SECONDS" pg_up || die "PostgreSQL at $PG_HOST:$PG_PORT is not reachable"
      return 0
    fi
  fi
  # Login check (needs psql; without it ensure-database.sh reports login problems).
  is_local_host "$PG_HOST" && command -v psql >/dev/null || return 0
  local err i
  for i in 1 2 3; do
    err="$(pg_login_error)" || return 0
    pg_fix_login "$err"
  done
  die "still cannot log in to PostgreSQL at $PG_HOST:$PG_PORT as $PG_USER:
$(pg_login_error)"
}

# ---------------------------------------------------------------- Redis

REDIS_HOST="$(url_host "$REDIS_URL")"
REDIS_PORT="$(url_port "$REDIS_URL" 6379)"

# Prints the server's first reply to PING (PONG, or an error such as NOAUTH); empty if unreachable.
redis_ping() {
  if command -v redis-cli >/dev/null; then
    timeout 5 redis-cli --no-auth-warning -u "$REDIS_URL" ping 2>/dev/null | head -n1 || true
  else
    { timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "PING\r\n" >&3 && IFS= read -r l <&3 && printf "%s\n" "$l"' \
      _ "$REDIS_HOST" "$REDIS_PORT" 2>/dev/null || true; } | tr -d '\r' | sed 's/^[+-]//'
  fi
}
redis_up() { [ -n "$(redis_ping)" ]; }

redis_start_local() {
  if ! command -v redis-server >/dev/null; then
    apt_install redis-server
    redis_up && return 0
  fi
  local bind="127.0.0.1" major
  major="$(redis-server --version | sed -n 's/.* v=\([0-9]*\).*/\1/p')"
  # "-::1" = also listen on ::1 when the machine has IPv6 (Redis >= 7).
  [ "${major:-0}" -ge 7 ] && bind="127.0.0.1 -::1"
  as_root mkdir -p /var/lib/redis /var/log/redis
  log "starting redis-server on port $REDIS_PORT"
  # shellcheck disable=SC2086 # $bind is two words on purpose
  as_root redis-server --daemonize yes --bind $bind --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for 15 redis_up || die "redis-server did not come up on port $REDIS_PORT (see /var/log/redis/ci.log)"
}

ensure_redis() {
  if ! redis_up; then
    if is_local_host "$REDIS_HOST"; then
      redis_start_local
    else
      log "waiting up to ${WAIT_SECONDS}s for Redis at $REDIS_HOST:$REDIS_PORT"
      wait_for "$WAIT_SECONDS" redis_up || die "Redis at $REDIS_HOST:$REDIS_PORT is not reachable"
    fi
  fi
  local reply
  reply="$(redis_ping)"
  case "$reply" in
    PONG | +PONG) ;;
    *) log "warning: Redis at $REDIS_HOST:$REDIS_PORT answered PING with: $reply (check REDIS_URL's password)" ;;
  esac
}

ensure_postgres
ensure_redis
