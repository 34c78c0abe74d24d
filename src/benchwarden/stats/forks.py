"""Fork-structured samples: validation, per-fork means and the grand mean.

One version of one benchmark is measured in *forks* (fresh processes, JMH's
word); each fork yields a series of measurement iterations.  Every function in
``benchwarden.stats`` that takes "forks" accepts:

* a 2-D array of shape ``(n_forks, n_iterations)``;
* a sequence of 1-D sequences (one per fork; forks may differ in length, i.e.
  ragged data is allowed);
* a flat 1-D sequence of numbers, read as **one** fork.

Values are normally ns/op (positive), but the validation here only requires
finite numbers; functions whose result is relative to the mean (ratios,
RCIW, CV, ...) additionally require a positive mean and say so.

The grand mean of fork-structured data is the **mean of the fork means**
(each fork weighted equally), as in Kalibera & Jones (2013, "Rigorous
Benchmarking in Reasonable Time", §4) and Horký's parametric multi-run
statistic M̄ = (1/r) Σ_i M̄_i (thesis §2.5.4).  Forks are the independent units;
a fork that happened to run more iterations must not dominate.  With equal
iteration counts this equals the pooled mean of all iterations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np

ForkData = Union[np.ndarray, Sequence[np.ndarray], Sequence[Sequence[float]], Sequence[float]]
"""Anything :func:`as_forks` accepts."""


def _is_scalar_sequence(data: object) -> bool:
    if isinstance(data, np.ndarray):
        return data.ndim == 1 and data.dtype != object
    if isinstance(data, (str, bytes)):
        return False
    try:
        first = next(iter(data))  # type: ignore[call-overload]
    except (StopIteration, TypeError):
        return False
    return np.ndim(first) == 0


def as_forks(data: ForkData, name: str = "forks") -> tuple[np.ndarray, ...]:
    """Validate fork-structured data and return one float64 1-D array per fork.

    ``name`` is used in error messages (e.g. ``"base"``, ``"candidate"``).

    Raises ``ValueError`` naming the fork and iteration index when the data is
    empty, a fork is empty, a value is not a number, or a value is NaN/±inf.
    Arrays are copied, so callers may mutate their input afterwards.
    """
    if isinstance(data, (str, bytes)):
        raise ValueError(f"{name}: expected numbers per fork, got a string")
    if _is_scalar_sequence(data):
        rows: list[object] = [data]
    elif isinstance(data, np.ndarray) and data.ndim == 2:
        rows = list(data)
    elif isinstance(data, np.ndarray) and data.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D or 2-D array, got {data.ndim}-D")
    else:
        try:
            rows = list(data)
        except TypeError:
            raise ValueError(f"{name}: expected a sequence of forks, got {type(data).__name__}") from None
    if not rows:
        raise ValueError(f"{name}: no forks (empty data)")
    forks = []
    for fork_index, row in enumerate(rows):
        try:
            values = np.array(row, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: fork {fork_index} contains a value that is not a number") from None
        if values.ndim != 1:
            raise ValueError(f"{name}: fork {fork_index} must be a flat sequence of numbers")
        if values.size == 0:
            raise ValueError(f"{name}: fork {fork_index} has no iterations")
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(
                f"{name}: fork {fork_index}, iteration {int(bad[0])}: value {float(values[bad[0]])!r} is not finite"
            )
        forks.append(values)
    return tuple(forks)


def as_sample(data: ForkData, name: str = "sample") -> np.ndarray:
    """Validate data (flat or fork-structured) and return all values as one 1-D array."""
    return np.concatenate(as_forks(data, name))


def fork_means(forks: ForkData, name: str = "forks") -> np.ndarray:
    """Per-fork arithmetic means, shape ``(n_forks,)``; the unit Peass tests on (Reichelt et al. §2.4)."""
    return np.array([fork.mean() for fork in as_forks(forks, name)])


def grand_mean(forks: ForkData, name: str = "forks") -> float:
    """Mean of the per-fork means (see the module docstring for why not the pooled mean)."""
    return float(fork_means(forks, name).mean())


def require_positive_mean(mean: float, name: str) -> None:
    """Raise ``ValueError`` unless ``mean > 0`` (needed by every relative measure)."""
    if not mean > 0:
        raise ValueError(f"{name}: mean is {mean!r}; relative measures need a positive mean (values in ns/op)")
