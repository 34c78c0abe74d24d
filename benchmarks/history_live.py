"""`backfill` then `history` on a real git history of the Go example with a +10 % change, later partly undone.

Issue #15's end-to-end case, live: the script builds a git history of ``examples/go`` (``--commits``, default
14): README edits, and at commit 6 the "medium" tokenizer switched on in the code (about +10 % on
``BenchmarkTokenize[size=1000]``, examples/go/README.md), at commit 10 the "small" one instead (about +4 %:
the change partly undone).  It backfills commits 1..N-1 (each checked out and built in its revision worktree,
``--metric`` per op (default CPU time; ``instructions`` counts them under Valgrind), ``--forks``,
``--iterations`` of ``--iteration-time``), runs ``history --json`` and prints the
series, the change points found against the two true ones, and the machine time.  Timing-dependent, so a
script and not a test (tests/e2e/test_history_go.py checks the 2-3x case).

Usage: ``python benchmarks/history_live.py [--commits 14] [--forks 5] [--iterations 5] [--iteration-time 50ms]
[--metric cpu|instructions|time] [--keep DIR]`` (2-4 minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.cli import main  # noqa: E402

FAST = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW"))'
VARIANT = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW") + "{name}")'
FILTER = r"^BenchmarkTokenize\[size=1000\]$"
STEPS = {6: "medium", 10: "small"}  # commit -> tokenizer from then on


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def build(root: Path, commits: int, metric: str) -> list[str]:
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    (root / ".gitignore").write_text(".benchwarden/\n")
    toml = root / "benchwarden.toml"
    toml.write_text(toml.read_text().replace("[defaults]\n", f'[defaults]\nmetric = "{metric}"\n', 1))
    source = root / "wordstat.go"
    original = source.read_text()
    git(root, "init", "-q", "-b", "main")
    shas = []
    for i in range(commits):
        if i in STEPS:
            source.write_text(original.replace(FAST, VARIANT.format(name=STEPS[i])))
        elif i:
            with (root / "README.md").open("a") as readme:
                readme.write(f"\nEdit {i}.\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {i}" + (f": tokenizer {STEPS[i]}" if i in STEPS else ""))
        shas.append(git(root, "rev-parse", "HEAD"))
    return shas


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=14)
    parser.add_argument("--forks", default="5")
    parser.add_argument("--iterations", default="5")
    parser.add_argument("--iteration-time", default="50ms")
    parser.add_argument("--metric", choices=["cpu", "instructions", "time"], default="cpu")
    parser.add_argument("--keep", type=Path, help="build the history here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    os.environ.pop("WORDSTAT_SLOW", None)
    os.environ.setdefault("BENCHWARDEN_MACHINE", "history-live")
    work = args.keep or Path(tempfile.mkdtemp(prefix="history-live-"))
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")
    root = work / "wordstat"
    shas = build(root, args.commits, args.metric)
    config = str(root / "benchwarden.toml")
    load = os.getloadavg()[0]
    started = time.monotonic()
    code, out, err = bw("backfill", f"{shas[0]}..main", "--config", config, "--filter", FILTER, "--forks", args.forks,
                        "--iterations", args.iterations, "--iteration-time", args.iteration_time, "--quiet", "--json")
    elapsed = time.monotonic() - started
    if code != 0:
        sys.exit(f"backfill failed ({code}): {err}")
    code, out, err = bw("history", "--config", config, "--json")
    if code != 0:
        sys.exit(f"history failed ({code}): {err}")
    [series] = json.loads(out)["series"]
    print(f"{args.commits - 1} commits backfilled in {elapsed:.0f} s ({args.forks} forks x {args.iterations} x "
          f"{args.iteration_time}, metric {args.metric}), load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    print("means (ns/op):", [round(p["mean_ns"]) for p in series["points"]])
    print(f"noise run to run: {series['noise']['run_to_run']:.1%}, between forks: "
          f"{series['noise']['between_forks']:.1%}")
    index = {sha: i for i, sha in enumerate(shas)}
    for c in series["change_points"]:
        print(f"change point: commit {index[c['before']]}..{index[c['after']]}  ratio {c['ratio']:.3f} "
              f"[{c['low']:.3f}, {c['high']:.3f}]  p {c['p_value']:.2g}  ({c['step_sigmas']:.1f} sigma)")
    print("true changes: commit 5..6 (+10 %, medium), commit 9..10 (back to +4 %, small)")


if __name__ == "__main__":
    main_()
