"""`benchwarden affected` over a real project's history: how many benchmarks each commit lets us skip.

For each of the last ``--commits`` first-parent commits C of the repository holding ``--config``, selects the
benchmarks of ``--suite`` that C~1 → C affects (``codelevel.selector.find_affected``: changed methods, both
revisions traced), and prints per commit what changed, how many benchmarks are affected, and the time taken;
then the share of benchmark runs a CI that measures only affected benchmarks would skip. Revision worktrees are
cached (``$XDG_CACHE_HOME/benchwarden``), so a rerun skips the builds but traces again.

Usage: ``python benchmarks/affected_history.py --config PATH/benchwarden.toml [--suite NAME] [--commits 10]
[--filter REGEX] [--json OUT]``. Results: docs/code-level.md ("Affected benchmarks") and docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.codelevel.selector import find_affected  # noqa: E402
from benchwarden.config import load_config  # noqa: E402
from benchwarden.revisions import repository_root  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--suite")
    parser.add_argument("--commits", type=int, default=10)
    parser.add_argument("--filter")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    config = load_config(args.config)
    (suite,) = config.select(args.suite) if args.suite else config.select(None)[:1]
    repo = repository_root(config.root)
    commits = subprocess.run(["git", "rev-list", "--first-parent", f"--max-count={args.commits}", "HEAD"], cwd=repo,
                             check=True, capture_output=True, text=True).stdout.split()
    rows = []
    print("| commit | subject | changed methods | other changes | affected | traced | time |")
    print("|---|---|---:|---|---:|---|---:|")
    for commit in commits:
        subject = subprocess.run(["git", "log", "-1", "--format=%s", commit], cwd=repo, check=True,
                                 capture_output=True, text=True).stdout.strip()
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="affected-history-") as tmp:
            report = find_affected(suite, repo, f"{commit}~1", commit, args.filter, Path(tmp))
        elapsed = time.monotonic() - start
        other = "; ".join(f"{c.path}: {c.why}" for c in report.changes.other[:2]) + \
            (f" (+{len(report.changes.other) - 2})" if len(report.changes.other) > 2 else "")
        row = {"commit": commit[:8], "subject": subject, "changed_methods": [c.method for c in report.changes.methods],
               "other": [f"{c.path}: {c.why}" for c in report.changes.other], "ignored": list(report.changes.ignored),
               "affected": len(report.affected), "benchmarks": len(report.selections), "traced": report.traced,
               "trace_s": report.trace_s, "total_s": elapsed}
        rows.append(row)
        print(f"| {row['commit']} | {subject[:60].replace('|', '/')} | {len(row['changed_methods'])} | "
              f"{other.replace('|', '/') or '–'} | {row['affected']} of {row['benchmarks']} | "
              f"{'yes' if report.traced else 'no'} | {elapsed:.0f} s |", flush=True)
    runs = sum(r["benchmarks"] for r in rows)
    measured = sum(r["affected"] for r in rows)
    print(f"\n{len(rows)} commits: {measured} of {runs} benchmark runs affected, {1 - measured / runs:.1%} skipped; "
          f"{sum(1 for r in rows if r['traced'])} commits needed traces "
          f"(trace time {sum(r['trace_s'] for r in rows):.0f} s, total {sum(r['total_s'] for r in rows):.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
