"""Dynamic stopping on a seeded synthetic suite with *known* warmup ends: can drift and late JIT fool it?

Issue 13's "done when".  Each synthetic benchmark is recorded as Laaber et al. recorded real ones
(5 forks × 100 iterations of 1 s, no warmup) from a model whose truth is known, and every stopping
configuration is replayed on the recordings with the runner's own state machine
(:func:`benchwarden.replay.simulate`), bounds ⟨wi 5–50, mi 10, forks 2–5⟩ (the study's).

Shapes (``--per-shape`` benchmarks each; every benchmark draws its own parameters):

* common: steady level μ (log-uniform), fork factor LogNormal(0, σ_f) with σ_f ~ U(0, 2 %), iteration
  noise LogNormal(0, σ) with σ ~ U(0.5 %, 5 %), and a short JIT warmup ``1 + (w − 1)·e^(−i/τ)`` with
  w ~ U(1.2, 3), τ ~ U(0.5, 2) iterations;
* ``jit``      — the warmup alone, longer: w ~ U(1.2, 5), τ ~ U(0.5, 6);
* ``step``     — plus a level step at iteration s ~ U{10..40} of ±(10–30 %) (tier-up, deoptimisation),
  flat before and after;
* ``drift``    — plus a drift of ±(0.3–1 %) per iteration that never ends (never stable);
* ``walk``     — plus a random walk of the log level with steps N(0, (0.5–1.5)·σ) (never stable);
* ``bimodal``  — each fork lands in one of two modes, 5–20 % apart, with probability ½;
* ``heavy``    — 5–20 % of iterations are slowed by 0.2·Lomax(α), α ~ U(1.5, 3) (heavy right tail);
* ``memory``   — a steady level whose iteration noise has memory: the log noise is a stationary AR(1) with
  φ ~ U(0.3, 0.8) and the same marginal σ (OpenJDK JMH's jmh-core-benchmarks, quiet: lag-1 median 0.56,
  ~0 by lag 5; benchmarks/level_autocorrelation.py).

The **true warmup end** is the first iteration after which the deterministic curve is within 1 % of
its steady level (and after the step, for ``step``); ``drift`` and ``walk`` have none.

Reported per shape and configuration:

* *declared stable* (never-stable shapes): share of forks whose warmup ended as "stable";
* *ended early*: share of forks whose measurement began before the true end;
* *warmup bias*: ``|mean of the noise-free curve over the measured iterations / steady level of the same
  forks − 1|``, mean over benchmarks — the error that stopping causes, free of sampling noise;
* *time saved* against JMH 1.21's default budget, 5 forks × (5 + 5) × 10 s = 500 s per benchmark
  (= 500 one-second iterations: the recording);
* *A/A*: the verdicts' interval of the ratio, ``stats.ci_ratio_log_t`` (95 % *t* on the log fork
  summaries), of the stopped result against the static baseline (the last 50 iterations of all 5 forks
  of the same recording, the study's design) contains 1;
* *change*: ``|mean_dyn / mean_static − 1|`` (means of fork means), mean over benchmarks;
* mean warmup, forks, and the criteria's CPU time per checkpoint and as a share of the run.

``--test-choice`` instead compares candidate tests for the level check on the same suite (warmup only):
Mann-Kendall, a two-window Mann-Whitney comparison, the rank von Neumann ratio, and combinations.

Usage: ``.venv/bin/python benchmarks/dynamic_synthetic_suite.py [--per-shape 90] [--seed 1]
[--configs "default (level + precision);cv (study)"] [--json FILE] [--markdown] [--test-choice]``.
About a minute per configuration (RCIW: two) on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.signal import lfilter

from benchwarden import stats
from benchwarden.config import CRITERION_DEFAULTS
from benchwarden.replay import STUDY_BOUNDS, ReplayConfig, simulate

SHAPES = ("jit", "step", "drift", "walk", "bimodal", "heavy", "memory")
NEVER_STABLE = frozenset({"drift", "walk"})
END_LEVEL = 0.01
ITERATIONS, FORKS = 100, 5
JMH_121_BUDGET = 5 * (5 + 5) * 10  # seconds = 1-s iterations per benchmark
BASELINE_WARMUP = 50


@dataclass
class Synthetic:
    """One benchmark: its recorded forks, their noise-free curves and steady levels, and the true warmup end."""

    shape: str
    series: list[np.ndarray]
    clean: list[np.ndarray]
    steady: list[float]
    end: int | None
    params: dict = field(default_factory=dict)


def _jit_end(w: float, tau: float) -> int:
    return 0 if w - 1 <= END_LEVEL else int(np.ceil(tau * np.log((w - 1) / END_LEVEL)))


def synthetic_benchmark(rng: np.random.Generator, shape: str) -> Synthetic:
    i = np.arange(ITERATIONS, dtype=float)
    mu = 1000.0 * np.exp(rng.uniform(0, 6))
    sig_f, sig = rng.uniform(0.0, 0.02), rng.uniform(0.005, 0.05)
    w, tau = (rng.uniform(1.2, 5.0), rng.uniform(0.5, 6.0)) if shape == "jit" else \
        (rng.uniform(1.2, 3.0), rng.uniform(0.5, 2.0))
    curve = 1 + (w - 1) * np.exp(-i / tau)
    end: int | None = _jit_end(w, tau)
    params = {"sigma": sig, "fork_sigma": sig_f, "w": w, "tau": tau}
    if shape == "step":
        s, h = int(rng.integers(10, 41)), rng.uniform(0.1, 0.3) * rng.choice([-1, 1])
        curve = curve * np.where(i < s, 1 + h, 1.0)
        end = max(end, s)
        params.update(step_at=s, step=h)
    drift = rng.uniform(0.003, 0.01) * rng.choice([-1, 1]) if shape == "drift" else 0.0
    walk = rng.uniform(0.5, 1.5) * sig if shape == "walk" else 0.0
    gap = rng.uniform(0.05, 0.2) if shape == "bimodal" else 0.0
    slow_share, alpha = (rng.uniform(0.05, 0.2), rng.uniform(1.5, 3.0)) if shape == "heavy" else (0.0, 2.0)
    phi = rng.uniform(0.3, 0.8) if shape == "memory" else 0.0
    params.update(drift=drift, walk=walk, gap=gap, slow_share=slow_share, phi=phi)
    if shape in NEVER_STABLE:
        end = None
    noise_mean = float(np.exp(sig ** 2 / 2) * (1 + slow_share * 0.2 / (alpha - 1)))
    out = Synthetic(shape, [], [], [], end, params)
    for _ in range(FORKS):
        level = mu * rng.lognormal(0.0, sig_f) * ((1 + gap) if gap and rng.random() < 0.5 else 1.0)
        c = curve.copy()
        if drift:
            c = c * (1 + drift * i) if drift > 0 else c / (1 - drift * i)
        if walk:
            c = c * np.exp(np.cumsum(rng.normal(0.0, walk, ITERATIONS)))
        if phi:  # stationary AR(1) with marginal variance 1: x_1 ~ N(0, 1), x_t = φ x_{t−1} + √(1 − φ²) e_t
            shocks = rng.standard_normal(ITERATIONS) * np.sqrt(1 - phi * phi)
            shocks[0] = rng.standard_normal()
            noise = np.exp(sig * lfilter([1.0], [1.0, -phi], shocks))
        else:
            noise = rng.lognormal(0.0, sig, ITERATIONS)
        if slow_share:
            noise = noise * (1 + np.where(rng.random(ITERATIONS) < slow_share, 0.2 * rng.pareto(alpha, ITERATIONS), 0))
        out.series.append(level * c * noise)
        out.clean.append(level * c * noise_mean)
        out.steady.append(level * noise_mean)
    return out


def synthetic_suite(seed: int, per_shape: int) -> list[Synthetic]:
    rng = np.random.default_rng(seed)
    return [synthetic_benchmark(rng, shape) for shape in SHAPES for _ in range(per_shape)]


def _mean_of_fork_means(matrix) -> float:  # type: ignore[no-untyped-def]
    return float(np.mean([np.mean(m) for m in matrix]))


def evaluate(bench: Synthetic, config: ReplayConfig) -> dict:
    sim = simulate(bench.series, config)
    mi = config.bounds.iterations
    used = len(sim.measurement)
    base = [s[BASELINE_WARMUP:] for s in bench.series]
    interval = stats.ci_ratio_log_t(base, list(sim.measurement), confidence=0.95)
    row = {
        "shape": bench.shape, "forks": used, "warmup": list(sim.warmup_iterations),
        "stable": list(sim.warmup_stable), "iterations": sim.iterations,
        "aa": bool(interval.contains(1.0)),
        "change": abs(_mean_of_fork_means(sim.measurement) / _mean_of_fork_means(base) - 1.0),
        "compute_s": sim.compute_s, "checkpoints": sim.checkpoints,
    }
    if bench.end is not None:
        row["early"] = [w < bench.end for w in sim.warmup_iterations]
        measured = np.mean([bench.clean[f][w:w + mi].mean() for f, w in enumerate(sim.warmup_iterations)])
        row["bias"] = abs(measured / np.mean(bench.steady[:used]) - 1.0)
    return row


def summarise(rows: list[dict]) -> dict:
    forks = [s for r in rows for s in r["stable"]]
    out = {
        "benchmarks": len(rows),
        "time_saved": 1.0 - sum(r["iterations"] for r in rows) / (JMH_121_BUDGET * len(rows)),
        "aa_same": float(np.mean([r["aa"] for r in rows])),
        "change_mean": float(np.mean([r["change"] for r in rows])),
        "warmup_mean": float(np.mean([w for r in rows for w in r["warmup"]])),
        "forks_mean": float(np.mean([r["forks"] for r in rows])),
        "declared_stable": float(np.mean(forks)),
        "cost_per_checkpoint_ms": 1e3 * sum(r["compute_s"] for r in rows) / max(1, sum(r["checkpoints"] for r in rows)),
        "cost_share": sum(r["compute_s"] for r in rows) / sum(r["iterations"] for r in rows),
    }
    ended = [r for r in rows if "early" in r]
    if ended:
        out["ended_early"] = float(np.mean([e for r in ended for e in r["early"]]))
        out["bias_mean"] = float(np.mean([r["bias"] for r in ended]))
    return out


def named_configs() -> dict[str, ReplayConfig]:
    d = CRITERION_DEFAULTS
    level, precision = d["level"], d["precision"]
    return {
        "default (level + precision)": ReplayConfig((level, precision), STUDY_BOUNDS),
        "level without scout + precision": ReplayConfig((replace(level, scout=False), precision), STUDY_BOUNDS),
        "level (α 0.2) + precision (95 %, ±3 %)": ReplayConfig(
            (replace(level, threshold=0.2), replace(precision, threshold=0.03, confidence=0.95)), STUDY_BOUNDS),
        "cv (study)": ReplayConfig((d["cv"],), STUDY_BOUNDS),
        "rciw (study)": ReplayConfig((d["rciw"],), STUDY_BOUNDS),
        "kld (study)": ReplayConfig((d["kld"],), STUDY_BOUNDS),
        "cv + kld (study criteria combined)": ReplayConfig((d["cv"], d["kld"]), STUDY_BOUNDS),
    }


# --- which tests for the level check?  (``--test-choice``) -------------------------------------------------


def _mann_whitney_p(segment: np.ndarray) -> float:
    from scipy.stats import mannwhitneyu

    half = segment.size // 2
    return float(mannwhitneyu(segment[:half], segment[half:]).pvalue)


TEST_CHOICES = {
    "Mann-Kendall (trend)": ("mk",),
    "two windows (Mann-Whitney, window vs the window before)": ("mw",),
    "Mann-Kendall + two windows": ("mk", "mw"),
    "rank von Neumann (serial dependence)": ("rvn",),
    "Mann-Kendall + rank von Neumann (chosen)": ("mk", "rvn"),
}


def _level(segment: np.ndarray, tests: tuple[str, ...], alpha: float) -> bool:
    from benchwarden.stats.trend import mann_kendall, rank_von_neumann

    logs = np.log(segment)
    p = {"mk": lambda: mann_kendall(logs).p_value, "rvn": lambda: rank_von_neumann(logs),
         "mw": lambda: _mann_whitney_p(logs)}
    return all(p[t]() > alpha for t in tests)


def warmup_with(series: np.ndarray, tests: tuple[str, ...], alpha: float = 0.1, window: int = 5,
                wmin: int = 5, wmax: int = 50, mi: int = 10) -> tuple[int, bool]:
    """The level criterion's warmup and measurement checkpoints (no scout) with other tests: (warmup, stable)."""
    j = max(wmin, 2 * window)
    while j <= wmax:
        if _level(series[j - 2 * window:j], tests, alpha):
            start = max(0, min(j - 2 * window, j // 2))
            if _level(series[start:j + mi], tests, alpha):
                return j, True
            j += mi
            continue
        j += 1
    return wmax, False


def test_choice(suite: list[Synthetic]) -> dict:
    results = {}
    for name, tests in TEST_CHOICES.items():
        per_shape = {}
        for shape in SHAPES:
            ends, stable, early = [], [], []
            for bench in (b for b in suite if b.shape == shape):
                for series in bench.series:
                    w, ok = warmup_with(series, tests)
                    ends.append(w)
                    stable.append(ok)
                    if bench.end is not None:
                        early.append(w < bench.end)
            per_shape[shape] = {"warmup_mean": float(np.mean(ends)), "declared_stable": float(np.mean(stable)),
                                "ended_early": float(np.mean(early)) if early else None}
        results[name] = per_shape
        print(f"{name}: " + "  ".join(
            f"{shape} w {v['warmup_mean']:.1f} st {v['declared_stable']:.0%}"
            + (f" early {v['ended_early']:.0%}" if v["ended_early"] is not None else "")
            for shape, v in per_shape.items()), file=sys.stderr)
    return results


def test_choice_markdown(results: dict) -> str:
    lines = ["| tests (α = 0.1, window 5, measurement check, no scout) | " + " | ".join(SHAPES) + " |",
             "|---|" + "---|" * len(SHAPES)]
    for name, per_shape in results.items():
        cells = []
        for shape in SHAPES:
            v = per_shape[shape]
            if shape in NEVER_STABLE:
                cells.append(f"stable {v['declared_stable']:.0%}, w {v['warmup_mean']:.0f}")
            else:
                cells.append(f"early {v['ended_early']:.0%}, w {v['warmup_mean']:.0f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(configs: dict[str, ReplayConfig], suite: list[Synthetic]) -> dict:
    results = {}
    for name, config in configs.items():
        t0 = time.perf_counter()
        rows = [evaluate(b, config) for b in suite]
        per_shape = {shape: summarise([r for r in rows if r["shape"] == shape]) for shape in SHAPES}
        results[name] = {"criteria": [c.to_dict() for c in config.criteria], "all": summarise(rows),
                         "per_shape": per_shape, "seconds": time.perf_counter() - t0}
        print(f"{name}: {format_line(results[name]['all'])} ({results[name]['seconds']:.0f} s)", file=sys.stderr)
        for shape in SHAPES:
            print(f"    {shape:8s} {format_line(per_shape[shape])}", file=sys.stderr)
    return results


def format_line(s: dict) -> str:
    text = (f"saved {s['time_saved']:.1%}  A/A {s['aa_same']:.1%}  change {s['change_mean']:.2%}  "
            f"warmup {s['warmup_mean']:.1f}  forks {s['forks_mean']:.2f}  stable {s['declared_stable']:.1%}")
    if "ended_early" in s:
        text += f"  early {s['ended_early']:.1%}  bias {s['bias_mean']:.2%}"
    return text + f"  cost {s['cost_per_checkpoint_ms']:.2f} ms/checkpoint"


def markdown(results: dict) -> str:
    lines = []
    for name, r in results.items():
        lines += [f"**{name}**", "",
                  "| shape | time saved | A/A same | mean change | declared stable | ended early | mean bias | "
                  "mean warmup | mean forks |", "|---|---|---|---|---|---|---|---|---|"]
        for shape, s in [*r["per_shape"].items(), ("all", r["all"])]:
            early = f"{s['ended_early']:.1%}" if "ended_early" in s else "—"
            bias = f"{s['bias_mean']:.2%}" if "bias_mean" in s else "—"
            lines.append(f"| {shape} | {s['time_saved']:.1%} | {s['aa_same']:.1%} | {s['change_mean']:.2%} | "
                         f"{s['declared_stable']:.1%} | {early} | {bias} | {s['warmup_mean']:.1f} | "
                         f"{s['forks_mean']:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-shape", type=int, default=90)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--configs", default=None, help="semicolon-separated names (default: all); see named_configs()")
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--test-choice", action="store_true",
                    help="compare trend/step tests for the level check (warmup only) instead of configurations")
    args = ap.parse_args()
    if args.test_choice:
        results = test_choice(synthetic_suite(args.seed, args.per_shape))
        print(test_choice_markdown(results) if args.markdown else json.dumps(results, indent=2))
        return 0
    configs = named_configs()
    if args.configs:
        configs = {k: configs[k] for k in (n.strip() for n in args.configs.split(";"))}
    suite = synthetic_suite(args.seed, args.per_shape)
    results = run(configs, suite)
    document = {"seed": args.seed, "per_shape": args.per_shape, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(document, f, indent=2)
    print(markdown(results) if args.markdown else json.dumps(document, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
