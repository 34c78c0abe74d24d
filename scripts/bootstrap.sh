#!/usr/bin/env bash
# Set up everything benchwarden needs on a fresh machine of this kind, idempotently:
# the Python virtualenv with benchwarden installed (editable) and its test dependencies.
# Harness builds (the example Maven project, Go test binaries) are done by `benchwarden run`
# itself through each suite's build command, so they need no step here.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

need() { command -v "$1" >/dev/null 2>&1 || { echo "bootstrap: '$1' is required but not on PATH ($2)" >&2; exit 2; }; }
need python3 "Python >= 3.11"
python3 - <<'PY' || { echo "bootstrap: Python >= 3.11 is required" >&2; exit 2; }
import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv" >&2
  python3 -m venv .venv
fi
stamp=".venv/.benchwarden-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing benchwarden and its dependencies into .venv" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  echo "$want" > "$stamp"
fi
for tool in java mvn go; do
  command -v "$tool" >/dev/null 2>&1 || echo "bootstrap: warning: '$tool' not found; suites and tests that need it will be skipped or fail with a clear message" >&2
done
# A real headless browser for the HTML report test (Debian's chromium): installed when missing and we are root;
# skipped quietly otherwise (that test then skips with its reason). Fast when already present.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing chromium (headless browser for the HTML report test)" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; } \
    || echo "bootstrap: warning: could not install chromium; the browser test will be skipped" >&2
fi
# A real PostgreSQL server for the store tests (Debian's postgresql: initdb and pg_ctl; the tests start a throwaway
# cluster on a loopback port in a temporary directory and stop it). Installed when missing and we are root; in CI
# (CI=true) the PostgreSQL tests fail rather than skip without it.
if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing postgresql (a throwaway server for the store tests)" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1; } \
    || echo "bootstrap: warning: could not install postgresql; the PostgreSQL store tests will be skipped (fail in CI)" >&2
fi
# strace for the network screening of Go tests (gounit; optional for users, required by the tests in CI).
if ! command -v strace >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing strace (network screening of Go tests)" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends strace >/dev/null 2>&1; } \
    || echo "bootstrap: warning: could not install strace; the Go network-screening tests will be skipped (fail in CI)" >&2
fi
