"""`benchwarden replay [RUN]`: simulate dynamic stopping on a stored wide static run and evaluate it.

Record once, e.g. ``benchwarden run --stop static --warmup 0 --iterations 100 --forks 5``, then try any
criteria and thresholds on the recorded iterations: time saved against the static baseline, the A/A test,
the mean change rate and the shares of benchmarks whose mean moved by less than 1 %, 2 %, 3 %.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from benchwarden.cli.common import ExitStatus, FiniteFloatRange, Invocation, common_options
from benchwarden.cli.store_access import store_for
from benchwarden.config import CRITERIA, CRITERION_DEFAULTS, DEFAULT_CRITERIA, STUDY_CRITERIA, check_criterion
from benchwarden.errors import UsageError
from benchwarden.report.escaping import rich_text
from benchwarden.report.table import Column, TableModel, fmt_number, fmt_percent, to_rich

if TYPE_CHECKING:
    from benchwarden.replay import ReplayConfig, ReplayEvaluation
    from benchwarden.runner.policy import Bounds

STUDY_NOTE = ("Laaber et al. (FSE 2020), 10 Java projects, 1-s iterations, bare metal: time saved 48.4–86.0 % per "
              "project (CV 82.0 %, RCIW 66.2 %, KLD 79.5 % overall); A/A same 78.8 % (CV), 79.6 % (KLD), 87.6 % "
              "(RCIW); mean change 3.1 % (CV), 2.4 % (KLD), 1.4 % (RCIW).")


def _range(ctx, param, value):
    if value is None:
        return None
    low, sep, high = value.partition(":")
    try:
        pair = (int(low), int(high if sep else low))
    except ValueError:
        raise click.BadParameter(f"expected MIN:MAX (or N), got {value!r}") from None
    if pair[0] < 0 or pair[0] > pair[1]:
        raise click.BadParameter(f"expected 0 <= MIN <= MAX, got {value!r}")
    return pair


def _thresholds(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for text in values:
        name, sep, numbers = text.partition("=")
        name = name.strip()
        if not sep or name not in CRITERIA:
            raise click.BadParameter(f"expected NAME=V[,V...] with NAME one of {', '.join(CRITERIA)}, got {text!r}")
        try:
            found.setdefault(name, []).extend(float(n) for n in numbers.split(",") if n.strip())
        except ValueError:
            raise click.BadParameter(f"{text!r}: not a list of numbers") from None
    return found


def build_configs(criteria_sets: list[list[str]], thresholds: dict[str, list[float]], window: int | None,
                  bounds: Bounds) -> list[ReplayConfig]:
    """One configuration per criteria set × combination of its criteria's thresholds (pure; UsageError on bad input)."""
    from benchwarden.replay import ReplayConfig

    configs = []
    for names in criteria_sets:
        per_criterion = []
        for name in names:
            if name not in CRITERION_DEFAULTS:
                raise UsageError(f"--criteria: unknown criterion {name!r}; expected one of {', '.join(CRITERIA)}")
            base = CRITERION_DEFAULTS[name] if window is None else replace(CRITERION_DEFAULTS[name], window=window)
            per_criterion.append([replace(base, threshold=t) for t in thresholds.get(name, [base.threshold])])
        for combo in itertools.product(*per_criterion):
            for c in combo:
                try:
                    check_criterion(c)
                except ValueError as exc:
                    raise UsageError(f"--threshold/--window: {exc}") from None
            configs.append(ReplayConfig(tuple(combo), bounds))
    unused = set(thresholds) - {n for names in criteria_sets for n in names}
    if unused:
        raise UsageError(f"--threshold for {', '.join(sorted(unused))}, which no --criteria set uses")
    return configs


@click.command("replay")
@common_options("config", "suite", "filter", "store", "json")
@click.argument("run", required=False)
@click.option("--criteria", "criteria_sets", multiple=True, metavar="LIST",
              help="A criteria set to simulate, e.g. cv or level,precision (all must agree); repeatable. "
                   "Default: benchwarden's default (level,precision) and the study's cv, rciw and kld, each alone.")
@click.option("--threshold", "thresholds", multiple=True, callback=_thresholds, metavar="NAME=V[,V...]",
              help="Thresholds to try for a criterion, e.g. cv=0.005,0.01,0.02 (repeatable; default: the study's).")
@click.option("--window", type=click.IntRange(min=1), help="Warmup window of every criterion (default 5).")
@click.option("--warmup", callback=_range, metavar="MIN:MAX", help="Warmup bounds per fork (default 5:50).")
@click.option("--iterations", type=click.IntRange(min=1), help="Measurement iterations per fork (default 10).")
@click.option("--forks", callback=_range, metavar="MIN:MAX", help="Fork bounds (default 2:5).")
@click.option("--baseline-warmup", type=click.IntRange(min=0), default=50, show_default=True,
              help="Baseline: iterations dropped per fork as warmup; the rest is its measurement.")
@click.option("--baseline-iterations", type=click.IntRange(min=1),
              help="Baseline: measurement iterations per fork after its warmup (default: all the rest).")
@click.option("--confidence", type=FiniteFloatRange(0.5, 0.9999), default=0.95, show_default=True,
              help="Confidence level of the A/A interval of the ratio of means (the study's: 0.99).")
@click.option("--method", type=click.Choice(["log-t", "percentile", "studentized", "bca", "t"]), default="log-t",
              show_default=True, help="A/A interval method: log-t, t on the log fork summaries (the verdicts' "
                                      "interval); percentile: the study's hierarchical bootstrap.")
@click.option("--resamples", type=click.IntRange(min=100), default=10_000, show_default=True,
              help="Bootstrap resamples of the A/A interval.")
@click.option("--details", is_flag=True, help="Also print every benchmark under every configuration.")
def replay_command(inv: Invocation, run: str | None, criteria_sets, thresholds, window, warmup, iterations, forks,
                   baseline_warmup, baseline_iterations, confidence, method, resamples, details) -> int:
    """Simulate dynamic stopping on a stored wide static run (default: the latest) and evaluate it.

    Per fork, warmup ends at the first stable checkpoint (or warmup max); the next ITERATIONS recorded
    iterations are the measurement; fork checkpoints see the pooled measurements — as Laaber et al. did.
    Compared with the baseline (per fork: drop --baseline-warmup iterations, keep the rest): time saved,
    A/A test (the ratio-of-means interval contains 1), mean change rate, shares below 1/2/3 %.
    """
    from benchwarden.replay import STUDY_BOUNDS, AAOptions, Baseline, replay_run
    from benchwarden.runner.policy import Bounds

    s = STUDY_BOUNDS
    bounds = Bounds(warmup[0] if warmup else s.warmup_min, warmup[1] if warmup else s.warmup_max,
                    iterations or s.iterations, forks[0] if forks else s.forks_min, forks[1] if forks else s.forks_max)
    if bounds.forks_min < 1:
        raise UsageError("--forks: MIN must be at least 1")
    sets = ([[n.strip() for n in text.split(",") if n.strip()] for text in criteria_sets]
            or [[c.name for c in DEFAULT_CRITERIA], *([n] for n in STUDY_CRITERIA)])
    configs = build_configs(sets, thresholds, window, bounds)
    with store_for(inv) as store:
        run_id = store.resolve_run(run)
        data = store.load_run(run_id)
    data = inv.select_results(data)
    evaluations = replay_run(data, configs, Baseline(baseline_warmup, baseline_iterations),
                             AAOptions(confidence=confidence, method=method, resamples=resamples))
    usable = [e for e in evaluations if e.benchmarks]
    if not usable:
        reasons = {why for e in evaluations for _, why in e.skipped}
        raise UsageError(f"run {run_id}: no benchmark can be replayed: " + ("; ".join(sorted(reasons)) or
                         "no benchmark matches") + ". Record a wide static run, e.g. `benchwarden run --stop static "
                         "--warmup 0 --iterations 100 --forks 5`.")
    if inv.json:
        inv.emit_json({"run": run_id, "baseline": {"warmup": baseline_warmup, "iterations": baseline_iterations},
                       "aa": {"confidence": confidence, "method": method, "resamples": resamples},
                       "configurations": [e.to_json() for e in usable]})
        return ExitStatus.OK
    console = inv.console
    console.print(to_rich(comparison_table(usable, f"replay of run {run_id}")))
    console.print(f"baseline: per fork, iterations after the first {baseline_warmup}"
                  + (f" (next {baseline_iterations})" if baseline_iterations else "") + f"; bounds ⟨wi {bounds.warmup_min}–"
                  f"{bounds.warmup_max}, mi {bounds.iterations}, forks {bounds.forks_min}–{bounds.forks_max}⟩; A/A: "
                  f"{confidence:.0%} {method} interval of the ratio of means contains 1.", style="dim", markup=False)
    console.print(STUDY_NOTE, style="dim", markup=False)
    skipped = {key: why for e in evaluations for key, why in e.skipped}
    for key, why in skipped.items():
        console.print(f"[yellow]skipped {rich_text(key)}: {rich_text(why)}[/yellow]")
    if details:
        for e in usable:
            console.print(to_rich(benchmark_table(e)))
    return ExitStatus.OK


def comparison_table(evaluations: list[ReplayEvaluation], title: str) -> TableModel:
    model = TableModel(columns=[
        Column("configuration"), Column("benchmarks", "right"), Column("time saved", "right"),
        Column("A/A same", "right"), Column("mean change", "right"), Column("<1%", "right"), Column("<2%", "right"),
        Column("<3%", "right"), Column("warmup", "right"), Column("forks", "right"),
        Column("warmup unstable", "right"), Column("forks unstable", "right"), Column("cost/checkpoint", "right"),
        Column("overhead", "right")], title=title)
    for e in evaluations:
        changes = e.changes
        sd = f" ± {fmt_percent(float(changes.std(ddof=1)))}" if changes.size > 1 else ""
        model.add([e.config.label, str(len(e.benchmarks)), fmt_percent(e.time_saved), fmt_percent(e.aa_same_share),
                   fmt_percent(float(changes.mean())) + sd, fmt_percent(e.change_below(0.01), 0),
                   fmt_percent(e.change_below(0.02), 0), fmt_percent(e.change_below(0.03), 0),
                   fmt_number(e.mean_warmup, 3), fmt_number(e.mean_forks, 2), fmt_percent(e.never_warmup_stable, 0),
                   fmt_percent(e.never_fork_stable, 0), f"{e.compute_per_checkpoint_s * 1e3:.2f} ms",
                   fmt_percent(e.overhead, 2)])
    return model


def benchmark_table(e: ReplayEvaluation) -> TableModel:
    model = TableModel(columns=[Column("benchmark"), Column("warmup per fork"), Column("forks"),
                                Column("iterations", "right"), Column("change", "right"), Column("ratio CI", "right"),
                                Column("A/A")], title=e.config.label)
    for b in e.benchmarks:
        warm = " ".join(f"{w}{'' if ok else '!'}" for w, ok in zip(b.warmup_iterations, b.warmup_stable))
        model.add([b.key, warm, f"{b.forks}{'' if b.forks_stable else '!'}", f"{b.iterations} of {b.baseline_iterations}",
                   fmt_percent(b.change, 2), f"[{fmt_number(b.ratio_low)}, {fmt_number(b.ratio_high)}]",
                   "same" if b.aa_same else "different"], style=None if b.aa_same else "yellow")
    return model


