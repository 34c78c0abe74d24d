"""`site build` on a synthetic store of 100 benchmarks × 50 runs: build time, where it goes, and the size of each page.

Issue #17's target: **build ≤ 10 s**, **every page ≤ 1 MB** apart from the shared assets (plotly.min.js).  The store
is tests/support/site_store.py's (one machine, one run per commit, 3 forks × (2 warmup + 5 measurement) iterations
per benchmark, a step at 60 % of the commits in every third benchmark, a parameter family, hostile names, one
comparison session), written to a fresh SQLite file; the build runs the product's own code path (``collect`` then
``build_site``) in this process, so the figures exclude interpreter start-up and imports (measured separately as
the CLI's wall time).

Usage: ``python benchmarks/site_build.py [--benchmarks 100] [--runs 50] [--out DIR] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", type=Path, help="folder for the store and the site (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    from benchwarden.site.build import build_site
    from benchwarden.site.collect import collect
    from benchwarden.store import open_store
    from tests.support.site_store import make_store

    work = args.out or Path(tempfile.mkdtemp(prefix="site-build-"))
    work.mkdir(parents=True, exist_ok=True)
    store_path = work / "results.db"
    if store_path.exists():
        store_path.unlink()
    started = time.perf_counter()
    make_store(str(store_path), n_benchmarks=args.benchmarks, commits=args.runs)
    print(f"store: {args.benchmarks} benchmarks × {args.runs} runs written in {time.perf_counter() - started:.1f} s "
          f"({store_path.stat().st_size / 1e6:.1f} MB)")
    load = os.getloadavg()[0]

    t0 = time.perf_counter()
    with open_store(str(store_path)) as store:
        data = collect(store, None)
    t1 = time.perf_counter()
    report = build_site(data, work / "site")
    t2 = time.perf_counter()
    sizes = sorted(report.pages.values())
    largest = max(report.pages.items(), key=lambda item: item[1])
    bench_sizes = [v for k, v in report.pages.items() if k.startswith("benchmarks/")]

    cli_started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchwarden", "site", "build", "--store", str(store_path), "-o",
                           str(work / "site-cli"), "--repo", str(work)], capture_output=True, text=True, check=False)
    cli_s = time.perf_counter() - cli_started
    if done.returncode != 0:
        raise SystemExit(f"the CLI failed: {done.stderr}")

    figures = {
        "benchmarks": args.benchmarks, "runs": args.runs, "load_average_1m": round(load, 2),
        "collect_s": round(t1 - t0, 2), "render_write_s": round(t2 - t1, 2), "build_s": round(t2 - t0, 2),
        "cli_wall_s": round(cli_s, 2), "pages": len(report.pages), "largest_page": largest[0],
        "largest_page_bytes": largest[1], "median_page_bytes": sizes[len(sizes) // 2],
        "benchmark_page_bytes": [min(bench_sizes), max(bench_sizes)], "index_bytes": report.pages["index.html"],
        "assets_bytes": report.assets, "total_pages_bytes": sum(sizes),
    }
    print(json.dumps(figures, indent=2))
    target = figures["build_s"] <= 10 and largest[1] <= 1_000_000
    print(f"target (build <= 10 s, every page <= 1 MB): {'met' if target else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
