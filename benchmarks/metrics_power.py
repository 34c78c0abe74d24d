"""Wall time, CPU time, instruction counts and allocations side by side, under load (docs/performance.md, "Metrics").

On the Go and Python examples (``tokenize`` over 1000 words), with CPU-bound processes beside them, the
script measures pools of real forks of every version:

* ``base`` and ``base2`` — the unchanged code, twice (A/A: two independent pools of the same version);
* the examples' small switchable changes (``WORDSTAT_SLOW=small`` ≈ 4-5 %, ``=medium`` ≈ 9-10 %);
* the examples' allocating change (``WORDSTAT_SLOW=alloc``: Go hands out a copy of the word list, Python
  the words through a tuple and back, JMH scans a ``char[]`` copy of the text), more allocation at little
  cost in time.

Per round every version runs, in random order, one fork of each kind — so drift and the load hit all
versions alike, and the forks of one round form the pairs of a comparison, as in a live ``compare``:

* **time** forks (the default primary metric; Go: ``B/op``/``allocs/op`` beside it; Python: ``cpu [ns/op]``
  of the same batches and ``mem.peak`` with ``trace_memory``);
* Go **cpu** forks (two-point, ``GOMAXPROCS=1``; their ``wall [ns/op]`` is the same executions' wall time);
* **instructions** forks, in the first ``--count-rounds`` rounds only (Valgrind is slow).

Then it judges seeded resampled comparisons with the product's own rules:

* time and CPU time: the sequential design of ``compare`` (defaults: 4-20 fork pairs, 99.5 % / 95 %,
  Pocock, threshold 3 %), through ``tests/unit/compare/sequential_sim.run_sequential`` (the product's
  ``judge_batch``); each experiment draws 20 of the rounds (without replacement) and pairs the two versions'
  forks of the same round; and the same rule with one look at 3 pairs, the counts' budget;
* counts (allocations, bytes, traced memory, instructions): the exact rule of ``compare.metrics`` on 3 forks
  per version (3 rounds drawn without replacement); instructions also as the primary verdict (exact rule
  with the 3 % threshold).

It also reports the true size of each change in every metric (median over rounds of candidate/base), the
run-to-run spread of instruction counts, Valgrind's slowdown factor, and tracemalloc's cost.

Usage: ``python benchmarks/metrics_power.py [--rounds 24] [--count-rounds 8] [--load 2] [--experiments 2000]
[--languages go,python] [--out DIR]``.  Raw pools are written as JSON to ``--out`` (default: a temp dir).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchwarden.adapters import get_adapter  # noqa: E402
from benchwarden.adapters.asv import PythonHarness, resolve_suite  # noqa: E402
from benchwarden.adapters.base import ForkPlan, SuiteContext  # noqa: E402
from benchwarden.adapters.gotest import bench_pattern  # noqa: E402
from benchwarden.adapters.gotest_twopoint import GoHarness  # noqa: E402
from benchwarden.adapters.process import ManagedProcess  # noqa: E402
from benchwarden.adapters.usage import reap_with_usage  # noqa: E402
from benchwarden.compare.metrics import judge_metric, primary_count_verdict  # noqa: E402
from benchwarden.compare.settings import CompareSettings  # noqa: E402
from benchwarden.compare.verdict import Verdict  # noqa: E402
from benchwarden.config import RunSettings, Suite  # noqa: E402
from benchwarden.metrics import valgrind  # noqa: E402
from benchwarden.metrics.catalog import metric_for  # noqa: E402
from benchwarden.metrics.primary import with_metric  # noqa: E402
from benchwarden.model import ForkStatus  # noqa: E402
from benchwarden.runner.engine import PlannedBenchmark, run_fork  # noqa: E402
from benchwarden.runner.policy import make_policy  # noqa: E402
from benchwarden.runner.progress import ProgressListener  # noqa: E402
from tests.unit.compare.sequential_sim import run_sequential  # noqa: E402

VARIANTS = {"base": {}, "base2": {}, "small": {"WORDSTAT_SLOW": "small"}, "medium": {"WORDSTAT_SLOW": "medium"},
            "alloc": {"WORDSTAT_SLOW": "alloc"}}
CANDIDATES = ("base2", "small", "medium", "alloc")
LANGUAGES = {
    "jmh": ("jmh", "wordstat.bench.TokenizeBench.tokenize[size=1000]", {"profilers": ["gc"]}),
    "go": ("go", "BenchmarkTokenize[size=1000]", {"packages": ["./..."]}),
    "python": ("python", "bench_wordstat.Tokenize.time_tokenize[size=1000]",
               {"benchmarks": "benchmarks", "pythonpath": ["."], "trace_memory": True}),
}
SETTINGS = CompareSettings()
DESIGN = SETTINGS.design()
PAIRS = 20
COUNT_FORKS = 3


# --- measuring -------------------------------------------------------------------------------------------


class Pools:
    """Per language, kind and version: one entry per round (the fork's measurement iterations, or None)."""

    def __init__(self) -> None:
        self.data: dict = {}

    def add(self, language: str, kind: str, version: str, rnd: int, value) -> None:
        self.data.setdefault(language, {}).setdefault(kind, {}).setdefault(version, {})[rnd] = value


def _fork_values(fork) -> dict:
    """The fork's measurement iterations: primary values and every secondary label."""
    if fork.status is not ForkStatus.COMPLETE:
        return {"failed": fork.message}
    out = {"value": [it.value_ns for it in fork.measurement], "wall_s": fork.duration_s}
    for label in dict.fromkeys(k for it in fork.measurement for k in it.secondary):
        out[label] = [it.secondary[label] for it in fork.measurement if label in it.secondary]
    return out


def _planned(language: str, metric: str, env: dict, iterations: int, iteration_time_s: float,
             warmup: int) -> PlannedBenchmark:
    folder, key, options = LANGUAGES[language]
    jvm_args: tuple[str, ...] = ()
    if folder == "jmh":  # a private JMH lock (other JMH runs on the machine) and the example's fixed heap
        options = {**options, "java": str(_private_java())}
        jvm_args = ("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch")
        if "WORDSTAT_SLOW" in env:
            jvm_args += (f"-Dwordstat.slow={env['WORDSTAT_SLOW']}",)
    ctx = SuiteContext(name="wordstat", kind=folder, root=REPO / "examples" / folder, env=env, options=options,
                       artifact="target/benchmarks.jar", jvm_args=jvm_args)
    settings = RunSettings(iteration_time_s=iteration_time_s, warmup_min=warmup, warmup_max=warmup,
                           iterations=iterations, forks_min=1, forks_max=1, stop="static", metric=metric)
    adapter = get_adapter(folder)
    adapter.prepare(ctx)
    bench = next(b for b in adapter.list_benchmarks(ctx) if b.id.key == key)
    return PlannedBenchmark(Suite(ctx, settings), adapter, with_metric(bench, metric))


def _private_java() -> Path:
    lock_dir = Path(tempfile.gettempdir()) / "metrics-power-jmh"
    lock_dir.mkdir(exist_ok=True)
    wrapper = lock_dir / "java"
    wrapper.write_text(f'#!/bin/sh\nexec "{shutil.which("java")}" "-Djava.io.tmpdir={lock_dir}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def measure(languages: list[str], rounds: int, count_rounds: int, seed: int, log) -> tuple[Pools, float]:
    rng = np.random.default_rng(seed)
    pools = Pools()
    started = time.monotonic()
    listener = ProgressListener()
    for language in languages:
        if language == "jmh":  # JMH: time with -prof gc only (no CPU time or instructions on the JVM)
            subprocess.run(["mvn", "-q", "-B", "package", "-DskipTests"], cwd=REPO / "examples" / "jmh", check=True)
            kinds = {"time": ("time", 3, 0.2, 10)}
        else:
            kinds = {"time": ("time", 5, 0.2, 2)}
            if language == "go":
                kinds["cpu"] = ("cpu", 5, 0.2, 0)
            kinds["instructions"] = ("instructions", 1, 0.1, 0)
        language_rounds = min(rounds, count_rounds) if language == "jmh" else rounds
        planned = {(kind, v): _planned(language, metric, env, iterations, t, warmup)
                   for kind, (metric, iterations, t, warmup) in kinds.items() for v, env in VARIANTS.items()}
        for rnd in range(language_rounds):
            for v in rng.permutation(list(VARIANTS)):
                for kind in kinds:
                    if kind == "instructions" and rnd >= count_rounds:
                        continue
                    p = planned[(kind, str(v))]
                    fork = run_fork(p.adapter, p, rnd + 1, make_policy(p.settings), listener)
                    pools.add(language, kind, str(v), rnd, _fork_values(fork))
            log(f"{language}: round {rnd + 1}/{language_rounds} done, {time.monotonic() - started:.0f}s, "
                f"load {os.getloadavg()[0]:.1f}")
    return pools, time.monotonic() - started


def start_load(processes: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]


# --- analysing ------------------------------------------------------------------------------------------


def _rounds(pool: dict, key: str) -> dict[int, list[float]]:
    return {int(r): v[key] for r, v in pool.items() if isinstance(v, dict) and key in v}


def matrix(pools: dict, version: str, key: str) -> dict[int, list[float]]:
    return _rounds(pools[version], key)


def sequential_power(base: dict[int, list[float]], cand: dict[int, list[float]], experiments: int,
                     rng: np.random.Generator, max_pairs: int = PAIRS) -> dict:
    """Sequential comparisons on ``max_pairs`` rounds drawn from those both versions have (pairs = same round).

    ``max_pairs`` below the design's ``min_pairs`` (COUNT_FORKS: the counts' budget) is one look at that many
    pairs, at the level the design gives its last look."""
    common = sorted(set(base) & set(cand))
    width = min(min(len(base[r]) for r in common), min(len(cand[r]) for r in common))
    pairs = min(max_pairs, len(common))
    design = replace(DESIGN, min_pairs=min(DESIGN.min_pairs, pairs), max_pairs=pairs) if pairs < DESIGN.max_pairs \
        else DESIGN
    picks = np.array([rng.choice(common, pairs, replace=False) for _ in range(experiments)])
    b = np.array([[base[r][:width] for r in row] for row in picks])
    c = np.array([[cand[r][:width] for r in row] for row in picks])
    summary = run_sequential(b, c, design, threshold=SETTINGS.min_change, paired=True)
    return {"slower": summary.rate(Verdict.SLOWER), "faster": summary.rate(Verdict.FASTER),
            "unchanged": summary.rate(Verdict.UNCHANGED), "inconclusive": summary.rate(Verdict.INCONCLUSIVE),
            "mean_pairs": summary.mean_pairs, "rounds": len(common), "max_pairs": pairs}


def count_detection(label: str, base: dict[int, list[float]], cand: dict[int, list[float]], experiments: int,
                    rng: np.random.Generator, primary: bool = False) -> dict:
    """The exact rule on COUNT_FORKS forks per version drawn from the rounds both have."""
    common = sorted(set(base) & set(cand))
    metric = metric_for(label)
    outcomes: dict[str, int] = {}
    for _ in range(experiments):
        rows = rng.choice(common, min(COUNT_FORKS, len(common)), replace=False)
        b, c = [base[r] for r in rows], [cand[r] for r in rows]
        if primary:
            exact = primary_count_verdict(b, c, tolerance=0.005, threshold=SETTINGS.min_change)
            key = "fallback" if exact is None else exact[0].value
        else:
            key = judge_metric(metric, label, b, c, levels=DESIGN.look_confidences(DESIGN.min_pairs),
                               threshold=SETTINGS.min_change).verdict.value
        outcomes[key] = outcomes.get(key, 0) + 1
    return {k: n / experiments for k, n in sorted(outcomes.items())} | {"rounds": len(common)}


def true_ratio(base: dict[int, list[float]], cand: dict[int, list[float]]) -> float:
    common = sorted(set(base) & set(cand))
    return float(statistics.median(statistics.median(cand[r]) / statistics.median(base[r]) for r in common))


def noise(base: dict[int, list[float]], base2: dict[int, list[float]]) -> dict:
    """Relative spread of fork medians (CV) and of the log ratio within rounds (what pairing leaves)."""
    common = sorted(set(base) & set(base2))
    medians = np.array([statistics.median(base[r]) for r in common])
    pair = np.array([np.log(statistics.median(base2[r]) / statistics.median(base[r])) for r in common])
    return {"fork_cv": float(medians.std(ddof=1) / medians.mean()), "pair_sd": float(pair.std(ddof=1)),
            "range": float(medians.max() / medians.min() - 1)}


def analyse(pools: dict, experiments: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    report: dict = {}
    for language, kinds in pools.items():
        out = report.setdefault(language, {})
        if language == "jmh":
            base = matrix(kinds["time"], "base", "gc.alloc.rate.norm [B/op]")
            for v in CANDIDATES:
                cand = matrix(kinds["time"], v, "gc.alloc.rate.norm [B/op]")
                out.setdefault("counts", {}).setdefault("bytes (gc.alloc.rate.norm)", {})[v] = count_detection(
                    "gc.alloc.rate.norm [B/op]", base, cand, experiments, rng)
                out.setdefault("true", {}).setdefault("bytes", {})[v] = true_ratio(base, cand)
                out["true"].setdefault("wall", {})[v] = true_ratio(matrix(kinds["time"], "base", "value"),
                                                                   matrix(kinds["time"], v, "value"))
            out["machine_s"] = {"time": sum(v.get("wall_s", 0.0) for pool in kinds["time"].values()
                                            for v in pool.values())}
            continue
        series = {"wall": ("time", "value")}
        if language == "go":
            series["cpu"] = ("cpu", "value")
            series["wall of the cpu executions"] = ("cpu", "wall [ns/op]")
        else:
            series["cpu"] = ("time", "cpu [ns/op]")
        for name, (kind, key) in series.items():
            base = matrix(kinds[kind], "base", key)
            out.setdefault("noise", {})[name] = noise(base, matrix(kinds[kind], "base2", key))
            for v in CANDIDATES:
                cand = matrix(kinds[kind], v, key)
                out.setdefault("sequential", {}).setdefault(name, {})[v] = sequential_power(base, cand, experiments,
                                                                                            rng)
                out["sequential"].setdefault(f"{name}, {COUNT_FORKS} pairs", {})[v] = sequential_power(
                    base, cand, experiments, rng, max_pairs=COUNT_FORKS)
                out.setdefault("true", {}).setdefault(name, {})[v] = true_ratio(base, cand)
        counts = {"instructions (exact rule)": ("instructions", "value", "instructions [instr/op]", False),
                  "instructions (primary, 3 % threshold)": ("instructions", "value", "", True)}
        if language == "go":
            counts |= {"allocs": ("time", "allocs/op", "allocs/op", False), "bytes": ("time", "B/op", "B/op", False)}
        else:
            counts |= {"mem.peak": ("time", "mem.peak [B]", "mem.peak [B]", False)}
        for name, (kind, key, label, primary) in counts.items():
            base = matrix(kinds[kind], "base", key)
            for v in CANDIDATES:
                cand = matrix(kinds[kind], v, key)
                out.setdefault("counts", {}).setdefault(name, {})[v] = count_detection(
                    label or "instructions [instr/op]", base, cand, experiments, rng, primary)
                out.setdefault("true", {}).setdefault(name.split(" ")[0], {})[v] = true_ratio(base, cand)
        instr = matrix(kinds["instructions"], "base", "value") | {
            100 + r: v for r, v in matrix(kinds["instructions"], "base2", "value").items()}
        values = [statistics.median(v) for v in instr.values()]
        out["instruction_spread"] = {"forks": len(values), "range": max(values) / min(values) - 1,
                                     "cv": statistics.stdev(values) / statistics.mean(values)}
        out["machine_s"] = {kind: sum(v.get("wall_s", 0.0) for pool in kinds[kind].values() for v in pool.values())
                            for kind in kinds}
    return report


# --- Valgrind's slowdown and tracemalloc's cost -----------------------------------------------------------


def _cpu_of(argv: list[str], cwd: Path, env: dict) -> float:
    process = ManagedProcess(argv, cwd=cwd, env=env, merge_stderr=False)
    while process.readline(time.monotonic() + 600) is not None:
        pass
    reaped = reap_with_usage(process, 600)
    process.terminate()
    assert reaped is not None and reaped[0] == 0, argv
    return reaped[1].cpu_ns / 1e9


def valgrind_slowdown(repeats: int = 3) -> dict:
    """CPU seconds of the same two executions natively and under cachegrind (per-op slope and whole run)."""
    vg = shutil.which("valgrind")
    out = {}
    go = _planned("go", "instructions", {}, 1, 0.1, 0)
    spec = go.benchmark.spec
    harness = GoHarness(spec["binary"], spec["package_dir"], spec["full_name"], bench_pattern(spec["full_name"]), {},
                        "go", 600)
    py = _planned("python", "instructions", {}, 1, 0.1, 0)
    ctx = py.suite.context
    fork_plan = ForkPlan(1, 0.1, 1, 600, 600, metric="instructions")
    pharness = PythonHarness(resolve_suite(ctx), py.benchmark.spec, ctx, fork_plan, "python")
    for name, h, short, long in (("go", harness, 3, 2003), ("python", pharness, 1, 201)):
        env = {**os.environ, **h.env("instructions")}
        native = [(_cpu_of(h.argv(short), h.cwd, env), _cpu_of(h.argv(long), h.cwd, env)) for _ in range(repeats)]
        simulated = [(_cpu_of(valgrind.cachegrind_argv(vg, "/dev/null") + h.argv(short), h.cwd, env),
                      _cpu_of(valgrind.cachegrind_argv(vg, "/dev/null") + h.argv(long), h.cwd, env))
                     for _ in range(repeats)]
        n = statistics.median(b - a for a, b in native)
        v = statistics.median(b - a for a, b in simulated)
        native_s = statistics.median(b for _, b in native)
        valgrind_s = statistics.median(b for _, b in simulated)
        out[name] = {"per_op": v / n, "whole_long_run": valgrind_s / native_s, "ops": long - short,
                     "native_s": native_s, "valgrind_s": valgrind_s}
    return out


def tracemalloc_cost() -> dict:
    """How much slower one traced call is, and what tracing adds to a fork (the worker's own function)."""
    sys.path.insert(0, str(REPO / "examples" / "python"))
    import wordstat

    from benchwarden.adapters import asv_worker

    text = wordstat.text(1000)
    call = lambda: wordstat.tokenize(text)  # noqa: E731
    import tracemalloc

    def timed(n: int) -> float:
        t = time.process_time_ns()
        for _ in range(n):
            call()
        return (time.process_time_ns() - t) / n

    plain = min(timed(200) for _ in range(7))
    tracemalloc.start()
    traced = min(timed(200) for _ in range(7))
    tracemalloc.stop()
    t = time.process_time_ns()
    asv_worker.trace_memory_of(call)
    per_fork = (time.process_time_ns() - t) / 1e6
    return {"call_ns": plain, "traced_call_ns": traced, "slowdown": traced / plain, "per_fork_ms": per_fork}


# --- output ------------------------------------------------------------------------------------------------


def _print_counts(out: dict) -> None:
    print(f"\ncounts, {COUNT_FORKS} forks per version: worse (or slower) / unchanged\n")
    print("| metric | " + " | ".join(CANDIDATES) + " |\n|---|" + "---|" * len(CANDIDATES))
    for metric, row in out["counts"].items():
        cells = []
        for v in CANDIDATES:
            r = row[v]
            flagged = r.get("worse", 0) + r.get("slower", 0)
            cells.append(f"{flagged:.1%} / {r.get('unchanged', 0):.1%}"
                         + "".join(f" ({k} {r[k]:.1%})" for k in ("better", "faster", "inconclusive", "fallback")
                                   if r.get(k)))
        print(f"| {metric} | " + " | ".join(cells) + " |")


def print_report(report: dict, extra: dict) -> None:
    for language, out in report.items():
        print(f"\n## {language}\n")
        print("true size of each change (median over rounds of candidate/base):\n")
        print("| metric | " + " | ".join(CANDIDATES) + " |\n|---|" + "---:|" * len(CANDIDATES))
        for metric, row in out["true"].items():
            print(f"| {metric} | " + " | ".join(f"{row[v]:.4f}" for v in CANDIDATES) + " |")
        if "noise" not in out:  # JMH: allocations only
            _print_counts(out)
            print("machine time of the forks: " + ", ".join(f"{k} {v:.0f}s" for k, v in out["machine_s"].items()))
            continue
        print("\nnoise of the base (A/A pools): CV of fork medians, SD of the within-round log ratio\n")
        for metric, n in out["noise"].items():
            print(f"- {metric}: fork CV {n['fork_cv']:.2%}, pair SD {n['pair_sd']:.2%}, range {n['range']:.1%}")
        print(f"\ntime verdicts (compare defaults, 4-20 pairs; and one look at {COUNT_FORKS} pairs, the counts' budget): "
              "slower / unchanged / mean pairs\n")
        print("| metric | " + " | ".join(CANDIDATES) + " |\n|---|" + "---|" * len(CANDIDATES))
        for metric, row in out["sequential"].items():
            print(f"| {metric} | " + " | ".join(
                f"{row[v]['slower']:.1%} / {row[v]['unchanged']:.1%} / {row[v]['mean_pairs']:.1f}"
                + (f" (faster {row[v]['faster']:.1%})" if row[v]['faster'] else "") for v in CANDIDATES) + " |")
        _print_counts(out)
        s = out["instruction_spread"]
        print(f"\ninstruction counts over {s['forks']} forks of the unchanged code: range {s['range']:.3%}, "
              f"CV {s['cv']:.3%}")
        print("machine time of the forks: " + ", ".join(f"{k} {v:.0f}s" for k, v in out["machine_s"].items()))
    if "valgrind" in extra:
        print("\nValgrind (cachegrind, no cache simulation) slowdown in CPU time:")
        for name, v in extra["valgrind"].items():
            print(f"- {name}: {v['per_op']:.1f}x per operation ({v['ops']} ops), {v['whole_long_run']:.1f}x for the "
                  f"whole long execution ({v['native_s']:.2f}s -> {v['valgrind_s']:.2f}s)")
    if "tracemalloc" in extra:
        t = extra["tracemalloc"]
        print(f"\ntracemalloc: one call {t['call_ns'] / 1e3:.1f} us -> {t['traced_call_ns'] / 1e3:.1f} us traced "
              f"({t['slowdown']:.1f}x); trace_memory adds {t['per_fork_ms']:.1f} ms of CPU per fork")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--count-rounds", type=int, default=8)
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes started beside the measurement")
    parser.add_argument("--experiments", type=int, default=2000)
    parser.add_argument("--languages", default="go,python,jmh")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--analyse", type=Path, default=None, help="re-analyse a pools.json, measure nothing")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="metrics-power-"))
    out.mkdir(parents=True, exist_ok=True)
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    extra: dict = {}
    if args.analyse:
        saved = json.loads(args.analyse.read_text())
        pools, extra = saved["pools"], saved.get("extra", {})
    else:
        load = start_load(args.load)
        try:
            before = os.getloadavg()
            measured, elapsed = measure(args.languages.split(","), args.rounds, args.count_rounds, args.seed, log)
            extra["valgrind"] = valgrind_slowdown()
            after = os.getloadavg()
        finally:
            for p in load:
                p.kill()
        extra["tracemalloc"] = tracemalloc_cost()
        extra["conditions"] = {"load_processes": args.load, "loadavg_before": before, "loadavg_after": after,
                               "elapsed_s": elapsed, "rounds": args.rounds, "count_rounds": args.count_rounds}
        pools = json.loads(json.dumps(measured.data))
        (out / "pools.json").write_text(json.dumps({"pools": pools, "extra": extra}))
        log(f"raw pools: {out / 'pools.json'}")
    report = analyse(pools, args.experiments, args.seed)
    (out / "report.json").write_text(json.dumps({"report": report, "extra": extra}, indent=2))
    if "conditions" in extra:
        c = extra["conditions"]
        print(f"conditions: {c['load_processes']} CPU-bound processes beside the measurement; load average "
              f"{c['loadavg_before'][0]:.1f} before, {c['loadavg_after'][0]:.1f} after; {c['elapsed_s'] / 60:.0f} min")
    print_report(report, extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
