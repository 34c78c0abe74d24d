"""``benchwarden assess``: variability per benchmark and the API benchmarking score by real slowdown injection."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from benchwarden.cli.cluster_access import cluster_option, fork_placement, mix_machines_option
from benchwarden.cli.common import ExitStatus, Invocation, common_options, parse_duration_option
from benchwarden.cli.store_access import store_url_for
from benchwarden.errors import BenchwardenError, ConfigError, UsageError, in_suite
from benchwarden.report.escaping import rich_text

if TYPE_CHECKING:
    from benchwarden.assess.campaign import AssessOptions, SuiteAssessment
    from benchwarden.assess.methods import AssessSettings
    from benchwarden.config import Config, Suite
    from benchwarden.runner.placement import Placement

SCRATCH_STORE = "assess-slowed.db"


def _slowdown_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[float | None] | None:
    """``--slowdown``: ``(v,)`` with v None for "study"; None when not given."""
    from benchwarden.assess.methods import parse_slowdown

    if value is None:
        return None
    try:
        return (parse_slowdown(value),)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("assess")
@common_options("config", "suite", "filter", "store", "json")
@click.option("--runs", type=click.IntRange(min=2), help="Baseline runs for the variability (default 5, [assess] runs).")
@click.option("--methods", "methods", multiple=True, metavar="METHOD",
              help="A method of K′ (repeatable); default: [assess] methods, else the most-called public methods.")
@click.option("--top", type=click.IntRange(min=1), help="Size of an automatically found K′ (default 20).")
@click.option("--slowdown", callback=_slowdown_option, metavar="V",
              help="Slowdown to inject: 10%, 0.1, or 'study' (twice the 95th-percentile maxSpread). Default 10%.")
@click.option("--budget", callback=parse_duration_option, metavar="DURATION", help="Time budget of the smoke subset (default 10m).")
@click.option("--rule", type=click.Choice(["compare", "study"]),
              help="Detection rule: compare's verdict, sequential (default), or the study's two repetitions.")
@click.option("--min-forks", type=click.IntRange(min=1, max=100),
              help="Rule compare: slowed forks per (method, benchmark) before the first look (default 2).")
@click.option("--max-forks", type=click.IntRange(min=2, max=100),
              help="Rule compare: slowed forks per (method, benchmark) at most (default 5).")
@click.option("--stubs", "stubs_dir", type=click.Path(path_type=Path, file_okay=False),
              help="Write a benchmark stub per uncovered method into this directory.")
@click.option("--html", "html_file", type=click.Path(path_type=Path, dir_okay=False), help="Write an HTML report.")
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
@cluster_option
@mix_machines_option
def assess_command(inv: Invocation, runs, methods, top, slowdown, budget, rule, min_forks, max_forks, stubs_dir,
                   html_file, quiet, cluster, mix_machines) -> int:
    """Assess the suite: how stable each benchmark is, and which core API methods it would notice getting slower.

    Runs the suite N times (reusing stored runs of the same commit), slows each method of K′ down for
    real (Java agent, Go source rewrite, Python import hook) by 10 % unless told otherwise, runs the
    benchmarks that reach it until compare's verdict decides whether each notices, and reports the API
    benchmarking score (Laaber & Leitner, MSR 2018), the smallest slowdown detected per method, a CI
    smoke subset and stubs.
    """
    from benchwarden.assess.campaign import Campaign
    from benchwarden.assess.export import assessment_to_json
    from benchwarden.assess.methods import AssessSettings
    from benchwarden.config import load_config
    from benchwarden.report.assess_html import assessment_html
    from benchwarden.runner.engine import RunInterrupted
    from benchwarden.store import open_store

    config = load_config(inv.config_path)
    settings = cast(AssessSettings, config.section("assess", AssessSettings))
    for name, value in (("--min-forks", min_forks), ("--max-forks", max_forks)):
        if value is not None and (rule or settings.rule) == "study":
            raise UsageError(f"{name} applies to the compare rule; the study's rule runs [assess] repetitions")
    lowest = min_forks if min_forks is not None else settings.min_forks
    highest = max_forks if max_forks is not None else settings.max_forks
    if lowest > highest:
        raise UsageError(f"the first look after {lowest} slowed forks (--min-forks / [assess] min_forks) comes "
                         f"after the last, {highest} (--max-forks / [assess] max_forks)")
    suites = _assessable(config, inv.suite)
    log = (lambda message: None) if (quiet or inv.json) else \
        (lambda message: inv.err_console.print(f"assess: {rich_text(message)}", highlight=False))
    store_url = store_url_for(inv)
    store = open_store(store_url)
    scratch = open_store(_scratch_location(store_url, config))
    docs, failures = [], 0
    try:
        with fork_placement(cluster, mix_machines, config, [s.context for s in suites], inv.err_console,
                            quiet) as placement, \
                tempfile.TemporaryDirectory(prefix="benchwarden-assess-", dir=_workdir_parent(config, placement)) \
                as workdir:
            for suite in suites:
                options = _options(settings, suite, config, inv, runs, methods, top, slowdown, budget, rule, (lowest, highest))
                log(f"suite {suite.name}: {options.runs} baseline runs, then slowdown injection")
                try:
                    result = Campaign(suite, store, scratch, Path(workdir) / suite.name, options, log=log,
                                      placement=placement).run()
                except BenchwardenError as exc:
                    if isinstance(exc, RunInterrupted):  # Ctrl-C (or the cluster's scheduler lost): stop here
                        raise
                    failures += 1
                    inv.err_console.print(f"error: {rich_text(in_suite(suite.name, exc))}", highlight=False)
                    continue
                docs.append(assessment_to_json(result))
                if stubs_dir is not None:
                    _write_stubs(result, stubs_dir, inv)
    finally:
        store.close()
        scratch.close()
    if html_file is not None and docs:
        html_file.write_bytes(assessment_html(docs))
    if inv.json:
        inv.emit_json({"v": 1, "suites": docs})
    else:
        for doc in docs:
            _print(inv, doc)
        if html_file is not None and docs:
            inv.console.print(f"HTML report: {rich_text(str(html_file))}")
    return ExitStatus.ERROR if failures else ExitStatus.OK


def _assessable(config: Config, names: tuple[str, ...]) -> list[Suite]:
    from benchwarden.assess.inject import INJECTORS

    selected = config.select(names)
    kinds = ", ".join(sorted(INJECTORS))
    if names:
        bad = [s.name for s in selected if s.kind not in INJECTORS]
        if bad:
            raise UsageError(f"suite(s) {', '.join(bad)} cannot be assessed: slowdown injection exists for suites "
                             f"of kind {kinds}")
    suites = [s for s in selected if s.kind in INJECTORS]
    if not suites:
        raise ConfigError(f"no suite to assess: slowdown injection exists for suites of kind {kinds}", str(config.path))
    return suites


def _options(settings: AssessSettings, suite: Suite, config: Config, inv: Invocation, runs, methods, top,
             slowdown, budget, rule, forks: tuple[int, int]) -> AssessOptions:
    from benchwarden.assess.campaign import AssessOptions
    from benchwarden.assess.methods import check_method
    from benchwarden.compare.settings import CompareSettings

    chosen = list(methods) if methods else list(settings.methods)
    checked = []
    for m in chosen:
        try:
            checked.append(check_method(suite.kind, m))
        except ValueError as exc:
            if methods:
                raise UsageError(f"--methods: {exc}") from None
            raise ConfigError(str(exc), str(config.path), "assess.methods") from None
    test_command = settings.test_command
    if isinstance(test_command, str):
        import shlex

        test_command = shlex.split(test_command)
    if slowdown is not None:
        value, source = slowdown[0], "--slowdown"
    else:
        value, source = settings.slowdown, "[assess] slowdown" if "slowdown" in settings.model_fields_set else "default"
    compare = cast(CompareSettings, config.section("compare", CompareSettings))
    return AssessOptions(
        runs=runs or settings.runs, repetitions=settings.repetitions,
        slowdown=value, slowdown_source=source, methods=tuple(checked),
        top=top or settings.top, discover=settings.discover,
        test_command=tuple(test_command) if test_command else None, packages=tuple(settings.packages),
        budget_s=budget if budget is not None else settings.budget, unstable_cv=settings.unstable_cv,
        unstable_spread=settings.unstable_spread, cli_filter=inv.filter, config_path=str(config.path),
        rule=rule or settings.rule, min_forks=forks[0], max_forks=forks[1], min_change=compare.min_change,
        thresholds=tuple(compare.thresholds.items()), wait_clock=settings.wait_clock)


def _workdir_parent(config: Config, placement: Placement) -> str | None:
    """Where the slowed variants and the tracing output go: the system's temporary folder; on a cluster the
    config's ``.benchwarden/`` folder, which the workers see (they share the driver's filesystem,
    docs/distributed.md) where they may not see its /tmp."""
    if not placement.remote:
        return None
    folder = config.root / ".benchwarden"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


def _scratch_location(store_url: str, config: Config) -> str:
    """Slowed runs go to their own SQLite file, next to a SQLite store, else next to the config."""
    if "://" not in store_url:
        return str(Path(store_url).with_name(SCRATCH_STORE))
    return str(config.root / ".benchwarden" / SCRATCH_STORE)


def _write_stubs(result: SuiteAssessment, directory: Path, inv: Invocation) -> None:
    for stub in result.stubs:
        target = directory / result.suite / stub.path
        if target.exists():
            inv.err_console.print(f"note: {rich_text(str(target))} exists; stub not written", highlight=False)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(stub.text, encoding="utf-8")


def _print(inv: Invocation, doc: dict) -> None:
    from benchwarden.report.assess_tables import (
        abs_table,
        cost_lines,
        matrix_table,
        methods_table,
        precision_lines,
        smoke_lines,
        variability_table,
    )
    from benchwarden.report.table import to_rich

    c = inv.console
    c.print(f"[bold]suite {rich_text(doc['suite'])}[/bold] ({doc['kind']}): slowdown v = {doc['slowdown']['v']:.1%} "
            f"({rich_text(doc['slowdown']['source'])}); K′ from {rich_text(doc['methods']['source'])}")
    c.print(to_rich(variability_table(doc)))
    buckets = ", ".join(f"{k}: {v}" for k, v in doc["variability"]["buckets"].items())
    unstable = ", ".join(doc["variability"]["unstable"]) or "none"
    c.print(rich_text(f"maxSpread buckets: {buckets}; unstable: {unstable}"))
    c.print(to_rich(abs_table(doc)))
    c.print(to_rich(methods_table(doc)))
    c.print(to_rich(matrix_table(doc)))
    for line in precision_lines(doc) + smoke_lines(doc) + cost_lines(doc):
        c.print(rich_text(line))
    for stub in doc["stubs"]:
        c.print(f"stub for {rich_text(stub['method'])}: {rich_text(stub['path'])}")
    for warning in doc["warnings"]:
        c.print(f"note: {rich_text(warning)}", style="dim")
