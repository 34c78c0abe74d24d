"""`benchwarden check`: performance assertions in Stochastic Performance Logic (docs/spl.md)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.text import Text

from benchwarden.cli.cluster_access import cluster_option, fork_placement, mix_machines_option
from benchwarden.cli.common import (
    ExitStatus,
    FiniteFloatRange,
    Invocation,
    common_options,
    parse_duration_option,
    with_bound_flags,
)
from benchwarden.cli.store_access import store_url_for
from benchwarden.errors import BenchwardenError, UsageError
from benchwarden.report.escaping import visible
from benchwarden.spl.settings import INTERPRETATIONS

if TYPE_CHECKING:
    from benchwarden.config import Config
    from benchwarden.spl.evaluate import Checker, CheckOutcome
    from benchwarden.spl.expand import ExpandedAssertion
    from benchwarden.spl.settings import CheckModel, CheckSettings


@click.command("check")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@common_options("config", "suite", "filter", "store", "json")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option("--strict", is_flag=True, help="An undecided assertion fails the check too (exit 1).")
@click.option("--interpretation", type=click.Choice(INTERPRETATIONS),
              help="Statistical interpretation for assertions without `using` (default: from [check], else parametric).")
@click.option("--alpha", type=FiniteFloatRange(0, 0.5, min_open=True), help="Significance level per comparison.")
@click.option("--lenient", is_flag=True, default=None,
              help="The thesis' two-valued reading: a relation holds unless the data reject it (no 'undecided').")
@click.option("--max-rounds", type=click.IntRange(min=0), help="Extra measuring rounds for undecided assertions.")
@click.option("--max-forks", type=click.IntRange(min=1), help="Forks per benchmark instance at most, all rounds.")
@click.option("--no-reuse", is_flag=True, help="Measure everything afresh (do not reuse stored forks).")
@click.option("--no-annotations", is_flag=True, help="Do not read @SPL annotations from JMH jars.")
@click.option("--forks", type=click.IntRange(min=1), help="Forks per instance and round (sets min = max).")
@click.option("--warmup", type=click.IntRange(min=0), help="Warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork.")
@click.option("--iteration-time", callback=parse_duration_option, metavar="DURATION", help="Time per iteration, e.g. 100ms.")
@click.option("--quiet", "-q", is_flag=True, help="No live progress.")
@cluster_option
@mix_machines_option
def check_command(inv: Invocation, files, junit_path, strict, interpretation, alpha, lenient, max_rounds,
                  max_forks, no_reuse, no_annotations, forks, warmup, iterations, iteration_time, quiet,
                  cluster, mix_machines) -> int:
    """Check performance assertions written in Stochastic Performance Logic.

    Assertions come from the FILES named, else from every *.spl file below the config file, the
    [check.assertions] table and @SPL annotations in built JMH jars. Only the benchmarks, parameters
    and revisions they name are built and measured; stored forks of unchanged code are reused.

    Exit status: 0 every assertion holds (or is undecided), 1 an assertion fails (or, with --strict,
    is undecided), 2 an error (bad assertion, build or benchmark failure).
    """
    from benchwarden.cli.progress import run_progress
    from benchwarden.config import load_config
    from benchwarden.report.junit import junit_xml
    from benchwarden.spl.evaluate import Checker
    from benchwarden.spl.report import junit_cases, to_json
    from benchwarden.spl.settings import CheckModel, CheckSettings
    from benchwarden.store import open_store

    config = load_config(inv.config_path)
    model: CheckModel = config.section("check", CheckModel)  # type: ignore[assignment]
    settings = CheckSettings.from_model(model).with_overrides(
        interpretation=interpretation, alpha=alpha, lenient=lenient, max_rounds=max_rounds, max_forks=max_forks,
        annotations=False if no_annotations else None)
    if no_reuse:
        settings = replace(settings, reuse_max_age_s=None)
    suites = [with_bound_flags(s, forks, warmup, iterations, iteration_time) for s in config.select(inv.suite)]
    store = open_store(store_url_for(inv))
    try:
        with run_progress(inv.err_console, quiet) as progress, \
                fork_placement(cluster, mix_machines, config, [s.context for s in suites], inv.err_console,
                               quiet) as placement:
            checker = Checker(suites, config.root, store, settings, progress, placement)
            assertions = _assertions(inv, config, model, checker, files, settings)
            outcome = checker.run(assertions)
        metrics = _metrics(store, outcome.runs)
    finally:
        store.close()
    if junit_path is not None:
        junit_path.write_bytes(junit_xml("benchwarden check", junit_cases(outcome, strict)))
    if inv.json:
        inv.emit_json({**to_json(outcome), "metrics": [m.to_json() for m in metrics]})
    else:
        _print(inv, outcome, junit_path, metrics)
    return _exit_status(outcome, strict)


def _metrics(store, run_ids: list[int]) -> list:
    """Metric summaries of the benchmarks the runs behind this check measured (docs/metrics.md)."""
    from benchwarden.report.metric_summary import summarize_metrics

    return [m for run_id in dict.fromkeys(run_ids) for r in store.load_run(run_id).results
            for m in summarize_metrics(r)]


def _assertions(inv: Invocation, config: Config, model: CheckModel, checker: Checker, files,
                settings: CheckSettings) -> list[ExpandedAssertion]:
    from benchwarden.spl.discover import discover

    def jars():
        out = []
        for name in checker.catalog.suites:
            target = checker.catalog.target(name, None)
            ctx = target.suite.context
            if ctx.kind == "jmh" and ctx.artifact:
                out.append((name, ctx.root / ctx.artifact))
        return out

    programs = discover(config.root, config.path.name, files=files, patterns=model.files, inline=model.assertions,
                        jars=jars if settings.annotations and not files else None, relative_to=config.root)
    expanded = checker.expand([(p.program, p.self_ref) for p in programs])
    if inv.filter:
        try:
            pattern = re.compile(inv.filter)
        except re.error as exc:
            raise UsageError(f"invalid --filter regular expression {inv.filter!r}: {exc}") from None
        expanded = [a for a in expanded if pattern.search(a.name) or pattern.search(a.text)]
    if not expanded:
        where = "the files named" if files else f"*.spl files below {config.root}, [check.assertions] or @SPL annotations"
        raise BenchwardenError(f"no assertions to check: none found in {where}"
                               + (f" matching --filter {inv.filter!r}" if inv.filter else ""))
    return expanded


def _print(inv: Invocation, outcome: CheckOutcome, junit_path: Path | None, metrics: list) -> None:
    from benchwarden.report.metric_summary import metric_summary_table
    from benchwarden.report.table import to_rich
    from benchwarden.spl.logic import Truth
    from benchwarden.spl.report import (
        STYLE,
        assertion_header,
        comparison_table,
        expansion_lines,
        instance_table,
        machine_lines,
        suite_prefix,
        summary_line,
        warnings_of,
    )

    console = inv.console
    prefix = suite_prefix(outcome)
    for result in outcome.assertions:
        console.print(Text(visible(assertion_header(result)), style=STYLE[result.verdict]))
        lines = expansion_lines(result.root, prefix=prefix)
        if len(lines) > 1:
            for line, verdict in lines:
                console.print(Text(visible(f"    {line}  → {verdict.value}"), style=STYLE[verdict] if verdict is Truth.FAILS else ""))
        console.print(to_rich(comparison_table(result, prefix)))
        for warning in warnings_of(result, prefix):
            console.print(Text(visible(f"    note: {warning}"), style="dim"))
        console.print()
    console.print(to_rich(instance_table(outcome)))
    for line in machine_lines(outcome):
        console.print(Text(visible(line), style="dim"))
    if metrics:
        console.print(to_rich(metric_summary_table(metrics, title="metrics of the runs measured (median of fork "
                                                                  "values; spread between forks)")))
    for error in outcome.errors:
        inv.err_console.print(Text(visible(f"error: {error}", keep_newlines=True)))
    console.print(Text(visible(summary_line(outcome))))
    if junit_path is not None:
        console.print(Text(visible(f"JUnit XML: {junit_path}")))


def _exit_status(outcome: CheckOutcome, strict: bool) -> int:
    from benchwarden.spl.logic import Truth

    if outcome.errors:
        return ExitStatus.ERROR
    verdict = outcome.verdict
    if verdict is Truth.FAILS or (strict and verdict is Truth.UNDECIDED):
        return ExitStatus.REGRESSION
    return ExitStatus.OK
