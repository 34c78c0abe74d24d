"""How a method's cost grows with one input parameter: the best-fitting complexity class, its fit, and the power law.

Input: the parameter's values ``n > 0`` (at least 3 distinct ones) and the mean cost at each (ns/op, > 0), e.g.
the latest run's mean of each ``size`` of a parameterised benchmark.  Output: :class:`ComplexityFit`.

**Classes** (the usual list, as the ``big_O`` tool's): each is the model
``t = a + b·f(n)`` with ``a`` the part that does not grow (call overhead) and ``b ≥ 0``, ``f`` one of ``1``,
``log n``, ``n``, ``n log n``, ``n²``, ``n³``; fitted by ordinary least squares (``numpy.linalg.lstsq``) on the
costs relative to their mean (so a cost in ns and one in ms give the same fit).  A class whose best ``b`` would be
negative (cost falling as ``f`` grows) is fitted with ``b = 0``, i.e. as constant.  The class with the smallest
residual sum of squares wins; the constant class, with one parameter fewer, wins only when no growing class explains
at least half of the variance (R² < 0.5), so noise around a flat cost is not read as growth.
**R²** is ``1 − SS_res/SS_tot`` of the winning model (1 for a perfect fit; 0 for the constant model by definition).

**Power law** (Goldsmith, Aiken & Wilkerson, "Measuring empirical computational complexity", ESEC/FSE 2007, §3):
the slope ``k`` of ``log t`` on ``log n`` by least squares, ``t ∝ n^k`` — between classes it says how fast the cost
grows where the fitted range lies (an ``n log n`` method reads ``k ≈ 1.1`` over 10..1000).

With 3 to 5 values, neighbouring classes (``n`` and ``n log n``) can fit almost equally well: :attr:`runner_up`
names the second-best growing class and its R², so a reader sees when the data cannot tell them apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

MIN_POINTS = 3
CONSTANT_R2 = 0.5

CLASSES: tuple[tuple[str, str, Callable[[np.ndarray], np.ndarray]], ...] = (
    ("constant", "O(1)", lambda n: np.zeros_like(n)),
    ("logarithmic", "O(log n)", np.log),
    ("linear", "O(n)", lambda n: n),
    ("linearithmic", "O(n log n)", lambda n: n * np.log(n)),
    ("quadratic", "O(n²)", lambda n: n ** 2),
    ("cubic", "O(n³)", lambda n: n ** 3),
)


@dataclass(frozen=True)
class ClassFit:
    """One class's model ``t = a + b·f(n)`` in the input's unit, and its R²."""

    name: str
    notation: str
    a: float
    b: float
    r2: float

    def predict(self, n: Sequence[float] | np.ndarray) -> np.ndarray:
        f = dict((name, fn) for name, _, fn in CLASSES)[self.name]
        return self.a + self.b * f(np.asarray(n, dtype=float))


@dataclass(frozen=True)
class ComplexityFit:
    """The winning class, the runner-up among the growing classes, every class's fit, and the power-law slope."""

    best: ClassFit
    runner_up: ClassFit | None
    fits: tuple[ClassFit, ...]
    exponent: float
    points: int

    def summary(self, axis: str) -> str:
        """E.g. ``≈ linear in size (O(n)), R² 0.998; t ∝ size^1.02``."""
        text = f"≈ {self.best.name} in {axis} ({self.best.notation})"
        if self.best.name != "constant":
            text += f", R² {self.best.r2:.3f}"
        return text + f"; t ∝ {axis}^{self.exponent:.2f}"


def fit_complexity(n: Sequence[float], cost: Sequence[float]) -> ComplexityFit:
    """Fit every class to ``cost`` over ``n`` (module docstring).  Raises ``ValueError`` for fewer than 3 distinct
    ``n``, a non-positive or non-finite value, or lengths that differ."""
    x = np.asarray(n, dtype=float)
    y = np.asarray(cost, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"n and cost must be 1-D of one length, got {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(x > 0) and np.all(y > 0)):
        raise ValueError("n and cost must be finite and positive")
    if np.unique(x).size < MIN_POINTS:
        raise ValueError(f"a complexity fit needs at least {MIN_POINTS} distinct parameter values, got "
                         f"{np.unique(x).size}")
    scale = float(y.mean())
    rel = y / scale
    ss_tot = float(((rel - rel.mean()) ** 2).sum())
    fits = []
    for name, notation, f in CLASSES:
        column = f(x)
        if name == "constant" or np.ptp(column) == 0:
            a, b = float(rel.mean()), 0.0
        else:
            design = np.column_stack([np.ones_like(x), column])
            (a, b), *_ = np.linalg.lstsq(design, rel, rcond=None)
            if b < 0:
                a, b = float(rel.mean()), 0.0
        residual = rel - (a + b * column)
        ss_res = float((residual ** 2).sum())
        r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res == 0 else 0.0)
        fits.append(ClassFit(name, notation, float(a) * scale, float(b) * scale, float(r2)))
    growing = sorted((f for f in fits if f.name != "constant" and f.b > 0), key=lambda f: -f.r2)
    if growing and growing[0].r2 >= CONSTANT_R2:
        best, runner_up = growing[0], (growing[1] if len(growing) > 1 else None)
    else:
        best, runner_up = fits[0], (growing[0] if growing else None)
    slope = float(np.polyfit(np.log(x), np.log(y), 1)[0])
    return ComplexityFit(best, runner_up, tuple(fits), slope if math.isfinite(slope) else float("nan"),
                         int(x.size))
