#!/usr/bin/env bash
# The test suite: sets everything up first, then runs unit and end-to-end tests (real JMH, Go, Python).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
cd "$root"
# --durations: the slowest tests are listed at the end of every run (CI time is a goal: docs/performance.md, "The test suite's own time")
pytest=(.venv/bin/python -m pytest -q -p no:cacheprovider --durations=25)
if [ "$#" -gt 0 ]; then
  exec "${pytest[@]}" "$@"
fi
# Without arguments: the unit tests on every core (they measure nothing, so a busy neighbour cannot fail them),
# then the end-to-end tests two at a time, a file per worker (a module's fixtures are built once). They measure
# real processes, so each loads the other: a verdict a test asserts must hold under that load, with noise paid
# in fork pairs (docs/performance.md, "The test suite's own time")
"${pytest[@]}" -n auto tests/unit
exec "${pytest[@]}" -n 2 --dist loadfile tests/e2e
