# Sourced by the scripts: the environment, then .env (without overriding what is already set, the
# same rule as process.loadEnvFile), then the local defaults of .env.example.
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
