"""Start-up CPU time of the CLI against `python -c 'import click'`, measured in the same run.

A command line tool is started far more often than it runs benchmarks: `--help`, `runs` and `show`
are typed by people and by CI scripts. Each command below runs in a fresh interpreter ``--repeat``
times; the figure is the median CPU time (user + system of the child, from ``getrusage``), which, unlike
wall time, barely moves on a loaded machine. The reference is the same interpreter importing click
alone, so the ratio says what benchwarden adds on top of the one library every command needs.

The store for `runs` and `show` is a SQLite file with 20 imported runs (3 benchmarks x 5 forks each).

Usage: ``.venv/bin/python benchmarks/startup.py [--repeat 15] [--target 0.3]``; exit status 1 when
`--help` or `runs` exceeds the target (seconds of CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_RUN = ROOT / "tests" / "data" / "store" / "run-v1.json"

COMMANDS = {
    "--help": ["--help"],
    "runs": ["runs"],
    "run --help": ["run", "--help"],
    "compare --help": ["compare", "--help"],
    "show": ["show"],
}
TARGETS = ("--help", "runs")


def cpu_seconds(argv: list[str], cwd: Path, repeat: int) -> list[float]:
    """CPU time (user + sys) of each of ``repeat`` runs of ``argv``; output discarded, exit status checked."""
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "COLUMNS": "100"})
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
        times.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--target", type=float, default=0.3, help="CPU seconds allowed for --help and runs")
    args = parser.parse_args()
    benchwarden = [sys.executable, "-m", "benchwarden"]
    with tempfile.TemporaryDirectory(prefix="bw-startup-") as tmp:
        project = Path(tmp)
        (project / "benchwarden.toml").write_text('[suites.demo]\nkind = "command"\ncommands = { noop = "true" }\n')
        for _ in range(20):
            subprocess.run([*benchwarden, "import", str(SAMPLE_RUN)], cwd=project, check=True,
                           stdout=subprocess.DEVNULL)
        cpu_seconds([sys.executable, "-c", "pass"], project, 3)  # warm the file cache and .pyc files
        for argv in COMMANDS.values():
            cpu_seconds([*benchwarden, *argv], project, 2)
        reference = statistics.median(cpu_seconds([sys.executable, "-c", "import click"], project, args.repeat))
        rows = {"import click (reference)": reference}
        for name, argv in COMMANDS.items():
            rows[name] = statistics.median(cpu_seconds([*benchwarden, *argv], project, args.repeat))
    load = os.getloadavg()
    print(json.dumps({"repeat": args.repeat, "load": [round(x, 2) for x in load],
                      "median_cpu_s": {k: round(v, 4) for k, v in rows.items()}}))
    print("\n| command | median CPU | × `import click` |\n|---|---:|---:|")
    for name, value in rows.items():
        print(f"| `{name}` | {value * 1000:.0f} ms | {value / reference:.1f} |")
    over = [name for name in TARGETS if rows[name] > args.target]
    if over:
        print(f"\nover the {args.target:g} s target: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
