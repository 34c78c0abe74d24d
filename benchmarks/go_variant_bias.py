"""Does a Go slowed variant differ from the plain build by more than its injection?  (issue #19, assess on Go)

`assess` slows a Go function by rewriting a copy of the module (a deferred enter/exit pair in the function, a
helper file in its package) and compiling that copy; its baselines are the plain build. This script measures what
the rewrite alone does, with benchwarden's own `compare --artifacts` (interleaved fork pairs of two test binaries,
threshold 0, CPU time per operation):

* **rewritten**: the example rewritten to slow a function that no benchmark times (``GenerateText`` builds the
  benchmarks' input in their setup, outside the timed loop; ``-factor 0.1``), against the plain build: any
  significant difference is bias of the variant binary, not injection;
* **copy**: the plain module copied elsewhere and compiled there, against the plain build (the A/A of building
  twice).

Usage: ``.venv/bin/python benchmarks/go_variant_bias.py [--function example.com/wordstat.GenerateText]
[--max-forks 12] [--seed 4] [--hog]``. Results: docs/assess.md ("Limitations"), docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.helpers.build import rewriter_binary  # noqa: E402

CONFIG = """[defaults]
iteration_time = "100ms"
warmup = { min = 1, max = 1 }
iterations = 10
forks = { min = 2, max = 2 }
timeout = "2m"

[suites.wordstat]
kind = "go"
path = "."
metric = "cpu"
filter = '^(BenchmarkCountWordsHash|BenchmarkTokenize\\[size=1000\\]|BenchmarkTopK)$'
"""


def build(source: Path, dest: Path, binary: Path, slowed: str | None = None) -> None:
    """The module copied to ``dest`` (``slowed``: that function rewritten by assess's rewriter, -factor 0.1) and its
    test binary compiled there."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".benchwarden"))
    if slowed is not None:
        subprocess.run([str(rewriter_binary()), "-dir", str(dest), "-func", slowed, "-factor", "0.1"], check=True,
                       capture_output=True)
    subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=dest, check=True)


def compare(config: Path, base: Path, candidate: Path, args: argparse.Namespace) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "benchwarden", "compare", "--config", str(config), "--artifacts",
                           str(base), str(candidate), "--min-change", "0", "--max-forks", str(args.max_forks),
                           "--seed", str(args.seed), "--json", "-q"], capture_output=True, text=True)
    if not done.stdout:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout)["benchmarks"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--function", default="example.com/wordstat.GenerateText")
    parser.add_argument("--max-forks", type=int, default=12)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    args = parser.parse_args()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    try:
        with tempfile.TemporaryDirectory(prefix="go-variant-bias-") as tmp:
            work = Path(tmp)
            example = ROOT / "examples" / "go"
            build(example, work / "plain", work / "plain.test")
            (work / "plain" / "bias.toml").write_text(CONFIG, encoding="utf-8")
            build(example, work / "copy", work / "copy.test")
            build(example, work / "rewritten", work / "rewritten.test", slowed=args.function)
            rows = []
            for case in ("rewritten", "copy"):
                for b in compare(work / "plain" / "bias.toml", work / "plain.test", work / f"{case}.test", args):
                    rows.append((case, b))
    finally:
        if hog is not None:
            hog.kill()
    print(f"the plain build against a variant ({args.function} slowed by 10 % in 'rewritten'; CPU time per "
          f"operation; threshold 0; up to {args.max_forks} pairs; {'beside a CPU-bound process' if hog else 'no neighbour'})\n")
    print("| variant | benchmark | verdict | ratio variant/plain | 99.5 % interval | fork pairs |")
    print("|---|---|---|---:|---|---:|")
    for case, b in rows:
        low, high = b["ci"] or (float("nan"), float("nan"))
        print(f"| {case} | {b['benchmark']} | {b['verdict']} | {b['ratio']:.3f} | [{low:.3f}, {high:.3f}] | "
              f"{b['forks']['candidate']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
