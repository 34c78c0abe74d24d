"""Does the Go tracer of `benchwarden affected` see every function a benchmark runs? Checked against `go test -cover`.

Selection is only as sound as the traces: a function a benchmark runs but its trace misses would let a change to
it go unmeasured. Go's coverage instrumentation is an independent witness (the compiler's, not our rewriter's):
for each benchmark of ``--suite`` the script traces it as `affected` does (every function, one short fork) and
runs it once more under ``go test -bench ^Name$ -benchtime 1x -coverpkg ./... -coverprofile``; every function
with covered statements must be in the trace — except ``init`` functions and code under ``testdata/``, which
selection never attributes (a change to them affects every benchmark). It prints per benchmark the functions covered, traced, and
*missed* (covered, not traced: a soundness failure), and the functions traced but not covered (coverage ran
b.N = 1; the trace's fork ran longer, so it may reach more).

Usage: ``python benchmarks/affected_reach_check.py --config PATH/benchwarden.toml [--suite NAME] [--filter RE]``.
Results: docs/code-level.md ("Affected benchmarks").
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.assess.inject import GoInjector, module_root  # noqa: E402
from benchwarden.assess.reach import trace_benchmarks  # noqa: E402
from benchwarden.codelevel.go_code import go_units  # noqa: E402
from benchwarden.config import load_config  # noqa: E402
from benchwarden.runner.engine import plan_run  # noqa: E402

COVER_LINE = re.compile(r"^(?P<file>\S+\.go):(?P<line>\d+):\s+(?P<func>\S+)\s+(?P<pct>[\d.]+)%$")


def covered_functions(module_dir: Path, module_path: str, package: str, bench: str, out: Path) -> set[str]:
    """Qualified names (the tracer's notation) of every function with covered statements in one benchmark run."""
    profile = out / f"{re.sub(r'[^A-Za-z0-9]', '_', bench)}.out"
    subprocess.run(["go", "test", "-run", "^$", "-bench", f"^{bench}$", "-benchtime", "1x", "-coverpkg", "./...",
                    "-coverprofile", str(profile), package], cwd=module_dir, check=True, capture_output=True,
                   timeout=600)
    listing = subprocess.run(["go", "tool", "cover", "-func", str(profile)], cwd=module_dir, check=True,
                             capture_output=True, text=True).stdout
    names: set[str] = set()
    units_by_file: dict[str, dict[int, str]] = {}
    for line in listing.splitlines():
        m = COVER_LINE.match(line.strip())
        if not m or float(m["pct"]) == 0.0:
            continue
        file = m["file"]
        if file not in units_by_file:
            rel = file[len(module_path) + 1:] if file.startswith(module_path + "/") else file
            directory = str(Path(rel).parent)
            import_path = module_path if directory == "." else f"{module_path}/{directory}"
            units = go_units(import_path, (module_dir / rel).read_bytes())
            units_by_file[file] = {method.line: name for name, method in units.methods.items()}
        name = units_by_file[file].get(int(m["line"]))
        if m["func"] == "init" or "/testdata/" in f"/{file}":
            continue  # init functions and testdata are skeleton / untraced code: any change affects everything
        names.add(name or f"{file}:{m['line']} {m['func']} (no function at that line)")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--suite")
    parser.add_argument("--filter")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    (suite,) = config.select(args.suite) if args.suite else config.select(None)[:1]
    module_dir = module_root(suite.context.root)
    module_path = next(line.split()[1] for line in (module_dir / "go.mod").read_text().splitlines()
                       if line.startswith("module "))
    with tempfile.TemporaryDirectory(prefix="reach-check-") as tmp:
        work = Path(tmp)
        tracing = GoInjector().tracing(suite, ["all"], work / "trace", None, every_method=True)
        plan = plan_run([tracing.suite], args.filter)
        reach = trace_benchmarks(plan.benchmarks, tracing, work / "trace")
        total_missed = 0
        print("| benchmark | covered | traced | missed (covered, not traced) | traced, not covered |")
        print("|---|---:|---:|---|---:|")
        for p in plan.benchmarks:
            key = p.benchmark.id.key
            bench = key.split("[", 1)[0].split("/", 1)[0]
            package = "./" + str(Path(p.benchmark.id.name).parent) if "/" in p.benchmark.id.name else "."
            traced = {m for m, n in reach.calls.get(key, {}).items() if n > 0}
            covered = covered_functions(module_dir, module_path, package, bench, work)
            missed = sorted(covered - traced)
            total_missed += len(missed)
            print(f"| {key} | {len(covered)} | {len(traced)} | {', '.join(missed) or '–'} | "
                  f"{len(traced - covered)} |", flush=True)
        print(f"\n{len(plan.benchmarks)} benchmarks, {total_missed} covered functions missing from the traces"
              f"{'' if not reach.failed else f'; traces failed: {sorted(reach.failed)}'}")
    return 1 if total_missed else 0


if __name__ == "__main__":
    sys.exit(main())
