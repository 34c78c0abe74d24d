"""What the network screening of Go tests costs (adapters/screening.py; docs/code-level.md, docs/performance.md).

Before a Go test's first fork per version, the ``gounit`` adapter runs it once, untimed, under ``strace``. This
script measures that execution against the very same execution without ``strace`` — the adapter's own command
line and environment (the driver with ``BENCHWARDEN_ITERATIONS=0``: the test's first run only) — for every test
of a ``gounit`` suite (or the first ``--tests``), alternating A B A B per test so that load and drift hit both.

Per test: the median wall time and CPU time (user + system of the process tree, ``wait4``) of ``--repeats``
executions each way; reported over the tests: the median of the differences (the screening's extra cost per
test), the median ratio, and the extra cost against one fork of the suite's settings (``iteration_time`` ×
(warmup minimum + iterations)), the fork the screening runs before.

Usage: ``.venv/bin/python benchmarks/screening_cost.py CONFIG [--suite NAME] [--tests 40] [--repeats 5]
[--json FILE]``, e.g. ``examples/go/benchwarden-unit.toml`` or a third-party module with a ``gounit`` suite
(docs/code-level.md names the one measured).
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.adapters import get_adapter, screening  # noqa: E402
from benchwarden.adapters.gounit import DRIVER_TEST  # noqa: E402
from benchwarden.config import load_config  # noqa: E402


def _execute(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one execution and every process it waited for (strace and the test binary)."""
    start = time.monotonic()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    return time.monotonic() - start, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--suite")
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    strace = screening.strace_path()
    if strace is None:
        raise SystemExit("strace is not on PATH: nothing to measure")
    config = load_config(args.config)
    name = args.suite or next(iter(config.suites))
    suite = config.suites[name]
    ctx = suite.context
    if ctx.kind != "gounit":
        raise SystemExit(f"suite {name!r} is {ctx.kind!r}, not gounit")
    adapter = get_adapter(ctx.kind)
    prepared = adapter.prepare(ctx)
    tests = [b for b in adapter.list_benchmarks(ctx) if not b.spec.get("refused")][: args.tests]
    settings = suite.settings
    fork_s = settings.iteration_time_s * (settings.warmup_min + settings.iterations)
    rows: list[dict[str, float]] = []
    names: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bw-screen-cost-") as tmp:
        log = Path(tmp) / "trace"
        for bench in tests:
            spec = bench.spec
            plain = [spec["binary"], "-test.run", f"^{DRIVER_TEST}$", "-test.count", "1"]
            env = {**os.environ, **ctx.env, "BENCHWARDEN_TEST": spec["test"], "BENCHWARDEN_ITERATION_NS": "1",
                   "BENCHWARDEN_ITERATIONS": "0", "BENCHWARDEN_REPETITIONS": "1"}
            times: dict[str, list[tuple[float, float]]] = {"plain": [], "screened": []}
            for _ in range(args.repeats):
                times["plain"].append(_execute(plain, spec["package_dir"], env))
                times["screened"].append(_execute([*screening.strace_argv(strace, log), *plain],
                                                  spec["package_dir"], env))
            med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
                   for k, v in times.items()}
            names.append(str(bench.id))
            rows.append({"plain_wall_s": med["plain"][0], "plain_cpu_s": med["plain"][1],
                         "screened_wall_s": med["screened"][0], "screened_cpu_s": med["screened"][1]})
            print(f"{bench.id}: {med['plain'][0] * 1e3:.1f} -> {med['screened'][0] * 1e3:.1f} ms wall, "
                  f"{med['plain'][1] * 1e3:.1f} -> {med['screened'][1] * 1e3:.1f} ms CPU", file=sys.stderr)
    extra_wall = [r["screened_wall_s"] - r["plain_wall_s"] for r in rows]
    extra_cpu = [r["screened_cpu_s"] - r["plain_cpu_s"] for r in rows]
    summary = {
        "suite": name, "toolchain": prepared.toolchain, "tests": len(rows), "repeats": args.repeats,
        "load average": os.getloadavg(), "strace": shutil.which("strace"),
        "extra wall per test, median s": statistics.median(extra_wall),
        "extra wall per test, max s": max(extra_wall),
        "extra CPU per test, median s": statistics.median(extra_cpu),
        "wall ratio screened / plain, median": statistics.median(r["screened_wall_s"] / r["plain_wall_s"] for r in rows),
        "one fork of the suite's settings s": fork_s,
        "extra wall against one fork, median": statistics.median(extra_wall) / fork_s if fork_s else None,
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "tests": dict(zip(names, rows))}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
