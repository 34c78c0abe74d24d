"""Complexity classes fitted to a cost over a parameter: each class recovered from its own curve, R² as scipy's
linregress gives it for the linear model, flat noise read as constant, too few points refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scistats

from benchwarden.stats.complexity import fit_complexity

N = np.array([10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0])
CURVES = {"logarithmic": np.log, "linear": lambda n: n, "linearithmic": lambda n: n * np.log(n),
          "quadratic": lambda n: n ** 2, "cubic": lambda n: n ** 3}


@pytest.mark.parametrize("name", sorted(CURVES))
def test_each_class_is_recovered_from_its_curve_with_an_overhead(name):
    cost = 50.0 + 3.0 * CURVES[name](N)
    fit = fit_complexity(N, cost)
    assert fit.best.name == name and fit.best.r2 == pytest.approx(1.0, abs=1e-9)
    assert fit.best.a == pytest.approx(50.0, rel=1e-6) and fit.best.b == pytest.approx(3.0, rel=1e-9)
    assert fit.best.predict(N) == pytest.approx(cost)


def test_r2_is_linregress_r_squared_and_the_exponent_the_log_log_slope():
    rng = np.random.default_rng(3)
    cost = (200.0 + 5.0 * N) * np.exp(rng.normal(0, 0.05, N.size))
    fit = fit_complexity(N, cost)
    linear = next(f for f in fit.fits if f.name == "linear")
    assert linear.r2 == pytest.approx(scistats.linregress(N, cost).rvalue ** 2, rel=1e-9)
    assert fit.exponent == pytest.approx(scistats.linregress(np.log(N), np.log(cost)).slope, rel=1e-9)
    assert fit.best.name in ("linear", "linearithmic") and fit.best.r2 > 0.99
    assert fit.runner_up is not None and fit.runner_up.name != fit.best.name
    assert fit.summary("size").startswith(f"≈ {fit.best.name} in size (")


def test_flat_noise_is_constant_and_a_falling_cost_never_grows():
    rng = np.random.default_rng(4)
    flat = fit_complexity(N, 100.0 * np.exp(rng.normal(0, 0.02, N.size)))
    assert flat.best.name == "constant" and flat.best.b == 0 and abs(flat.exponent) < 0.05
    assert flat.summary("n").startswith("≈ constant in n (O(1)); t ∝ n^")
    falling = fit_complexity(N, 1000.0 / N)
    assert falling.best.name == "constant" and all(f.b >= 0 for f in falling.fits)
    assert falling.exponent == pytest.approx(-1.0)


def test_too_few_or_invalid_points_are_refused():
    with pytest.raises(ValueError, match="at least 3 distinct"):
        fit_complexity([10, 10, 100], [1, 2, 3])
    with pytest.raises(ValueError, match="positive"):
        fit_complexity([1, 2, 3], [1, 0, 3])
    with pytest.raises(ValueError, match="positive"):
        fit_complexity([1, 2, math.inf], [1, 2, 3])
    with pytest.raises(ValueError, match="one length"):
        fit_complexity([1, 2, 3], [1, 2])
