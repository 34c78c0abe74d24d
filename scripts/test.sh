#!/usr/bin/env bash
# The test suite: sets everything up first, then runs unit and end-to-end tests (real JMH, Go, Python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
cd "$root"
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
