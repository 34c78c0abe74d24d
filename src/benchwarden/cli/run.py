"""`benchwarden run`: execute the selected benchmarks and store every iteration."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import click

from benchwarden.cli.cluster_access import cluster_option, fork_placement, mix_machines_option
from benchwarden.cli.common import (
    ExitStatus,
    Invocation,
    common_options,
    param_option,
    parse_duration_option,
    reject_options,
    with_bound_flags,
    with_params,
)
from benchwarden.cli.store_access import store_url_for
from benchwarden.config import (
    CRITERIA,
    STOP_POLICIES,
    RunSettings,
    Suite,
    check_criterion,
    load_config,
    resolve_criteria,
)
from benchwarden.errors import BenchwardenError, ConfigError, in_suite
from benchwarden.report.escaping import visible
from benchwarden.units import format_duration

if TYPE_CHECKING:
    from benchwarden.model import RunMeta
    from benchwarden.runner.placement import Placement


@dataclass(frozen=True)
class _StoppingFlags:
    stop: str | None = None
    criteria: tuple[str, ...] | None = None
    thresholds: tuple[tuple[str, float], ...] = ()
    window: int | None = None


def _criteria_names(ctx, param, value):
    if value is None:
        return None
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    try:
        resolve_criteria((), list(names))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return names


def _thresholds(ctx, param, values):
    parsed = []
    for text in values:
        name, sep, number = text.partition("=")
        if not sep or name.strip() not in CRITERIA:
            raise click.BadParameter(f"expected NAME=VALUE with NAME one of {', '.join(CRITERIA)}, got {text!r}")
        try:
            parsed.append((name.strip(), float(number)))
        except ValueError:
            raise click.BadParameter(f"{text!r}: {number!r} is not a number") from None
    return tuple(parsed)


#: options that shape a new run; a resumed run keeps those it was started with (parameter names)
_RUN_SHAPING_OPTIONS = ("suite", "filter_", "forks", "warmup", "iterations", "iteration_time", "stop", "criteria",
                        "thresholds", "window", "params", "label")


@click.command("run")
@common_options("config", "suite", "filter", "store", "json")
@click.option("--forks", type=click.IntRange(min=1), help="Static number of forks (sets min = max).")
@click.option("--warmup", type=click.IntRange(min=0), help="Warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork.")
@click.option("--iteration-time", callback=parse_duration_option, metavar="DURATION", help="Time per iteration, e.g. 1s, 200ms.")
@click.option("--stop", type=click.Choice(list(STOP_POLICIES)),
              help="Stop policy (default: from the config, else dynamic).")
@click.option("--criteria", callback=_criteria_names, metavar="LIST",
              help=f"Criteria of the dynamic policy that must all agree, e.g. level,precision (the default) or "
                   f"cv (known: {', '.join(CRITERIA)}).")
@click.option("--threshold", "thresholds", multiple=True, callback=_thresholds, metavar="NAME=VALUE",
              help="Threshold of a chosen criterion, e.g. precision=0.03 or level=0.2 (repeatable).")
@click.option("--window", type=click.IntRange(min=1), help="Warmup window (stability values) of every chosen criterion.")
@click.option("--details", is_flag=True, help="Also print every stop checkpoint with its stability values.")
@click.option("--resume", is_flag=False, flag_value="latest", default=None, metavar="[RUN]",
              help="Finish an interrupted run (default: the latest) without repeating its completed forks.")
@param_option
@click.option("--label", help="A label stored with the run, e.g. a branch name.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr (a live line in a terminal, one line per "
              "fork elsewhere); only the final table.")
@cluster_option
@mix_machines_option
def run_command(inv: Invocation, forks, warmup, iterations, iteration_time, stop, criteria, thresholds, window,
                details, resume, params, label, quiet, cluster, mix_machines) -> int:
    """Run benchmarks and store every iteration of every fork.

    Each fork is a fresh process of the suite's own harness; warmup and measurement iterations are
    decided by the stop policy. Every fork is stored as soon as it ends, so an interrupted run loses
    no completed fork: finish it with `benchwarden run --resume`.
    """
    from benchwarden.cli.progress import run_progress
    from benchwarden.cli.render import print_summaries
    from benchwarden.cli.stopping import build_trails, print_stopping, reference_budgets, stopping_json
    from benchwarden.model import RunStatus
    from benchwarden.report.summary import summarize_benchmark
    from benchwarden.runner.engine import plan_run
    from benchwarden.store import open_store

    if resume is not None:
        reject_options(click.get_current_context(), _RUN_SHAPING_OPTIONS,
                       "--resume finishes a run with the suites, filter, bounds, stopping settings and label it "
                       "was started with")
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
            stopping = _StoppingFlags(stop, criteria, thresholds, window)
            suites = [with_params(_override(s, forks, warmup, iterations, iteration_time, stopping), params)
                      for s in config.select(inv.suite)]
            cli_filter = inv.filter
        with run_progress(inv.err_console, quiet) as progress, \
                fork_placement(cluster, mix_machines, config, [s.context for s in suites], inv.err_console,
                               quiet) as placement:  # stderr, also under --json
            plan = plan_run(suites, cli_filter, adapter_factory=placement.adapter_factory, listener=progress)
            runner = placement.runner(store, progress)
            if not plan.benchmarks:
                if quiet:  # otherwise the progress listener has already said why each suite failed
                    _report_failed_suites(inv, plan.failed_suites)
                raise BenchwardenError("no benchmark to run: " + (
                    "every selected suite failed to prepare" if plan.failed_suites else
                    "no benchmark matches the suite filters and --filter"))
            if run_id is None:
                meta = _meta(config, suites, cli_filter, plan.toolchain, label, placement)
            outcome = runner.run(plan, meta, resume_run_id=run_id)
            for line in outcome.ended_orphans:  # forks a killed benchwarden had left running
                inv.err_console.print(visible(f"run {run_id}: {line}"), markup=False, highlight=False)
        summaries = [summarize_benchmark(r) for r in outcome.results]
        trails = build_trails(outcome.results, {s.name: s.settings for s in suites},
                              reference_budgets(outcome.results, {s.name: (s.kind, s.context.root) for s in suites},
                                                plan.toolchain))
        if inv.json:
            inv.emit_json({
                "run": outcome.run_id, "status": outcome.status.value, "elapsed_s": round(outcome.elapsed_s, 3),
                "failed_suites": {k: str(v) for k, v in outcome.failed_suites.items()},
                "benchmarks": [s.to_json() for s in summaries],
                "stopping": stopping_json(trails),
            })
        else:
            print_summaries(inv.console, summaries, title=f"run {outcome.run_id}")
            print_stopping(inv.console, trails, details=details)
            _report_failed_suites(inv, outcome.failed_suites)
            spent = sum(s.time_s for s in summaries)
            inv.console.print(f"run {outcome.run_id}: {outcome.status.value}, {len(summaries)} benchmarks, "
                              f"forks took {format_duration(spent)}, wall {format_duration(outcome.elapsed_s)}"
                              + (f" (resumed; {outcome.skipped_on_resume} already finished)" if run_id else ""))
        return ExitStatus.ERROR if outcome.failed else ExitStatus.OK
    finally:
        store.close()


def _stopping(s: RunSettings, flags: _StoppingFlags, suite: str) -> RunSettings:
    """Apply --stop/--criteria/--threshold/--window; they win over the config at every level (overrides too)."""
    changed: dict = {}
    if flags.stop is not None:
        changed["stop"] = flags.stop
    if flags.criteria is not None or flags.thresholds or flags.window is not None:
        criteria = resolve_criteria(s.criteria, list(flags.criteria)) if flags.criteria else s.criteria
        by_name = {c.name: c for c in criteria}
        for name, value in flags.thresholds:
            if name not in by_name:
                raise click.BadParameter(f"criterion {name!r} is not chosen for suite {suite} "
                                         f"(criteria: {', '.join(by_name)}); add it with --criteria",
                                         param_hint="'--threshold'")
            by_name[name] = replace(by_name[name], threshold=value)
        if flags.window is not None:
            by_name = {n: replace(c, window=flags.window) for n, c in by_name.items()}
        try:
            for c in by_name.values():
                check_criterion(c)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--threshold'/'--window'") from None
        changed["criteria"] = tuple(by_name.values())
    return s.with_flags(**changed)


def _override(suite: Suite, forks, warmup, iterations, iteration_time, stopping: _StoppingFlags) -> Suite:
    settings = _stopping(suite.settings, stopping, suite.name)
    return with_bound_flags(suite, forks, warmup, iterations, iteration_time, settings=settings)


def _suites_from_snapshot(config, snapshot, run_id: int) -> tuple[list[Suite], str | None]:
    """The suites of a stored run, with the settings it was started with (so a resume finishes it identically)."""
    if isinstance(snapshot, dict) and snapshot.get("backfill_commit"):  # benchwarden.backfill.SNAPSHOT_KEY
        raise BenchwardenError(f"run {run_id} measured commit {str(snapshot['backfill_commit'])[:12]} for `backfill`; "
                               "run the same backfill again to finish it (`run --resume` would measure the working "
                               "tree under that commit)")
    stored = dict(snapshot.get("suites", {})) if isinstance(snapshot, dict) else {}
    if not stored:
        raise BenchwardenError(f"run {run_id} has no stored configuration; it cannot be resumed")
    missing = [n for n in stored if n not in config.suites]
    if missing:
        raise ConfigError(f"run {run_id} used suite(s) {', '.join(missing)}, which the config no longer defines",
                          str(config.path))
    try:
        suites = [replace(config.suites[n], settings=RunSettings.from_dict(v.get("settings", {})),
                          context=replace(config.suites[n].context,
                                          params={k: tuple(vs) for k, vs in v.get("params", {}).items()}))
                  for n, v in stored.items()]
    except (ValueError, TypeError, AttributeError) as exc:
        raise BenchwardenError(f"run {run_id}: its stored configuration is damaged ({exc}); it cannot be resumed"
                               ) from None
    return suites, snapshot.get("filter")


def _meta(config, suites, cli_filter, toolchain, label, placement: Placement) -> RunMeta:
    """The run's metadata; on a cluster the run's machine is the cluster, not the driver, so its history series
    does not join the driver's own runs (each fork records its worker; docs/distributed.md)."""
    from benchwarden.environment import collect_run_meta
    from benchwarden.runner.snapshot import run_snapshot

    snapshot = run_snapshot(config, suites, cli_filter)
    if placement.cluster is not None:
        snapshot["cluster"] = placement.cluster
    return placement.meta(collect_run_meta(config.root, toolchain=toolchain, config=snapshot, label=label))


def _report_failed_suites(inv: Invocation, failed) -> None:
    for name, exc in failed.items():
        inv.err_console.print(visible(f"error: {in_suite(name, exc)}", keep_newlines=True), markup=False, highlight=False)
