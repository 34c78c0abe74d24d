"""`benchwarden compare BASE [CANDIDATE]`: did the change make anything slower?

Thin: resolves what is compared (revisions by default, ``--runs``, ``--artifacts``, run-time
variants), the ``[compare]`` settings with command-line overrides, runs the session
(:mod:`benchwarden.compare.session`) or the stored-run analysis, and writes the outputs.
Exit status: 0 no regression, 1 regression, 2 usage or execution error (including a benchmark
that could not be compared — the gate cannot vouch for what it did not measure).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from benchwarden.cli.cluster_access import (
    check_machine_kinds,
    check_mix_machines,
    cluster_option,
    cluster_session,
    mix_machines_option,
    wants_cluster,
    warn_odd_toolchains,
)
from benchwarden.cli.common import (
    ExitStatus,
    FiniteFloatRange,
    Invocation,
    common_options,
    compare_settings,
    param_option,
    parse_duration_option,
    reject_options,
    with_bound_flags,
    with_params,
)
from benchwarden.cli.store_access import store_url_for
from benchwarden.errors import ConfigError, UsageError
from benchwarden.report.escaping import rich_text, visible
from benchwarden.units import format_duration

if TYPE_CHECKING:
    from benchwarden.compare.result import Comparison
    from benchwarden.compare.settings import CompareSettings
    from benchwarden.compare.sources import Sources
    from benchwarden.config import Config, Suite


#: options that only mean something when compare measures (rejected with --runs); parameter names
_MEASURING_OPTIONS = ("artifacts", "variant_env", "variant_jvm_arg", "base_env", "base_jvm_arg", "min_forks",
                      "max_forks", "confirm", "pairing", "seed", "warmup", "iterations", "iteration_time", "params", "label",
                      "quiet", "cluster", "mix_machines", "affected", "explain", "explain_pairs")


@click.command("compare")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("base", required=False)
@click.argument("candidate", required=False)
@click.option("--affected", is_flag=True, help="Measure only the benchmarks the change affects (those calling a "
              "changed method, as `benchwarden affected` selects them); the rest are listed as not affected.")
@click.option("--explain", is_flag=True, help="For each benchmark found slower or faster, profile more fork pairs "
              "of both versions and rank the functions whose own time changed (Python, JMH, JUnit and Go suites; "
              "docs/code-level.md).")
@click.option("--explain-pairs", type=click.IntRange(2, 100), help="Profiled fork pairs per explained benchmark "
              "and look: while they name no cause, as many more, 3 looks at most (default 6; needs --explain).")
@click.option("--runs", is_flag=True, help="BASE and CANDIDATE are stored runs (id, latest, latest~N): analyse them, "
              "run nothing.")
@click.option("--against", type=click.Choice(["history"]),
              help="history: judge one stored run (the argument; default latest) against each benchmark's commits "
                   "since its last change point on the run's machine; runs nothing (docs/history.md).")
@click.option("--artifacts", is_flag=True, help="BASE and CANDIDATE are two built artifacts of one suite: JMH jars "
              "or Go test binaries.")
@click.option("--variant-env", multiple=True, metavar="NAME=VALUE",
              help="Run the candidate with this environment variable (repeatable); BASE/CANDIDATE may be omitted.")
@click.option("--variant-jvm-arg", multiple=True, metavar="ARG",
              help="Run the candidate with this JVM argument, e.g. -Dwordstat.slow=true (repeatable; jmh and "
                   "junit suites).")
@click.option("--base-env", multiple=True, metavar="NAME=VALUE", help="Run the base with this environment variable.")
@click.option("--base-jvm-arg", multiple=True, metavar="ARG", help="Run the base with this JVM argument.")
@click.option("--min-change", metavar="FRACTION", help="The smallest change that matters, e.g. 3% or 0.03 (default: "
              "[compare] min_change, else 3%).")
@click.option("--confidence", type=FiniteFloatRange(0.5, 1, min_open=True, max_open=True),
              help="Simultaneous confidence of 'slower'/'faster' over all looks (default 0.995).")
@click.option("--min-forks", type=click.IntRange(min=2), help="Fork pairs before the first look (default 4).")
@click.option("--max-forks", type=click.IntRange(min=2), help="Fork pairs at most per benchmark (default 20).")
@click.option("--confirm", type=click.IntRange(0, 10), help="Re-measure regressions N times before failing.")
@click.option("--pairing", type=click.Choice(["auto", "sequential", "simultaneous"]),
              help="Run a pair's two forks back to back in random order (sequential) or side by side "
              "(simultaneous); auto (default): side by side where that was measured best (Go suites in CPU "
              "time), else sequential.")
@click.option("--seed", type=int, help="Seed of the randomised fork order (default: random, recorded).")
@click.option("--warmup", type=click.IntRange(min=0), help="Warmup iterations per fork (sets min = max).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork.")
@click.option("--iteration-time", callback=parse_duration_option, metavar="DURATION", help="Time per iteration, e.g. 100ms.")
@click.option("--markdown", "markdown_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write a PR-comment Markdown summary here.")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write JUnit XML here (one case per benchmark; a regression is a failure).")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the HTML report here (default: .benchwarden/reports/ next to the config).")
@param_option
@click.option("--label", help="A label stored with both runs.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines; only the final table.")
@cluster_option
@mix_machines_option
def compare_command(inv: Invocation, base, candidate, affected, explain, explain_pairs, runs, against, artifacts, variant_env, variant_jvm_arg, base_env,
                    base_jvm_arg, min_change, confidence, min_forks, max_forks, confirm, pairing, seed, warmup, iterations,
                    iteration_time, markdown_path, junit_path, html_path, params, label, quiet, cluster,
                    mix_machines) -> int:
    """Compare two versions benchmark by benchmark: faster, slower, unchanged or inconclusive.

    BASE and CANDIDATE are git revisions by default (CANDIDATE defaults to the working tree,
    WORKTREE). Forks of the two versions run interleaved in random order; each benchmark gets fork
    pairs until its verdict is settled or --max-forks is reached. Both versions' forks are stored
    (two runs), so `compare --runs` can analyse them again later.
    """
    from benchwarden.cli.progress import CompareProgressLines
    from benchwarden.compare.schedule import CompareListener
    from benchwarden.compare.session import SessionOptions, run_comparison
    from benchwarden.store import open_store

    if runs:
        reject_options(click.get_current_context(), _MEASURING_OPTIONS,
                       "--runs analyses two stored runs and measures nothing; these options apply only when "
                       "compare runs the benchmarks")
    if against:
        reject_options(click.get_current_context(), (*_MEASURING_OPTIONS, "runs", "artifacts"),
                       "--against history analyses a stored run against its history and measures nothing")
        if candidate is not None:
            raise UsageError("--against history takes one stored run (id, latest, latest~N), not two")
    if explain_pairs is not None and not explain:
        raise UsageError("--explain-pairs sets how many fork pairs --explain profiles: give --explain too")
    config = _config(inv, required=not (runs or against))
    check_mix_machines(mix_machines, cluster, config)
    settings = compare_settings(config, min_change=min_change, confidence=confidence, min_forks=min_forks,
                                max_forks=max_forks, confirm=confirm, pairing=pairing)
    for warning in settings.warnings():
        inv.err_console.print(visible(f"warning: {warning}"), markup=False, highlight=False)
    store = open_store(store_url_for(inv))
    try:
        if against:
            comparison = _compare_history(inv, store, base, settings, config)
        elif runs:
            comparison = _compare_stored(inv, store, base, candidate, settings)
        else:
            assert config is not None
            suites = [with_params(with_bound_flags(s, warmup=warmup, iterations=iterations,
                                                   iteration_time=iteration_time), params)
                      for s in config.select(inv.suite)]
            not_affected: tuple[tuple[str, str], ...] = ()
            if affected:
                if artifacts or variant_env or variant_jvm_arg or base_env or base_jvm_arg:
                    raise UsageError("--affected selects by the code two revisions changed: it takes BASE [CANDIDATE] "
                                     "revisions, not --artifacts or variants")
                if base is None:
                    raise UsageError("--affected needs BASE: the revision the change is measured against")
                suites, not_affected = _affected_only(inv, config, suites, base, candidate)
            if not suites:  # nothing affected: nothing to measure, and the outputs say so
                comparison = _nothing_affected(base, candidate, settings, not_affected)
                report_path = html_path or default_report_path(config, comparison)
                write_outputs(comparison, markdown_path, junit_path, report_path)
                print_comparison(inv, comparison, report_path)
                return ExitStatus.OK
            if explain:
                _check_explainable(inv, suites, cluster, config)
                from benchwarden.codelevel.profiling import DEFAULT_PAIRS
                explain_pairs = explain_pairs or DEFAULT_PAIRS
            sources = _sources(config, suites, base, candidate, artifacts, variant_env, variant_jvm_arg, base_env,
                               base_jvm_arg)
            listener = CompareListener() if quiet else CompareProgressLines(inv.err_console)
            options = SessionOptions(settings=settings, cli_filter=inv.filter, seed=seed, label=label,
                                     explain_pairs=explain_pairs or 0)
            if wants_cluster(cluster, config) and settings.pairing == "simultaneous":
                raise UsageError("--pairing simultaneous runs both forks of a pair at once on one machine; on a "
                                 "cluster each worker runs one fork at a time (a pair's forks run one after the "
                                 "other on the same worker): use --pairing sequential")
            with cluster_session(cluster, config, inv.err_console, quiet) as session:
                if session is None:
                    comparison = run_comparison(sources, store, options, listener=listener)
                else:  # pairs on the workers at once, the two forks of a pair on one worker
                    warn_odd_toolchains(session, [s.context for s in suites], inv.err_console)
                    check_machine_kinds(session, mix_machines, inv.err_console)
                    comparison = run_comparison(sources, store, options, listener=listener,
                                                adapter_factory=session.adapter_factory,
                                                concurrency=session.fork_slots, pair_scope=session.same_worker,
                                                on_interrupt=session.interrupt)
            comparison = replace(comparison, not_affected=not_affected)
    finally:
        store.close()
    report_path = html_path or default_report_path(config, comparison)
    write_outputs(comparison, markdown_path, junit_path, report_path)
    print_comparison(inv, comparison, report_path)
    return {"pass": ExitStatus.OK, "regression": ExitStatus.REGRESSION, "error": ExitStatus.ERROR}[comparison.gate]


def _affected_only(inv: Invocation, config: Config, suites: list[Suite], base: str,
                   candidate: str | None) -> tuple[list[Suite], tuple[tuple[str, str], ...]]:
    """Each suite narrowed to the benchmarks ``base`` → ``candidate`` affects (suites with none dropped), and the
    benchmarks left out with the reason (codelevel.selector; the same selection as `benchwarden affected`)."""
    import re
    import tempfile

    from benchwarden.codelevel.selector import find_affected
    from benchwarden.codelevel.settings import AffectedSettings
    from benchwarden.revisions import WORKTREE, repository_root

    settings = cast(AffectedSettings, config.section("affected", AffectedSettings))
    repo = repository_root(config.root)
    kept: list[Suite] = []
    left_out: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="benchwarden-affected-") as tmp:
        for suite in suites:
            report = find_affected(suite, repo, base, candidate or WORKTREE, inv.filter, Path(tmp) / suite.name,
                                   log=lambda m: inv.err_console.print(f"affected: {rich_text(m)}", highlight=False),
                                   ignore=settings.ignore)
            left_out += [(f"{suite.name}:{s.key}", "; ".join(s.reasons)) for s in report.selections if not s.affected]
            if report.affected:
                keys = "|".join(re.escape(k) for k in report.affected)
                kept.append(replace(suite, context=replace(suite.context, filter=f"^(?:{keys})$")))
    return kept, tuple(left_out)


def _check_explainable(inv: Invocation, suites: list[Suite], cluster, config: Config) -> None:
    """--explain profiles on this machine, suites of a kind with a profiler: exit 2 when none is, warn for the rest."""
    from benchwarden.codelevel.profiling import PROFILERS, unsupported_kinds

    if wants_cluster(cluster, config):
        raise UsageError("--explain profiles forks on this machine; it does not run on a cluster yet")
    unsupported = unsupported_kinds([s.kind for s in suites])
    if suites and len(unsupported) == len({s.kind for s in suites}):
        raise UsageError(f"--explain profiles {', '.join(sorted(PROFILERS))} suites; the selected suites are "
                         f"{', '.join(unsupported)} (not yet: docs/code-level.md)")
    for kind in unsupported:
        inv.err_console.print(visible(f"warning: --explain: suites of kind '{kind}' cannot be profiled yet; their "
                                      "changes are reported without an explanation"), markup=False, highlight=False)


def _nothing_affected(base: str, candidate: str | None, settings: CompareSettings,
                      not_affected: tuple[tuple[str, str], ...]) -> Comparison:
    """The comparison of a change that affects no benchmark: nothing measured, every benchmark listed as such."""
    import time

    from benchwarden.compare.result import Comparison, SideInfo
    from benchwarden.revisions import WORKTREE

    return Comparison(source="revisions", base=SideInfo("base", base), candidate=SideInfo("candidate",
                      candidate or WORKTREE), design={**settings.design().to_dict(), "paired": True,
                                                      "min_change": settings.min_change},
                      not_affected=tuple(not_affected), created_at=time.time(), fail_on=settings.fail_on)


def _config(inv: Invocation, required: bool) -> Config | None:
    from benchwarden.config import find_config, load_config

    if required or inv.config_path is not None:
        return load_config(inv.config_path)
    try:
        find_config()
    except ConfigError:
        return None
    return load_config()


def _sources(config: Config, suites: list[Suite], base, candidate, artifacts, variant_env, variant_jvm_arg,
             base_env, base_jvm_arg) -> Sources:
    from benchwarden.compare.sources import from_artifacts, from_revisions, parse_env_assignments, with_variants
    from benchwarden.revisions import WORKTREE

    variants = bool(variant_env or variant_jvm_arg or base_env or base_jvm_arg)
    if artifacts:
        if not (base and candidate):
            raise UsageError("--artifacts needs BASE and CANDIDATE: the paths of two built artifacts")
        sources = from_artifacts(suites, Path(base), Path(candidate))
    else:
        if base is None and not variants:
            raise UsageError("nothing to compare: give BASE [CANDIDATE] revisions, --runs A B, --artifacts A B, "
                             "or a variant (--variant-env NAME=VALUE, --variant-jvm-arg ARG)")
        base_ref = base or WORKTREE
        candidate_ref = candidate or (base_ref if variants else WORKTREE)
        sources = from_revisions(suites, config.root, base_ref, candidate_ref)
    return with_variants(sources, candidate_env=parse_env_assignments(variant_env, "--variant-env"),
                         candidate_jvm_args=tuple(variant_jvm_arg),
                         base_env=parse_env_assignments(base_env, "--base-env"), base_jvm_args=tuple(base_jvm_arg))


def _compare_stored(inv: Invocation, store, base, candidate, settings: CompareSettings) -> Comparison:
    """``--runs``: the two stored runs, restricted to what --suite and --filter select, analysed."""
    from benchwarden.compare.stored import compare_runs

    if not (base and candidate):
        raise UsageError("--runs needs BASE and CANDIDATE: two stored runs (ids, latest, latest~N)")
    base_run = inv.select_results(store.load_run(store.resolve_run(base)))
    candidate_run = inv.select_results(store.load_run(store.resolve_run(candidate)))
    return compare_runs(base_run, candidate_run, settings)


def _compare_history(inv: Invocation, store, run_ref: str | None, settings: CompareSettings,
                     config: Config | None) -> Comparison:
    """``--against history``: the run (default latest), restricted to --suite/--filter, against its history."""
    from benchwarden.history.baseline import compare_against_history

    run_id = store.resolve_run(run_ref or "latest")
    selected = {str(r.benchmark.id) for r in inv.select_results(store.load_run(run_id)).results}
    repo = config.root if config is not None else Path.cwd()
    return compare_against_history(store, run_id, settings, lambda name: name in selected, repo)


def default_report_path(config: Config | None, comparison: Comparison, command: str = "compare") -> Path:
    """``.benchwarden/reports/<command>-<base run>-<candidate run>.html`` beside the config (or here)."""
    root = config.root if config is not None else Path.cwd()
    if comparison.base.run_id is None and comparison.candidate.run_id is None:  # nothing was measured
        ids = f"not-affected-{int(comparison.created_at)}"
    else:
        ids = f"{comparison.base.run_id or comparison.source}-{comparison.candidate.run_id}"
    return root / ".benchwarden" / "reports" / f"{command}-{ids}.html"


def write_outputs(comparison: Comparison, markdown_path: Path | None, junit_path: Path | None,
                   html_path: Path) -> None:
    from benchwarden.report.html import comparison_html
    from benchwarden.report.junit_compare import comparison_junit
    from benchwarden.report.markdown import comparison_markdown

    for path, render in ((markdown_path, comparison_markdown), (junit_path, comparison_junit),
                         (html_path, comparison_html)):
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(render(comparison))
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def print_comparison(inv: Invocation, c: Comparison, report_path: Path) -> None:
    from benchwarden.report.comparison_table import comparison_table, machine_line
    from benchwarden.report.explain_table import explanation_summary, explanation_table
    from benchwarden.report.json_export import comparison_to_dict
    from benchwarden.report.metrics_table import fmt_value, metrics_table
    from benchwarden.report.table import to_rich

    if inv.json:
        inv.emit_json({**comparison_to_dict(c), "report": str(report_path)})
    console = inv.console
    title = f"compare: base {c.base.label} vs candidate {c.candidate.label}"
    if c.benchmarks:
        console.print(to_rich(comparison_table(c.benchmarks, title=title)))
    if any(r.metrics for r in c.benchmarks):
        console.print(to_rich(metrics_table(c.benchmarks, c.fail_on, title="metrics beside the primary verdict")))
    design = c.design
    if design.get("history"):
        console.print(f"CI: {float(design['confidence']):.1%} prediction interval of the candidate run's ratio to "
                      "the commits since the last change point (each commit one value; the candidate one more "
                      "draw); MDE: the smallest change this history could detect (80 % power).", style="dim",
                      markup=False)
    elif design.get("fixed_sample"):
        console.print(f"CI: {float(design['confidence']):.1%} confidence interval of the time ratio candidate/base "
                      "(fixed sample of two stored runs, unpaired); MDE: the smallest change these forks could "
                      "detect (80 % power).", style="dim", markup=False)
    else:
        console.print(f"CI: {float(design['confidence']):.1%} repeated confidence intervals of the time ratio "
                      f"candidate/base over fork pairs (simultaneous over all looks, {design.get('spending')} alpha "
                      "spending); ratio: robust (Hodges-Lehmann) estimate; MDE: the smallest change these pairs "
                      "could detect (80 % power).", style="dim", markup=False)
    for r in c.benchmarks:
        line = machine_line(r)
        if line is not None:
            console.print(visible(line), style="dim", markup=False, highlight=False)
    for r in c.benchmarks:
        if r.message:
            console.print(visible(f"✗ {r.name}: {r.message}", keep_newlines=True), style="red", markup=False,
                          highlight=False)
    for suite, message in c.failed_suites.items():
        console.print(visible(f"error: suite {suite}: {message}", keep_newlines=True), style="red", markup=False,
                      highlight=False)
    for name, where in c.unmatched:
        console.print(visible(f"note: {name}: {where}, not compared"), markup=False, highlight=False)
    if c.not_affected:
        console.print(visible(f"not affected by the change, not measured ({len(c.not_affected)}): "
                              + ", ".join(name for name, _ in c.not_affected)), style="dim", markup=False,
                      highlight=False)
    for r in c.failures:
        for m in r.failing_metrics(c.fail_on):
            console.print(visible(f"✗ {r.name}: {m.name} worse ({fmt_value(m.base)} → {fmt_value(m.candidate)} "
                                  f"{m.unit}), and fail_on includes {m.name!r}"), style="bold red", markup=False,
                          highlight=False)
    for e in c.explanations:
        if e.nodes:
            console.print(to_rich(explanation_table(e)))
        console.print(visible(explanation_summary(e)), style="red" if e.error else None, markup=False,
                      highlight=False)
    counts = ", ".join(f"{n} {v}" for v, n in c.counts().items()) or "nothing compared"
    runs = f"run {c.candidate.run_id} against {c.base.label}" if c.source == "history" else \
        f"runs {c.base.run_id} (base), {c.candidate.run_id} (candidate)"
    console.print(f"{counts}; {runs}; forks took {format_duration(c.machine_time_s)}"
                  + (f", wall {format_duration(c.elapsed_s)}" if c.elapsed_s else ""), markup=False)
    console.print(visible(f"report: {report_path}"), markup=False, highlight=False)
