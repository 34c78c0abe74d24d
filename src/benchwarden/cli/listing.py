"""`benchwarden list`: what a run would measure — the benchmarks --suite and --filter select, with bounds and time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from benchwarden.cli.common import (
    ExitStatus,
    Invocation,
    common_options,
    param_option,
    parse_duration_option,
    with_bound_flags,
    with_params,
)
from benchwarden.report.escaping import visible

if TYPE_CHECKING:
    from benchwarden.report.plan_table import PlannedRow
    from benchwarden.runner.engine import Plan


@click.command("list")
@common_options("config", "suite", "filter", "json")
@click.option("--forks", type=click.IntRange(min=1), help="As for run: static number of forks (sets min = max).")
@click.option("--warmup", type=click.IntRange(min=0), help="As for run: warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="As for run: measurement iterations per fork.")
@click.option("--iteration-time", callback=parse_duration_option, metavar="DURATION",
              help="As for run: time per iteration, e.g. 1s, 200ms.")
@param_option
def list_command(inv: Invocation, forks, warmup, iterations, iteration_time, params) -> int:
    """List the benchmarks a run would measure, with their fork and iteration bounds and a time range.

    Builds and lists each selected suite exactly as `run` does (a suite that does not build is reported
    here, not an hour later) and measures nothing. The bound flags are those of `run`, to preview their
    effect. The time range covers the iterations: fewest (every bound at its minimum) to most (the
    static budget); process start-up comes on top.
    """
    from benchwarden.cli.progress import run_progress
    from benchwarden.config import load_config
    from benchwarden.errors import BenchwardenError
    from benchwarden.report.plan_table import plan_summary, plan_table
    from benchwarden.report.table import to_rich
    from benchwarden.runner.engine import plan_run

    config = load_config(inv.config_path)
    suites = [with_params(with_bound_flags(s, forks, warmup, iterations, iteration_time), params)
              for s in config.select(inv.suite)]
    with run_progress(inv.err_console) as progress:
        plan = plan_run(suites, inv.filter, listener=progress, measure=False)
    rows = planned_rows(plan)
    if inv.json:
        inv.emit_json({"benchmarks": [r.to_json() for r in rows],
                       "failed_suites": {k: str(v) for k, v in plan.failed_suites.items()}})
    else:
        if rows:
            inv.console.print(to_rich(plan_table(rows)))
            inv.console.print(visible(plan_summary(rows)), markup=False, highlight=False)
        else:
            inv.console.print("no benchmark selected" + (f" by --filter {visible(inv.filter)!r}" if inv.filter else ""),
                              markup=False, highlight=False)
    if plan.failed_suites and not rows:  # each suite's failure was printed as it happened
        raise BenchwardenError("no benchmark to list: every selected suite failed to prepare or list")
    return ExitStatus.ERROR if plan.failed_suites else ExitStatus.OK


def planned_rows(plan: Plan) -> list[PlannedRow]:
    """The plan's benchmarks with the settings that apply to each (overrides included)."""
    from benchwarden.report.plan_table import PlannedRow

    rows = []
    for p in plan.benchmarks:
        s = p.settings
        b = p.benchmark
        rows.append(PlannedRow(suite=b.id.suite, key=b.id.key, name=b.id.name, mode=b.mode, unit=b.unit,
                               stop=s.stop, warmup_min=s.warmup_min, warmup_max=s.warmup_max,
                               iterations=s.iterations, forks_min=s.forks_min, forks_max=s.forks_max,
                               iteration_time_s=s.iteration_time_s))
    return rows
