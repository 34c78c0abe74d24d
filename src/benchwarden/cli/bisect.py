"""``benchwarden bisect GOOD BAD --benchmark X``: the first commit of GOOD..BAD that made X slower.

Thin: resolves the benchmark's suite and the commit range, then :func:`benchwarden.history.bisect.bisect` with
one ``compare`` session per step (:mod:`benchwarden.history.remeasure`).  Exit status 0 whatever the search
found (the state says what: found, no-slowdown, undecided); 2 for bad input or a failed measurement.
"""

from __future__ import annotations

import click

from benchwarden.cli.common import ExitStatus, Invocation, common_options


@click.command("bisect")
@common_options("config", "store", "json")
@click.argument("good")
@click.argument("bad")
@click.option("--benchmark", "benchmark", required=True, metavar="SUITE:KEY",
              help="The benchmark that became slower, as `show` lists it (the key alone when one suite is "
                   "configured).")
@click.option("--min-change", metavar="FRACTION",
              help="The smallest change that matters, e.g. 3% (default: [compare] min_change, else 3%).")
@click.option("--max-forks", type=click.IntRange(min=2),
              help="Fork pairs at most per step (default: [compare] max_forks, else 20).")
@click.option("--quiet", "-q", is_flag=True, help="No per-fork progress; one line per step.")
def bisect_command(inv: Invocation, good: str, bad: str, benchmark: str, min_change: str | None,
                   max_forks: int | None, quiet: bool) -> int:
    """Find the first commit of GOOD..BAD (along first parents) that made BENCHMARK slower.

    Every step is a `compare` of two commits for this benchmark alone (interleaved forks, the sequential
    verdict): first GOOD against BAD, which must be slower; then a binary search comparing GOOD with the middle
    commit. An inconclusive step is followed by a second comparison (the middle commit against BAD), never by a
    guess; if that too is inconclusive, the search stops and names the range it could not narrow
    (docs/history.md, "Bisection").
    """
    from benchwarden.cli.common import compare_settings
    from benchwarden.cli.progress import CompareProgressLines
    from benchwarden.cli.store_access import store_for
    from benchwarden.compare.schedule import CompareListener
    from benchwarden.config import load_config
    from benchwarden.history.bisect import Step, bisect, step_bound
    from benchwarden.history.gitlog import range_commits
    from benchwarden.history.remeasure import remeasure
    from benchwarden.report.escaping import visible
    from benchwarden.revisions import repository_root, resolve_commit
    from benchwarden.units import format_duration

    config = load_config(inv.config_path)
    suites = list(config.suites.values())
    if ":" not in benchmark:
        if len(suites) != 1:
            raise click.UsageError(f"--benchmark {benchmark}: give it as SUITE:KEY (suites: "
                                   f"{', '.join(s.name for s in suites)})")
        benchmark = f"{suites[0].name}:{benchmark}"
    if benchmark.partition(":")[0] not in config.suites:
        raise click.UsageError(f"--benchmark {benchmark}: no suite {benchmark.partition(':')[0]!r} in "
                               f"{config.path} (suites: {', '.join(config.suites)})")
    settings = compare_settings(config, min_change=min_change, max_forks=max_forks)
    repo = repository_root(config.root)
    commits = range_commits(repo, good, bad)
    if not commits:
        raise click.UsageError(f"{good}..{bad}: no commit after {good} up to {bad}")
    good_sha = resolve_commit(repo, good)
    subjects = dict(commits)
    subjects[good_sha] = "GOOD"
    listener = CompareListener() if quiet else CompareProgressLines(inv.err_console)

    with store_for(inv) as store:
        def judge(purpose: str, base: str, candidate: str) -> Step:
            inv.err_console.print(visible(f"{purpose}: {base[:10]} against {candidate[:10]} "
                                          f"({subjects.get(candidate, '')[:50]})"), markup=False, highlight=False)
            done = remeasure(benchmark, suites, repo, base, candidate, store, settings, label="bisect",
                             listener=listener)
            r = done.result
            if r is None or r.verdict.value in ("error", "skipped"):
                from benchwarden.errors import BenchwardenError

                why = r.message if r is not None and r.message else "not measured in both commits"
                raise BenchwardenError(f"bisect: {benchmark} at {base[:10]}..{candidate[:10]}: {why}")
            return Step(purpose, base, candidate, r.verdict, r.ratio, r.ci_low, r.ci_high, done.runs,
                        done.comparison.machine_time_s, rule=_rule(r))

        def said(step: Step) -> None:
            inv.err_console.print(f"  → {step.verdict.value} {step.shown_ratio}, "
                                  f"{format_duration(step.machine_time_s)}", markup=False, highlight=False)

        outcome = bisect(good_sha, [sha for sha, _ in commits], judge, on_step=said)
    if inv.json:
        inv.emit_json({"benchmark": benchmark, **outcome.to_json(),
                       "subject": subjects.get(outcome.first_bad or "", None)})
        return ExitStatus.OK
    console = inv.console
    steps = f"{len(outcome.steps)} comparisons (bound ⌈log2 {outcome.commits}⌉ + 2 = {step_bound(outcome.commits)})"
    time_taken = f"machine time {format_duration(outcome.machine_time_s)}"
    if outcome.state == "found":
        assert outcome.first_bad is not None
        evidence = outcome.evidence
        ratio = ""
        if evidence is not None and evidence.ratio is not None:
            ratio = f"; {evidence.shown_ratio} ({evidence.candidate[:10]} against {evidence.base[:10]})"
        console.print(visible(f"first slower commit: {outcome.first_bad} {subjects.get(outcome.first_bad, '')}"),
                      markup=False, highlight=False)
        console.print(visible(f"{benchmark}{ratio}; {steps}; {time_taken}"), markup=False, highlight=False)
    elif outcome.state == "no-slowdown":
        premise = outcome.steps[0]
        console.print(visible(f"{benchmark}: {bad} is not slower than {good} ({premise.verdict.value}); nothing to "
                              f"bisect; {time_taken}"), markup=False, highlight=False)
    else:
        console.print(visible(f"{benchmark}: undecided between {outcome.good[:10]} and {outcome.bad[:10]}: the "
                              f"comparisons stayed inconclusive at this budget (raise --max-forks or [compare] "
                              f"max_forks); {steps}; {time_taken}"), markup=False, highlight=False)
    return ExitStatus.OK


def _rule(result) -> str:
    """``exact`` when instruction counts were decided by the exact rule (compare/analysis.py: the counts agreed
    within their tolerance; otherwise it notes "judged as a measured quantity" and the interval decided)."""
    if result.metric != "instructions" or any("measured quantity" in w for w in result.warnings):
        return "interval"
    return "exact"
