#!/usr/bin/env bash
# The test suite: sets everything up first, then runs unit and end-to-end tests (real JMH, Go, Python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
cd "$root"
# --durations: the slowest tests are listed at the end of every run (CI time is a goal: docs/performance.md, "The test suite's own time")
exec .venv/bin/python -m pytest -q -p no:cacheprovider --durations=25 "$@"
