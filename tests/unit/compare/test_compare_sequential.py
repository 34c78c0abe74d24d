"""Group-sequential design: spending functions, critical values against independent references, and
A/A simulations showing that the false-positive rate holds despite repeated looks (seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchwarden.compare.sequential import SequentialDesign, critical_values, spent_alpha
from benchwarden.compare.verdict import Verdict
from tests.unit.compare.sequential_sim import lognormal_versions, simulate


@pytest.mark.parametrize("spending", ["pocock", "obrien-fleming"])
def test_spending_reaches_alpha_at_the_end_and_increases(spending):
    fractions = np.linspace(0.2, 1.0, 17)
    spent = [spent_alpha(t, 0.05, spending) for t in fractions]
    assert spent[-1] == pytest.approx(0.05, abs=1e-12)
    assert all(a < b for a, b in zip(spent, spent[1:]))
    assert spent[0] > 0


def test_spending_worked_values():
    # Lan & DeMets (1983): Pocock-type alpha·ln(1 + (e−1)t); O'Brien-Fleming-type 2 − 2Φ(z/√t)
    assert spent_alpha(0.5, 0.05, "pocock") == pytest.approx(0.05 * math.log(1 + (math.e - 1) / 2))
    assert spent_alpha(0.5, 0.05, "obrien-fleming") == pytest.approx(2 * stats.norm.sf(1.959964 / math.sqrt(0.5)),
                                                                     rel=1e-5)
    with pytest.raises(ValueError, match="spending"):
        spent_alpha(0.5, 0.05, "haybittle")
    with pytest.raises(ValueError, match="fraction"):
        spent_alpha(0.0, 0.05, "pocock")


def test_one_look_is_the_fixed_sample_interval():
    assert critical_values((1.0,), 0.05, "pocock") == pytest.approx((stats.norm.ppf(0.975),))


def _continuation_probability(c: tuple[float, ...], fractions: tuple[float, ...]) -> float:
    """P(|Z_k| < c_k for all k) from scipy's multivariate normal CDF (Genz), by inclusion-exclusion."""
    k = len(c)
    cov = np.array([[math.sqrt(min(a, b) / max(a, b)) for b in fractions] for a in fractions])
    mvn = stats.multivariate_normal(mean=np.zeros(k), cov=cov)
    total = 0.0
    for signs in np.ndindex(*(2,) * k):
        corner = np.array([c[i] if s == 0 else -c[i] for i, s in enumerate(signs)])
        total += (-1) ** sum(signs) * mvn.cdf(corner)
    return total


@pytest.mark.parametrize("spending", ["pocock", "obrien-fleming"])
@pytest.mark.parametrize("fractions", [(0.5, 1.0), (0.4, 0.7, 1.0)])
def test_critical_values_spend_exactly_alpha_scipy_reference(spending, fractions):
    c = critical_values(fractions, 0.05, spending)
    for k in range(1, len(fractions) + 1):
        crossed = 1 - _continuation_probability(c[:k], fractions[:k])
        assert crossed == pytest.approx(spent_alpha(fractions[k - 1], 0.05, spending), abs=2e-4)


@pytest.mark.parametrize("spending", ["pocock", "obrien-fleming"])
def test_critical_values_monte_carlo_brownian_motion(spending):
    design = SequentialDesign(0.95, 4, 10, spending)
    fractions = np.array(design.look_pairs) / design.max_pairs
    c = np.array(critical_values(tuple(fractions), 0.05, spending))
    rng = np.random.default_rng(12345)
    steps = rng.standard_normal((200_000, fractions.size)) * np.sqrt(np.diff(np.concatenate([[0.0], fractions])))
    z = np.abs(np.cumsum(steps, axis=1) / np.sqrt(fractions))
    crossed_by = (np.cumsum(z >= c, axis=1) > 0).mean(axis=0)
    expected = [spent_alpha(t, 0.05, spending) for t in fractions]
    assert crossed_by == pytest.approx(expected, abs=2e-3)


def test_design_levels_and_validation():
    design = SequentialDesign(0.95, 4, 10, "pocock")
    levels = [design.look_confidence(n) for n in design.look_pairs]
    assert all(0.95 < lv < 0.99 for lv in levels)  # every look is stricter than the fixed-sample 95 %
    assert SequentialDesign(0.95, 4, 10, "none").look_confidence(7) == 0.95
    obf = SequentialDesign(0.95, 4, 10, "obrien-fleming")
    assert obf.look_confidence(4) > 0.998 and obf.look_confidence(10) < design.look_confidence(10)
    with pytest.raises(ValueError, match="look"):
        design.look_confidence(3)
    with pytest.raises(ValueError):
        SequentialDesign(0.95, 5, 4)
    with pytest.raises(ValueError):
        SequentialDesign(1.5, 4, 10)


# --- A/A and boundary simulations: the product's own judge() and design decide -------------------------

NOISE = dict(forks=10, iterations=10, fork_sigma=0.03, iteration_sigma=0.02)


def test_aa_false_positive_rate_holds_with_repeated_looks():
    # threshold 0 (no band, no noise floor) isolates the sequential design: a false positive is any look
    # whose interval excludes 1 with the rank test agreeing.  700 experiments: binomial SE 0.82 points.
    design = SequentialDesign(0.95, 4, 10, "pocock")
    summary = simulate(lognormal_versions(1.0, **NOISE), design, 700, seed=1, min_change=0.0,
                       use_noise_floor=False, method="t")
    false_positive = summary.rate(Verdict.SLOWER, Verdict.FASTER)
    print(f"A/A, 7 looks, pocock: false positives {false_positive:.3f}")
    assert false_positive <= 0.05 + 0.025


def test_aa_without_correction_is_inflated():
    # the same looks at a fixed 95 % level: why the design exists
    naive = simulate(lognormal_versions(1.0, **NOISE), SequentialDesign(0.95, 4, 10, "none"), 400, seed=1,
                     min_change=0.0, use_noise_floor=False, method="t")
    rate = naive.rate(Verdict.SLOWER, Verdict.FASTER)
    print(f"A/A, 7 looks, no correction: false positives {rate:.3f}")
    assert rate > 0.075


def test_aa_with_the_default_studentized_bootstrap():
    summary = simulate(lognormal_versions(1.0, **NOISE), SequentialDesign(0.95, 4, 10), 200, seed=2,
                       min_change=0.0, use_noise_floor=False, method="studentized", n_resamples=2000)
    rate = summary.rate(Verdict.SLOWER, Verdict.FASTER)
    print(f"A/A, studentized bootstrap: false positives {rate:.3f}")
    assert rate <= 0.05 + 0.045  # 200 experiments: SE 1.5 points


def test_both_error_rates_at_the_band_edge():
    # true ratio exactly 1 + t: "slower" (needs the interval above 1 + t) and "unchanged" (needs it inside)
    # are both wrong here; each must stay near α/2
    summary = simulate(lognormal_versions(1.05, **NOISE), SequentialDesign(0.95, 4, 10), 500, seed=3,
                       min_change=0.05, use_noise_floor=False, method="t")
    print(f"ratio at the band edge: slower {summary.rate(Verdict.SLOWER):.3f}, "
          f"unchanged {summary.rate(Verdict.UNCHANGED):.3f}")
    assert summary.rate(Verdict.SLOWER) <= 0.025 + 0.02
    assert summary.rate(Verdict.UNCHANGED) <= 0.025 + 0.02


def test_large_changes_stop_at_the_first_look_and_aa_settles_unchanged():
    design = SequentialDesign(0.95, 4, 10)
    slow = simulate(lognormal_versions(1.30, **NOISE), design, 100, seed=4, min_change=0.02, method="t")
    assert slow.rate(Verdict.SLOWER) == 1.0 and slow.mean_pairs == 4.0
    quiet = dict(NOISE, fork_sigma=0.005, iteration_sigma=0.01)
    same = simulate(lognormal_versions(1.0, **quiet), design, 100, seed=5, min_change=0.02, method="t")
    assert same.rate(Verdict.UNCHANGED) > 0.9 and same.mean_pairs < 5
