"""`benchwarden run`: execute the selected benchmarks and store every iteration."""

from __future__ import annotations

import time
from dataclasses import replace

import click

from benchwarden import __version__
from benchwarden.cli.common import ExitStatus, Invocation, common_options
from benchwarden.cli.live import LiveProgress
from benchwarden.cli.render import print_summaries
from benchwarden.cli.store_access import store_url_for
from benchwarden.config import RunSettings, Suite, load_config
from benchwarden.environment import git_state, machine_info
from benchwarden.errors import BenchwardenError, ConfigError
from benchwarden.model import RunMeta, RunStatus
from benchwarden.report.summary import summarize_benchmark
from benchwarden.runner.engine import Runner, plan_run
from benchwarden.runner.progress import ProgressListener
from benchwarden.store import open_store
from benchwarden.units import format_duration, parse_duration_s


def _duration(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_duration_s(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("run")
@common_options
@click.option("--forks", type=click.IntRange(min=1), help="Static number of forks (sets min = max).")
@click.option("--warmup", type=click.IntRange(min=0), help="Warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork.")
@click.option("--iteration-time", callback=_duration, metavar="DURATION", help="Time per iteration, e.g. 1s, 200ms.")
@click.option("--stop", type=click.Choice(["static"]), help="Stop policy (default: from the config).")
@click.option("--resume", is_flag=False, flag_value="latest", default=None, metavar="[RUN]",
              help="Finish an interrupted run (default: the latest) without repeating its completed forks.")
@click.option("--label", help="A label stored with the run, e.g. a branch name.")
@click.option("--quiet", "-q", is_flag=True, help="No live progress; only the final table.")
def run_command(inv: Invocation, forks, warmup, iterations, iteration_time, stop, resume, label, quiet) -> int:
    """Run benchmarks and store every iteration of every fork.

    Each fork is a fresh process of the suite's own harness; warmup and measurement iterations are
    decided by the stop policy. Every fork is stored as soon as it ends, so an interrupted run loses
    no completed fork: finish it with `benchwarden run --resume`.
    """
    config = load_config(inv.config_path)
    store = open_store(store_url_for(inv))
    try:
        if resume is not None:
            run_id = store.resolve_run(None if resume == "latest" else resume)
            previous = store.load_run(run_id)
            if previous.status is RunStatus.COMPLETE:
                raise BenchwardenError(f"run {run_id} is already complete; nothing to resume")
            suites, cli_filter = _suites_from_snapshot(config, previous.meta.config, run_id)
            meta = None
        else:
            run_id = None
            suites = [_override(s, forks, warmup, iterations, iteration_time, stop) for s in config.select(inv.suite)]
            cli_filter = inv.filter
        listener: ProgressListener = ProgressListener()
        live = None if (quiet or inv.json) else LiveProgress(inv.console)
        if live is not None:
            listener = live
            live.__enter__()
        try:
            plan = plan_run(suites, cli_filter, listener=listener)
            if not plan.benchmarks:
                if live is not None:
                    live.__exit__(None, None, None)
                    live = None
                _report_failed_suites(inv, plan.failed_suites)
                raise BenchwardenError("no benchmark to run: " + (
                    "every selected suite failed to prepare" if plan.failed_suites else
                    "no benchmark matches the suite filters and --filter"))
            if run_id is None:
                meta = _meta(config, suites, cli_filter, plan.toolchain, label)
            outcome = Runner(store, listener).run(plan, meta, resume_run_id=run_id)
        finally:
            if live is not None:
                live.__exit__(None, None, None)
        summaries = [summarize_benchmark(r) for r in outcome.results]
        if inv.json:
            inv.emit_json({
                "run": outcome.run_id, "status": outcome.status.value, "elapsed_s": round(outcome.elapsed_s, 3),
                "failed_suites": {k: str(v) for k, v in outcome.failed_suites.items()},
                "benchmarks": [s.to_json() for s in summaries],
            })
        else:
            print_summaries(inv.console, summaries, title=f"run {outcome.run_id}")
            _report_failed_suites(inv, outcome.failed_suites)
            spent = sum(s.time_s for s in summaries)
            inv.console.print(f"run {outcome.run_id}: {outcome.status.value}, {len(summaries)} benchmarks, "
                              f"forks took {format_duration(spent)}, wall {format_duration(outcome.elapsed_s)}"
                              + (f" (resumed; {outcome.skipped_on_resume} already finished)" if run_id else ""))
        return ExitStatus.ERROR if outcome.failed else ExitStatus.OK
    finally:
        store.close()


def _override(suite: Suite, forks, warmup, iterations, iteration_time, stop) -> Suite:
    s: RunSettings = suite.settings
    if forks is not None:
        s = replace(s, forks_min=forks, forks_max=forks)
    if warmup is not None:
        s = replace(s, warmup_min=warmup, warmup_max=warmup)
    if iterations is not None:
        s = replace(s, iterations=iterations)
    if iteration_time is not None:
        s = replace(s, iteration_time_s=iteration_time)
    if stop is not None:
        s = replace(s, stop=stop)
    return replace(suite, settings=s)


def _snapshot(config, suites: list[Suite], cli_filter: str | None) -> dict:
    return {
        "config_path": str(config.path),
        "filter": cli_filter,
        "suites": {s.name: {"kind": s.kind, "root": str(s.context.root), "settings": s.settings.to_dict()}
                   for s in suites},
    }


def _suites_from_snapshot(config, snapshot, run_id: int) -> tuple[list[Suite], str | None]:
    """The suites of a stored run, with the settings it was started with (so a resume finishes it identically)."""
    stored = dict(snapshot.get("suites", {})) if isinstance(snapshot, dict) else {}
    if not stored:
        raise BenchwardenError(f"run {run_id} has no stored configuration; it cannot be resumed")
    missing = [n for n in stored if n not in config.suites]
    if missing:
        raise ConfigError(f"run {run_id} used suite(s) {', '.join(missing)}, which the config no longer defines",
                          str(config.path))
    suites = [replace(config.suites[n], settings=RunSettings.from_dict(v.get("settings", {})))
              for n, v in stored.items()]
    return suites, snapshot.get("filter")


def _meta(config, suites, cli_filter, toolchain, label) -> RunMeta:
    commit, dirty = git_state(config.root)
    return RunMeta(created_at=time.time(), tool_version=__version__, commit=commit, dirty=dirty,
                   machine=machine_info(), toolchain=dict(toolchain), config=_snapshot(config, suites, cli_filter),
                   label=label)


def _report_failed_suites(inv: Invocation, failed) -> None:
    for name, exc in failed.items():
        inv.err_console.print(f"error: suite {name}: {exc}", markup=False, highlight=False)
