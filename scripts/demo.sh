#!/usr/bin/env bash
# The main job on the bundled example: run the example JMH suite and show the stored results.
# Sets up everything it needs first (virtualenv; the example jar is built by `benchwarden run`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
bw="$root/.venv/bin/benchwarden"
cd "$root/examples/jmh"
"$bw" run "$@"
"$bw" show
