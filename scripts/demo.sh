#!/usr/bin/env bash
# The main job on the bundled example: "did my change make anything slower?"
# `benchwarden compare` on the example JMH suite (examples/jmh): the base is the suite as it is, the candidate
# the same build with the switchable slowdown on (-Dwordstat.slow=true makes tokenize ~1.7x slower). Forks of
# the two run interleaved in random order until each benchmark's verdict is settled; it ends with the verdict
# table and the path of the HTML report. Extra arguments go to `benchwarden compare`.
# Sets up everything it needs first (virtualenv; the example jar is built by the suite's build command).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
bw="$root/.venv/bin/benchwarden"
cd "$root/examples/jmh"
status=0
# 20 x 100 ms of warmup per fork: the JIT settles within ~1-2 s on this example
"$bw" compare --variant-jvm-arg -Dwordstat.slow=true --filter 'TokenizeBench|TopKBench' \
  --iteration-time 100ms --warmup 20 --iterations 5 --max-forks 8 "$@" || status=$?
if [ "$status" -eq 1 ]; then
  echo "demo: exit status 1 = a regression was found: the switched-on slowdown, as intended" >&2
  exit 0
fi
exit "$status"
