"""``benchwarden backfill A..B``: measure past commits in their cached revision worktrees, one run per commit."""

from __future__ import annotations

import click

from benchwarden.cli.cluster_access import cluster_option, fork_placement, mix_machines_option
from benchwarden.cli.common import ExitStatus, Invocation, common_options, parse_duration_option, with_bound_flags
from benchwarden.cli.store_access import store_url_for


@click.command("backfill")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("commit_range", metavar="A..B")
@click.option("--every", type=click.IntRange(min=1), default=1, show_default=True,
              help="Measure every N-th commit of the range, counting back from B (B is always measured).")
@click.option("--forks", type=click.IntRange(min=1), help="Static number of forks (sets min = max).")
@click.option("--warmup", type=click.IntRange(min=0), help="Warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork.")
@click.option("--iteration-time", callback=parse_duration_option, metavar="DURATION",
              help="Time per iteration, e.g. 1s, 200ms.")
@click.option("--label", default="backfill", show_default=True, help="The label stored with each run.")
@click.option("--quiet", "-q", is_flag=True, help="No per-fork progress on stderr; one line per commit.")
@cluster_option
@mix_machines_option
def backfill_command(inv: Invocation, commit_range: str, every: int, forks, warmup, iterations, iteration_time,
                     label: str, quiet: bool, cluster: str | None, mix_machines: bool) -> int:
    """Measure the commits of A..B (after A, up to and including B, along first parents), one run each.

    Each commit is checked out into a cached worktree and built once (as `compare` does with revisions);
    a commit with a complete run on this machine (or, with --cluster, on that cluster) for the same suites and
    --filter is skipped, so the same command after an interruption measures only what is missing. Then
    `benchwarden history` shows the series.
    """
    from benchwarden.backfill import backfill, parse_range, thinned
    from benchwarden.cli.progress import run_progress
    from benchwarden.config import load_config
    from benchwarden.environment import machine_key
    from benchwarden.history.gitlog import commit_infos, range_commits
    from benchwarden.report.escaping import visible
    from benchwarden.revisions import repository_root
    from benchwarden.store import open_store
    from benchwarden.units import format_duration

    base, tip = parse_range(commit_range)
    config = load_config(inv.config_path)
    suites = [with_bound_flags(s, forks, warmup, iterations, iteration_time) for s in config.select(inv.suite)]
    repo = repository_root(config.root)
    every_commit = range_commits(repo, base, tip)
    if not every_commit:
        raise click.UsageError(f"{commit_range}: no commit after {base} up to {tip}")
    wanted = set(thinned([sha for sha, _ in every_commit], every))
    commits = [(sha, subject) for sha, subject in every_commit if sha in wanted]
    total = len(commits)

    def report(i: int, outcome) -> None:
        what = {"measured": f"measured: run {outcome.run_id}, {outcome.benchmarks} benchmark(s), "
                            f"{format_duration(outcome.elapsed_s)}",
                "skipped": f"skipped: run {outcome.run_id} already measured it",
                "failed": f"failed: {outcome.message}"}[outcome.state]
        inv.err_console.print(visible(f"[{i + 1}/{total}] {outcome.commit[:10]} {outcome.subject[:40]} — {what}"),
                              markup=False, highlight=False, style="red" if outcome.state == "failed" else None)

    store = open_store(store_url_for(inv))
    try:
        with run_progress(inv.err_console, quiet) as progress, \
                fork_placement(cluster, mix_machines, config, [s.context for s in suites], inv.err_console,
                               quiet) as placement:
            key = machine_key(placement.machine())
            outcomes = backfill(store, suites, repo, commits, inv.filter, config.path, label, progress, report,
                                placement)
        store.record_commits(list(commit_infos(repo, [sha for sha, _ in commits]).values()))
    finally:
        store.close()
    failed = [o for o in outcomes if o.state == "failed"]
    if inv.json:
        inv.emit_json({"range": commit_range, "every": every, "machine_key": key,
                       "commits": [o.to_json() for o in outcomes]})
    else:
        counts = {state: sum(o.state == state for o in outcomes) for state in ("measured", "skipped", "failed")}
        inv.console.print(f"{commit_range}: {counts['measured']} measured, {counts['skipped']} already measured, "
                          f"{counts['failed']} failed, on machine {visible(key)}; `benchwarden history` shows the "
                          "series")
    return ExitStatus.ERROR if failed else ExitStatus.OK
