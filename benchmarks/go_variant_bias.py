"""Does a Go slowed variant differ from the plain build by more than its injection?  (issue #19, assess on Go)

`assess` slows a Go function by rewriting a copy of the module (a deferred enter/exit pair in the function, a
helper file in its package) and compiling that copy; its baselines are the plain build. This script measures what
the rewrite alone does, with benchwarden's own `compare --artifacts` (interleaved fork pairs of two test binaries,
threshold 0, CPU time per operation):

* **rewritten**: the example rewritten to slow a function that no benchmark times (``GenerateText`` builds the
  benchmarks' input in their setup, outside the timed loop; ``-factor 0.1``), against the plain build: any
  significant difference is bias of the variant binary, not injection;
* **copy**: the plain module copied elsewhere and compiled there, against the plain build (the A/A of building
  twice);
* **switchable** (what `assess` does since 29 Nov 2026): one build with ``--probe`` functions rewritten
  ``-switchable`` (each off unless ``BENCHWARDEN_SLOW`` names it), run with ``--function`` switched on at 0.1
  (``compare --variant-env``) against itself with every switch off: the same binary on both sides, so any
  significant difference is bias of the design, not injection;
* **probed-off**: that switchable build with every switch off against the plain build: what the probes and the
  rewrite cost the baselines (the control is this build, not the plain one).

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


def build(source: Path, dest: Path, binary: Path, slowed: str | None = None,
          switchable: list[str] | None = None) -> None:
    """The module copied to ``dest`` (``slowed``: that function rewritten by assess's rewriter, -factor 0.1;
    ``switchable``: those functions rewritten -switchable) and its test binary compiled there."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".benchwarden"))
    if slowed is not None:
        subprocess.run([str(rewriter_binary()), "-dir", str(dest), "-func", slowed, "-factor", "0.1"], check=True,
                       capture_output=True)
    if switchable:
        funcs = [arg for f in switchable for arg in ("-func", f)]
        subprocess.run([str(rewriter_binary()), "-dir", str(dest), *funcs, "-switchable"], check=True,
                       capture_output=True)
    subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=dest, check=True)


def compare(config: Path, sides: list[str], args: argparse.Namespace) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "benchwarden", "compare", "--config", str(config), *sides,
                           "--min-change", "0", "--max-forks", str(args.max_forks),
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
    parser.add_argument("--probe", nargs="*", default=["example.com/wordstat.Tokenize",
                                                       "example.com/wordstat.CountWordsHash",
                                                       "example.com/wordstat.TopK"],
                        help="functions probed in the switchable build beside --function (its switch is 0)")
    parser.add_argument("--cases", nargs="*", default=["rewritten", "copy", "switchable", "probed-off"])
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
            build(example, work / "switchable", work / "switchable.test", switchable=[args.function, *args.probe])
            (work / "switchable" / "bias.toml").write_text(CONFIG, encoding="utf-8")
            rows = []
            for case in args.cases:
                if case == "switchable":  # one worktree, one build: the candidate with switch 0 on
                    found = compare(work / "switchable" / "bias.toml", ["--variant-env", "BENCHWARDEN_SLOW=0:0.1"], args)
                else:
                    binary = work / ("switchable.test" if case == "probed-off" else f"{case}.test")
                    found = compare(work / "plain" / "bias.toml", ["--artifacts", str(work / "plain.test"), str(binary)],
                                    args)
                rows.extend((case, b) for b in found)
    finally:
        if hog is not None:
            hog.kill()
    print(f"the plain build against a variant ({args.function} slowed by 10 % in 'rewritten' and 'switchable', "
          f"where the base is the same build with every switch off; CPU time per "
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
