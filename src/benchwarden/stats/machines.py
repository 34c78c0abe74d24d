"""The machine level above forks: how much a benchmark's forks differ between the machines they ran on.

On a cluster (docs/distributed.md) every fork records its machine, and the measurement has three levels,
machine → fork → iteration, each a random effect (Kalibera & Jones 2013, "Rigorous Benchmarking in
Reasonable Time", §3: a level's variance is estimated from the means one level down). This module takes one
positive value per fork (a fork mean, or a pair's time ratio in a comparison) and its machine, and estimates
on the log scale (relative spreads, the scale every verdict uses) the one-way random-effects model
``log y_mj = μ + m_m + e_mj`` with ``m ~ N(0, σ_b²)`` and ``e ~ N(0, σ_w²)``:

* ``σ_w² = MSW`` (the pooled variance of values around their machine's mean, ``N − k`` degrees of freedom);
* ``σ_b² = max(0, (MSB − MSW) / n₀)`` with ``n₀ = (N − Σ n_m² / N) / (k − 1)``, the ANOVA (method of
  moments) estimator for unequal group sizes (Searle, Casella & McCulloch 1992, *Variance Components*, §3.5;
  with equal sizes n₀ = n and it is ``var(machine means) − MSW/n``, :func:`benchwarden.stats.variance_components`
  one level up);
* the F test of ``σ_b² = 0``, ``F = MSB / MSW`` on ``(k − 1, N − k)`` degrees of freedom, by
  :func:`scipy.stats.f_oneway`.

It is reported beside a verdict, not folded into it: `compare` pairs each base fork with a candidate fork
*on the same machine*, so the machine's level cancels in the pair's ratio and the verdict needs no machine
term; what can remain is a change that differs between machines, which this says. `show`'s interval is over
the forks measured, on the machines they ran on; this says how far another machine of the kind may sit.
"""

from __future__ import annotations

import math
import warnings as pywarnings
from collections.abc import Sequence

import numpy as np
from scipy import stats as sps

from benchwarden.stats.results import MachineSpread


def machine_spread(values: Sequence[float], machines: Sequence[str]) -> MachineSpread:
    """The machine level of positive per-fork ``values`` measured on ``machines`` (one label per value).

    Needs two machines; with one value per machine the within-machine spread, and so the test, cannot be
    estimated (``within`` 0, ``p_value`` NaN, ``between`` the machines' plain spread, with a warning).
    Raises ``ValueError`` on mismatched lengths, fewer than two machines, or a value that is not a positive
    finite number.
    """
    y = np.asarray(values, dtype=float)
    if y.ndim != 1 or y.size != len(machines):
        raise ValueError(f"machine_spread: {y.size} value(s) for {len(machines)} machine label(s)")
    if not np.all(np.isfinite(y)) or np.any(y <= 0):
        raise ValueError("machine_spread: every value must be a positive finite number")
    labels = list(dict.fromkeys(machines))
    if len(labels) < 2:
        raise ValueError(f"machine_spread: needs values from at least 2 machines, got {len(labels)}")
    logs = np.log(y)
    groups = [logs[[m == label for m in machines]] for label in labels]
    counts = np.array([g.size for g in groups])
    means = np.array([g.mean() for g in groups])
    n, k = int(counts.sum()), len(groups)
    notes: list[str] = []
    if n == k:
        between = float(means.std(ddof=1))
        notes.append("one value per machine: the spread between machines includes the spread between forks, "
                     "and whether machines differ cannot be tested")
        return MachineSpread(tuple(labels), tuple(int(c) for c in counts), tuple(float(math.exp(m)) for m in means),
                             between, 0.0, float("nan"), tuple(notes))
    grand = logs.mean()
    msb = float((counts * (means - grand) ** 2).sum() / (k - 1))
    msw = float(sum(((g - g.mean()) ** 2).sum() for g in groups) / (n - k))
    n0 = (n - float((counts ** 2).sum()) / n) / (k - 1)
    between = math.sqrt(max(0.0, (msb - msw) / n0))
    if msw == 0.0:
        p = 0.0 if msb > 0 else float("nan")
        notes.append("values are identical within every machine: the test is degenerate")
    else:
        with pywarnings.catch_warnings():
            pywarnings.simplefilter("ignore")
            p = float(sps.f_oneway(*groups).pvalue)
    return MachineSpread(tuple(labels), tuple(int(c) for c in counts), tuple(float(math.exp(m)) for m in means),
                         between, math.sqrt(msw), p, tuple(notes))
