#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the docs test in headless Chromium
# (test/docs/docs.test.ts; playwright-core drives it, so no browser is downloaded).
#
# - Already installed: says nothing and changes nothing.
# - Missing: says so, then installs the `chromium` package with apt-get (as root, or with sudo when
#   that needs no password). Nothing else on the machine is changed.
# - Cannot install (no apt-get, no root, SKIP_BROWSER_INSTALL=1): says the browser test will be
#   skipped and exits 0, so the rest of the test suite still runs.
set -euo pipefail

log() { echo "ensure-browser: $*" >&2; }

[ -x /usr/bin/chromium ] && exit 0

skip() { log "$*; the docs test in headless Chromium will be skipped"; exit 0; }
[ "${SKIP_BROWSER_INSTALL:-}" = 1 ] && skip "/usr/bin/chromium is missing and SKIP_BROWSER_INSTALL=1"
command -v apt-get >/dev/null || skip "/usr/bin/chromium is missing and there is no apt-get to install it"
if [ "$(id -u)" -eq 0 ]; then as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then as_root=(sudo -n)
else skip "/usr/bin/chromium is missing and installing it needs root"; fi

log "/usr/bin/chromium is missing: installing the Debian package chromium (apt-get update, apt-get install chromium)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
  skip "apt-get install chromium failed"
log "installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
