"""`benchwarden show [RUN]`: per-benchmark mean, CI, CV, forks and iterations used, time spent."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import click

from benchwarden.cli.common import ExitStatus, FiniteFloatRange, Invocation, common_options
from benchwarden.cli.store_access import store_for
from benchwarden.report.escaping import visible
from benchwarden.units import format_duration


@click.command("show")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("run", required=False)
@click.option("--confidence", type=FiniteFloatRange(0.5, 0.9999), default=0.99, show_default=True,
              help="Confidence level of the interval of the mean.")
@click.option("--details", is_flag=True, help="Also print every stop checkpoint with its stability values.")
def show_command(inv: Invocation, run: str | None, confidence: float, details: bool) -> int:
    """Show a stored run (default: the latest): mean, CI over forks x iterations, CV, effort per benchmark.

    Also how each benchmark stopped (warmup per fork, forks, warnings) and the time against the static
    budgets; --details adds every checkpoint. RUN is a run id, `latest`, or `latest~N` (the N-th run
    before the latest).
    """
    from benchwarden.cli.render import print_summaries
    from benchwarden.cli.stopping import (
        build_trails,
        print_stopping,
        reference_budgets,
        settings_from_snapshot,
        stopping_json,
    )
    from benchwarden.report.metric_summary import metric_summary_table, summarize_metrics
    from benchwarden.report.summary import summarize_benchmark
    from benchwarden.report.table import to_rich

    with store_for(inv) as store:
        run_id = store.resolve_run(run)
        data = store.load_run(run_id)
    results = list(inv.select_results(data).results)
    summaries = [summarize_benchmark(r, confidence=confidence) for r in results]
    metrics = [m for r in results for m in summarize_metrics(r)]
    trails = build_trails(results, settings_from_snapshot(data.meta.config),
                          reference_budgets(results, _suite_roots(data.meta.config), data.meta.toolchain))
    if inv.json:
        inv.emit_json({"run": run_id, "status": data.status.value, "commit": data.meta.commit,
                       "dirty": data.meta.dirty, "label": data.meta.label, "created_at": data.meta.created_at,
                       "machine": dict(data.meta.machine), "toolchain": dict(data.meta.toolchain),
                       "benchmarks": [s.to_json() for s in summaries], "stopping": stopping_json(trails),
                       "metrics": [m.to_json() for m in metrics]})
        return ExitStatus.OK
    meta = data.meta
    commit = (meta.commit[:12] + ("+dirty" if meta.dirty else "")) if meta.commit else "no commit"
    inv.console.print(visible(f"run {run_id} · {data.status.value} · {commit} · "
                              f"{meta.machine.get('cpu', '?')} · "
                              f"{', '.join(f'{k} {v}' for k, v in meta.toolchain.items())}"),
                      markup=False, highlight=False)
    print_summaries(inv.console, summaries, title=f"run {run_id}")
    if metrics:
        inv.console.print(to_rich(metric_summary_table(metrics, title="metrics (median of fork values; spread "
                                                                      "between forks)")))
    print_stopping(inv.console, trails, details=details)
    inv.console.print(f"forks took {format_duration(sum(s.time_s for s in summaries))} in total")
    return ExitStatus.OK


def _suite_roots(config: object) -> dict[str, tuple[str, Path | None]]:
    """Suite name -> (kind, source root) from a run's configuration snapshot (for reference budgets)."""
    suites = config.get("suites") if isinstance(config, Mapping) else None
    found: dict[str, tuple[str, Path | None]] = {}
    if isinstance(suites, Mapping):
        for name, entry in suites.items():
            if isinstance(entry, Mapping):
                root = entry.get("root")
                found[name] = (str(entry.get("kind", "")), Path(root) if isinstance(root, str) else None)
    return found
