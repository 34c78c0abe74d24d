"""Where a `compare`'s CPU time goes: its forks, the other processes it starts, its own interpreter (issue #11).

Copies the Go example (``metric = "cpu"``), then runs ``--compares`` A/A compares of
``BenchmarkTokenize[size=1000]`` at the 4-pair minimum (``--max-forks 4``, 5 × 50 ms: benchstat's 1 s of
iterations per version) — each in a fresh interpreter that imports benchwarden itself, so that its own CPU time
(``RUSAGE_SELF``, imports included) and its children's (``RUSAGE_CHILDREN``) can be told apart, and the HTML
report's share is timed around ``write_outputs``. The forks' share is compare's own ``machine_time_s`` (their
wall time, ≈ their CPU time on a quiet machine). It also reports:

* what importing ``scipy.stats``, ``scipy.special`` and the compare path costs in a fresh interpreter;
* a Go test binary's start-up: the CPU time (``wait4``) of a ``-test.benchtime 2x`` execution, the two-point
  fork's short execution (a fresh process costs this per iteration).

Usage: ``.venv/bin/python benchmarks/compare_cost.py [--compares 6] [--json FILE]``. About 10 s per compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ONE_COMPARE = r"""
import io, json, resource, sys
def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime
from benchwarden.cli import main
import benchwarden.cli.compare as command
report = {}
write = command.write_outputs
def timed(*args, **kwargs):
    before = cpu(resource.RUSAGE_SELF)
    try:
        return write(*args, **kwargs)
    finally:
        report["report_cpu_s"] = cpu(resource.RUSAGE_SELF) - before
command.write_outputs = timed
out = io.StringIO()
real, sys.stdout = sys.stdout, out
try:
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
finally:
    sys.stdout = real
data = json.loads(out.getvalue())
report.update(self_cpu_s=cpu(resource.RUSAGE_SELF), children_cpu_s=cpu(resource.RUSAGE_CHILDREN),
              machine_time_s=data["machine_time_s"], pairs=data["benchmarks"][0]["forks"]["base"])
print(json.dumps(report))
"""

IMPORTS = "import time; t = time.process_time(); import {m}; print(time.process_time() - t)"


def _import_cpu_s(module: str, repeats: int = 3) -> float:
    return statistics.median(float(subprocess.run([sys.executable, "-c", IMPORTS.format(m=module)], check=True,
                                                  capture_output=True, text=True).stdout) for _ in range(repeats))


def _startup_cpu_ms(binary: Path, cwd: Path, repeats: int = 15) -> float:
    got = []
    for _ in range(repeats):
        process = subprocess.Popen([str(binary), "-test.run", "^$", "-test.bench", "^BenchmarkTopK$",
                                    "-test.benchtime", "2x", "-test.count", "1"], cwd=cwd,
                                   env={**os.environ, "GOMAXPROCS": "1"}, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here
        got.append((usage.ru_utime + usage.ru_stime) * 1e3)
    return statistics.median(got)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compares", type=int, default=6)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bw-compare-cost-") as tmp:
        root = Path(tmp) / "go"
        shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
        config = root / "benchwarden.toml"
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("[suites.wordstat]\n", '[suites.wordstat]\nmetric = "cpu"\n', 1),
                          encoding="utf-8")
        for seed in range(1, args.compares + 1):
            argv = ["compare", "--config", str(config), "--suite", "wordstat", "--filter",
                    r"BenchmarkTokenize\[size=1000\]", "--iteration-time", "50ms", "--iterations", "5",
                    "--seed", str(seed), "--pairing", "auto", "--max-forks", "4", "--json", "-q",
                    "WORKTREE", "WORKTREE"]
            done = subprocess.run([sys.executable, "-c", ONE_COMPARE, *argv], cwd=root, capture_output=True,
                                  text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(rows[-1], file=sys.stderr)
        binary = Path(tmp) / "wordstat.test"
        subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=root, check=True)
        startup_ms = _startup_cpu_ms(binary, root)

    def span(key: str) -> str:
        values = [r[key] for r in rows]
        return f"{min(values):.2f}–{max(values):.2f} s"

    for r in rows:
        r["other_children_cpu_s"] = r["children_cpu_s"] - r["machine_time_s"]
        r["whole_cpu_s"] = r["self_cpu_s"] + r["children_cpu_s"]
    summary = {
        "compares": len(rows), "pairs": sorted({r["pairs"] for r in rows}),
        "load average": os.getloadavg(),
        "forks (machine_time_s)": span("machine_time_s"),
        "other children (children − forks)": span("other_children_cpu_s"),
        "children in all": span("children_cpu_s"),
        "own interpreter": span("self_cpu_s"),
        "of which the HTML report": span("report_cpu_s"),
        "whole compare": span("whole_cpu_s"),
        "import cpu s (fresh interpreter, median of 3)": {
            m: round(_import_cpu_s(m), 3) for m in ("scipy.special", "scipy.stats", "benchwarden.compare.session",
                                                   "benchwarden.report.html")},
        "Go test binary, 2x execution, CPU ms (median of 15)": round(startup_ms, 2),
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "compares": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
