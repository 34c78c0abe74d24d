"""Dynamic against static stopping on a real suite, measured live in one session (issues 4 and 13).

Design (Laaber et al. FSE 2020 §5.3–5.5, scaled down): the static run is JMH 1.21's default budget —
5 forks × (5 + 5) iterations of 10 s = 500 s per benchmark — recorded as the study did, 5 forks × 100
iterations of ``t`` with no warmup (the same budget when ``t`` = 1 s; here ``t`` = 100 ms by default, so
50 s per benchmark).  Its baseline is the last 50 iterations of every fork.  The dynamic run is a live
``benchwarden run`` with the study's bounds ⟨wi 5–50, mi 10, forks 2–5⟩ and the same ``t``.

Reported, all from this run:

* time saved: ``1 − Σ t_dyn / Σ t_static`` with ``t = iterations × t`` (the study's model) and with the
  forks' wall time (JVM start-up included);
* A/A test of the live dynamic result against the static baseline (different JVMs, so a real A/A):
  the 99 % percentile hierarchical-bootstrap interval of the ratio of means contains 1 (the study's
  test; the studentized interval is reported beside it);
* mean change rate ``|mean_dyn / mean_static − 1|`` and shares below 1 %, 2 %, 3 %, beside its floor on
  this data: the change a perfect rule that ran the same number of forks of the static steady state would
  show (``replay.subset_change``: fork-to-fork variation that few forks cannot average away);
* criterion overhead: CPU time in the stop policy per checkpoint and as a share of the dynamic run's
  wall time (live), and the same from a replay of the static recording;
* the study's evaluation (replay of each criterion on the static recording) beside it.

The suite: by default a private copy of ``examples/jmh``; ``--example go|python`` another example;
``--project DIR --suite NAME`` any suite of a ``DIR/benchwarden.toml`` (e.g. a third-party JMH suite
built outside the repository), used in place.  The suite's own settings are replaced by the two runs'
bounds; its other keys (kind, path, artifact, jvm_args, options) are kept.

A/A is reported with the verdicts' interval (``stats.ci_ratio_log_t``: 95 % *t* on the log fork
summaries) and with the study's
(99 % percentile hierarchical bootstrap).  Time saved is per benchmark and in total, against the
static run's iterations (the study's model) and against its forks' wall time.

Usage: ``.venv/bin/python benchmarks/dynamic_vs_static.py [--iteration-time 100ms] [--criteria level,precision]
[--example jmh|go|python | --project DIR --suite NAME] [--filter REGEX] [--json FILE] [--keep]``.
Takes ~8 minutes for the JMH example at 100 ms.  ``--reuse DIR`` analyses the runs a ``--keep`` left in
DIR again, running nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

from benchwarden import stats
from benchwarden.config import CRITERION_DEFAULTS, DEFAULT_CRITERIA, load_config, resolve_criteria
from benchwarden.model import RunMeta
from benchwarden.replay import (
    STUDY_BOUNDS,
    AAOptions,
    Baseline,
    ReplayConfig,
    recorded_series,
    replay_run,
    subset_change,
)
from benchwarden.runner import engine
from benchwarden.runner.engine import Runner, plan_run
from benchwarden.runner.labels import last_warmup_checkpoint
from benchwarden.store import open_store
from benchwarden.units import parse_duration_s

ROOT = Path(__file__).resolve().parents[1]
SETTING_KEYS = {"iteration_time", "warmup", "iterations", "forks", "stop", "criteria", "timeout", "overrides",
                "iteration_timeout"}


def _toml_value(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def _suite_table(project: Path, suite: str) -> dict:
    """The suite's table from ``project/benchwarden.toml`` with its path made absolute and its settings dropped."""
    with open(project / "benchwarden.toml", "rb") as f:
        table = dict(tomllib.load(f)["suites"][suite])
    table["path"] = str((project / table.get("path", ".")).resolve())
    return {k: v for k, v in table.items() if k not in SETTING_KEYS}


def _config(work: Path, suite: str, table: dict, t: str, stop: str, warmup: str, iterations: int, forks: str,
            criteria: list[str]) -> Path:
    path = work / f"benchwarden-{stop}.toml"
    lines = ["[store]", 'url = "results.db"', "", f"[suites.{suite}]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    lines += [f'iteration_time = "{t}"', f"warmup = {warmup}", f"iterations = {iterations}", f"forks = {forks}",
              f'stop = "{stop}"', f"criteria = {json.dumps(criteria)}", 'timeout = "10m"']
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(config_path: Path, filter_: str | None, policies: list) -> tuple[object, float]:
    config = load_config(config_path)
    suites = list(config.suites.values())
    plan = plan_run(suites, filter_)
    if plan.failed_suites:
        raise SystemExit(f"suite failed: {plan.failed_suites}")
    store = open_store(config.store_url)
    original = engine.make_policy

    def tracking(spec):  # keep each benchmark's policy to read its criterion compute time afterwards
        policy = original(spec)
        policies.append(policy)
        return policy

    engine.make_policy = tracking
    try:
        meta = RunMeta(created_at=time.time(), tool_version="bench", toolchain=plan.toolchain,
                       config={"suites": {s.name: {"kind": s.kind, "root": str(s.context.root),
                                                   "settings": s.settings.to_dict()} for s in suites}})
        t0 = time.monotonic()
        outcome = Runner(store).run(plan, meta)
        wall = time.monotonic() - t0
        return store.load_run(outcome.run_id), wall
    finally:
        engine.make_policy = original
        store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iteration-time", default="100ms")
    ap.add_argument("--criteria", default=",".join(c.name for c in DEFAULT_CRITERIA),
                    help="criteria of the live dynamic run (default: benchwarden's default)")
    ap.add_argument("--example", choices=("jmh", "go", "python"), default="jmh",
                    help="which example suite to copy and run (default jmh)")
    ap.add_argument("--project", type=Path, default=None, help="a directory with a benchwarden.toml (used in place)")
    ap.add_argument("--suite", default=None, help="the suite of --project to run")
    ap.add_argument("--reuse-static", type=Path, default=None, metavar="DIR",
                    help="take the static run from DIR (an earlier --keep) and run only the dynamic side")
    ap.add_argument("--filter", default=None, help="regular expression on benchmark keys")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (stores of both runs)")
    ap.add_argument("--reuse", type=Path, default=None, metavar="DIR",
                    help="analyse the two runs kept in DIR by an earlier --keep instead of running anything "
                         "(the live criterion cost is then not known; wall times are the forks' own)")
    args = ap.parse_args()
    t_s = parse_duration_s(args.iteration_time)
    criteria = [n.strip() for n in args.criteria.split(",") if n.strip()]
    chosen = resolve_criteria((), criteria)

    policies: list = []
    if args.reuse is not None:
        static_run, static_wall, dynamic_run, dynamic_wall = _kept_runs(args.reuse)
        return _report(args, t_s, criteria, chosen, static_run, static_wall, dynamic_run, dynamic_wall, policies,
                       args.reuse, keep=True)
    work = Path(tempfile.mkdtemp(prefix="bw-dynamic-"))
    if args.project is not None:
        if not args.suite:
            raise SystemExit("--project needs --suite")
        project, suite = args.project.resolve(), args.suite
    else:
        example = ROOT / "examples" / args.example
        project, suite = work / args.example, "wordstat"
        shutil.copytree(example, project, ignore=shutil.ignore_patterns(".benchwarden", "target"))
    table = _suite_table(project, suite)
    s = STUDY_BOUNDS
    static_cfg = _config(work, suite, table, args.iteration_time, "static", "{ min = 0, max = 0 }", 100,
                         "{ min = 5, max = 5 }", criteria)
    dynamic_cfg = _config(work, suite, table, args.iteration_time, "dynamic",
                          f"{{ min = {s.warmup_min}, max = {s.warmup_max} }}", s.iterations,
                          f"{{ min = {s.forks_min}, max = {s.forks_max} }}", criteria)
    print(f"work directory {work}; iteration time {t_s:g} s; dynamic criteria {'+'.join(criteria)}", file=sys.stderr)

    if args.reuse_static is not None:  # the static recording of an earlier --keep; run the dynamic side only
        static_run, static_wall, _, _ = _kept_runs(args.reuse_static, need=1)
    else:
        static_run, static_wall = _run(static_cfg, args.filter, [])
    print(f"static run: {static_wall:.0f} s wall", file=sys.stderr)
    dynamic_run, dynamic_wall = _run(dynamic_cfg, args.filter, policies)
    print(f"dynamic run: {dynamic_wall:.0f} s wall", file=sys.stderr)
    return _report(args, t_s, criteria, chosen, static_run, static_wall, dynamic_run, dynamic_wall, policies, work,
                   keep=args.keep)


def _kept_runs(work: Path, need: int = 2):
    """The static (first) and the latest dynamic run of a kept work directory, with the forks' summed wall time."""
    store = open_store(f"sqlite:///{work / 'results.db'}")
    try:
        ids = sorted(r.id for r in store.list_runs(limit=10))
        if len(ids) < need:
            raise SystemExit(f"{work / 'results.db'} holds {len(ids)} run(s); expected the static and the dynamic run")
        static_run, dynamic_run = store.load_run(ids[0]), store.load_run(ids[-1])
    finally:
        store.close()
    wall = lambda run: sum(f.duration_s for r in run.results for f in r.forks)
    return static_run, wall(static_run), dynamic_run, wall(dynamic_run)


def _report(args, t_s, criteria, chosen, static_run, static_wall, dynamic_run, dynamic_wall, policies, work,
            keep: bool) -> int:
    baseline = Baseline(warmup=50)
    static_by_key = {r.benchmark.id.key: r for r in static_run.results}
    rows = []
    for result in dynamic_run.results:
        key = result.benchmark.id.key
        static_result = static_by_key.get(key)
        if result.status.value != "ok" or static_result is None or static_result.status.value != "ok":
            print(f"excluded {key}: a run of it failed", file=sys.stderr)
            continue
        series = recorded_series(static_result)
        base = baseline.matrix(series)
        dyn = result.measurement_matrix()
        ratio_p = stats.ci_ratio_of_means(base, dyn, 0.99, args.resamples, 0, "percentile")
        ratio_s = stats.ci_ratio_of_means(base, dyn, 0.99, args.resamples, 0, "studentized")
        ratio_t = stats.ci_ratio_log_t(base, dyn, 0.95)
        mean = lambda m: float(np.mean([np.mean(f) for f in m]))
        rows.append({
            "benchmark": key,
            "warmup": [len(f.warmup) for f in result.forks], "forks": len(result.forks),
            "warmup_reason": [getattr(last_warmup_checkpoint(f.warmup_decisions), "reason", None) for f in result.forks],
            "remeasured": [sum(d.reason == "level-changed" for d in f.warmup_decisions) for f in result.forks],
            "fork_reason": result.fork_decisions[-1].reason if result.fork_decisions else None,
            "forks_bound": bool(result.fork_decisions and result.fork_decisions[-1].reason == "maximum-reached"),
            "iterations": sum(len(f.warmup) + len(f.measurement) for f in result.forks),
            "static_iterations": baseline.iterations_used(series),
            "wall_s": sum(f.duration_s for f in result.forks),
            "static_wall_s": sum(f.duration_s for f in static_by_key[key].forks),
            "change": abs(mean(dyn) / mean(base) - 1.0),
            "change_floor": subset_change(base, len(dyn)),
            "ratio": mean(dyn) / mean(base), "ratio_t95": [ratio_t.low, ratio_t.high], "aa_t95": ratio_t.contains(1.0),
            "ratio_percentile": [ratio_p.low, ratio_p.high], "aa_percentile": ratio_p.contains(1.0),
            "ratio_studentized": [ratio_s.low, ratio_s.high], "aa_studentized": ratio_s.contains(1.0),
        })
    changes = np.array([r["change"] for r in rows])
    compute_s = sum(p.compute_s for p in policies)
    checkpoints = sum(p.checkpoints for p in policies)
    live = {
        "time_saved_model": 1 - sum(r["iterations"] for r in rows) / sum(r["static_iterations"] for r in rows),
        "time_saved_wall": 1 - sum(r["wall_s"] for r in rows) / sum(r["static_wall_s"] for r in rows),
        "aa_same_t95": float(np.mean([r["aa_t95"] for r in rows])),
        "aa_same_percentile": float(np.mean([r["aa_percentile"] for r in rows])),
        "aa_same_studentized": float(np.mean([r["aa_studentized"] for r in rows])),
        "change_mean": float(changes.mean()), "change_sd": float(changes.std(ddof=1)) if changes.size > 1 else 0.0,
        "change_below": {f"{x:g}": float(np.mean(changes < x)) for x in (0.01, 0.02, 0.03)},
        "change_floor_mean": float(np.mean([r["change_floor"] for r in rows])),
        "criterion_s_per_checkpoint": compute_s / checkpoints if checkpoints else None,
        "criterion_share_of_wall": compute_s / dynamic_wall if checkpoints else None,
        "static_wall_s": static_wall, "dynamic_wall_s": dynamic_wall,
    }
    configs = [ReplayConfig(chosen)] + [ReplayConfig((CRITERION_DEFAULTS[n],)) for n in ("cv", "rciw", "kld")
                                        if (CRITERION_DEFAULTS[n],) != tuple(chosen)]
    replays = [e.to_json() for e in replay_run(static_run, configs, baseline, AAOptions(resamples=args.resamples),
                                                iteration_time_s=t_s)]
    report = {"iteration_time_s": t_s, "criteria": criteria, "live": live, "benchmarks": rows,
              "replay": [{k: v for k, v in r.items() if k != "per_benchmark"} for r in replays]}
    print(json.dumps(report, indent=2, default=float))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=float))
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
