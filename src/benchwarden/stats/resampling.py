"""Hierarchical (multi-level) bootstrap resampling of means — the engine behind every bootstrap interval.

Method (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
2013, §4; Horký thesis §2.5.5; Laaber et al. FSE 2020 §3.8 via *pa*): resample
**with replacement at every level** — first the top-level units (forks, or
runs when a third level is given), then, independently for every chosen unit,
its children (iterations within a fork, forks within a run) — and take the
mean of the per-unit means.  Resampling is uniform with replacement; the
quirks of *pa* (normal-distributed indices, ``1-α`` upper percentile, digest
seed-002 §3.11) are deliberately not copied.

**Banked inner levels.**  The exact algorithm draws a fresh inner resample
for every (resample, slot) pair: for 10,000 resamples × 10 forks × 20
iterations that is 2·10⁶ draws per benchmark version.  We instead draw, for
every unit below the top, a *bank* of ``bank_size`` independent inner
resample means once, and the level above picks bank entries uniformly at
random (one integer picks both the unit and the bank entry).  Each pick is
then a draw from the empirical distribution of ``bank_size`` exact inner
resamples, which converges to the exact inner bootstrap distribution as the
bank grows; the outer level is unchanged.  Each bank is moment-matched to
the exact inner mean and variance (:func:`match_moments`).  With the default
bank of 1,000 entries the bootstrap variance and quantiles agree with the
exact algorithm to within Monte-Carlo error (checked in
``tests/unit/stats/test_stats_resampling.py``), at ~10× lower cost for the
issue's workload.  The top level always draws ``n_resamples`` fresh resamples.

Everything is vectorised with numpy; memory is bounded by processing the
iteration draws in blocks (see :data:`BLOCK_ELEMENTS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from benchwarden.stats.forks import ForkData, as_forks

DEFAULT_BANK_SIZE = 1000
"""Inner-level bank entries per unit (see the module docstring)."""

BLOCK_ELEMENTS = 1 << 14
"""Index/value elements materialised per block: small blocks stay in cache and avoid
re-mapping memory on every allocation, which measured 2-3x faster than large blocks."""

ROUNDING_TOLERANCE = 16 * np.finfo(np.float64).eps
"""Variance below this fraction of the mean square is rounding noise (identical picks)."""

Seed = int | np.random.Generator | None


def make_rng(seed: Seed) -> np.random.Generator:
    """``numpy.random.Generator`` from an int seed, an existing generator (used as is) or None (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _index_dtype(largest: int) -> type:
    """Narrowest index type holding ``largest`` (narrow bounded integers are generated faster)."""
    if largest <= np.iinfo(np.int16).max:
        return np.int16
    return np.int32 if largest <= np.iinfo(np.int32).max else np.int64


def iteration_banks(values: np.ndarray, bank_size: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap means of the rows of ``values`` (shape ``(units, n)``): returns ``(units, bank_size)``.

    Entry ``[u, k]`` is the mean of ``n`` values drawn uniformly with
    replacement from row ``u``.  Draws are made in blocks of about
    :data:`BLOCK_ELEMENTS` indices (small enough to stay in cache).
    """
    units, n = values.shape
    if n == 1:
        return np.repeat(values, bank_size, axis=1)
    sums = np.zeros((units, bank_size))
    index_dtype = _index_dtype(n - 1)
    columns = min(n, BLOCK_ELEMENTS)
    rows = max(1, BLOCK_ELEMENTS // columns)
    for unit in range(units):
        row = values[unit]
        for start in range(0, bank_size, rows):
            stop = min(bank_size, start + rows)
            for first in range(0, n, columns):
                width = min(columns, n - first)
                picks = rng.integers(0, n, size=(stop - start, width), dtype=index_dtype)
                sums[unit, start:stop] += row[picks].sum(axis=1)
    return sums / n


def match_moments(
    banks: np.ndarray, means: np.ndarray, variances: np.ndarray, lows: np.ndarray, highs: np.ndarray
) -> np.ndarray:
    """Shift and scale each bank row to the exact bootstrap mean and variance of its unit, within its range.

    The exact (infinite-resample) bootstrap distribution of a unit's mean has
    known first two moments (see :func:`exact_moments`); matching them removes
    the bank's Monte-Carlo error in location and scale while keeping its
    shape (skewness).  This is a variance-reduction device in the spirit of
    the balanced bootstrap (Davison & Hinkley 1997, §9.2).  Every resampled
    mean lies in ``[min, max]`` of the unit's data, so entries are clipped to
    ``[lows, highs]`` afterwards (this matters only for tiny, extremely skewed
    units, and keeps positive data positive).  Rows with zero spread are
    only shifted.
    """
    centred = banks - banks.mean(axis=-1, keepdims=True)
    spread = centred.std(axis=-1, keepdims=True)
    target = np.sqrt(variances)[..., None]
    scale = np.divide(target, spread, out=np.ones_like(spread), where=spread > 0)
    return np.clip(means[..., None] + centred * scale, lows[..., None], highs[..., None])


def exact_moments(unit_means: np.ndarray, unit_variances: np.ndarray) -> tuple[float, float]:
    """Mean and variance of the exact bootstrap distribution of a mean over resampled units.

    A resample picks C units uniformly with replacement and, independently for
    each pick, a value from the unit's own bootstrap distribution (mean μ_c,
    variance σ²_c).  The law of total variance gives
    ``E = μ̄`` and ``Var = [ (1/C)·Σ(μ_c − μ̄)² + (1/C)·Σ σ²_c ] / C``.
    For iterations within a fork (σ²_c = 0, values x_i) this is ``mean(x)``
    and ``var(x, ddof=0)/n``.
    """
    count = unit_means.size
    mean = float(unit_means.mean())
    variance = float((((unit_means - mean) ** 2).mean() + unit_variances.mean()) / count)
    return mean, variance


@dataclass(frozen=True)
class Banks:
    """Bank entries per unit, with each unit's exact bootstrap mean and variance."""

    entries: np.ndarray  # (n_units, bank_size)
    means: np.ndarray  # (n_units,)
    variances: np.ndarray  # (n_units,)
    lows: np.ndarray  # (n_units,) smallest value any resampled mean of the unit can take
    highs: np.ndarray  # (n_units,) largest such value


def fork_banks(forks: Sequence[np.ndarray], bank_size: int, rng: np.random.Generator) -> Banks:
    """Moment-matched banks of iteration-level bootstrap means for (possibly ragged) forks."""
    entries = np.empty((len(forks), bank_size))
    by_length: dict[int, list[int]] = {}
    for index, fork in enumerate(forks):
        by_length.setdefault(fork.size, []).append(index)
    for indices in by_length.values():
        entries[indices] = iteration_banks(np.stack([forks[i] for i in indices]), bank_size, rng)
    means = np.array([fork.mean() for fork in forks])
    variances = np.array([fork.var() / fork.size for fork in forks])
    lows = np.array([fork.min() for fork in forks])
    highs = np.array([fork.max() for fork in forks])
    return Banks(match_moments(entries, means, variances, lows, highs), means, variances, lows, highs)


@dataclass(frozen=True)
class LevelDraw:
    """Resampled means of one level, plus the spread of the picked units (for studentizing).

    ``means[k]`` is the mean of the units picked in resample ``k``;
    ``variances[k]`` is their sample variance (ddof=1; 0 with one unit), i.e.
    the resampled analogue of the between-unit variance.
    """

    means: np.ndarray
    variances: np.ndarray


def draw_level(
    banks: np.ndarray, n_resamples: int, rng: np.random.Generator, with_variances: bool = True
) -> LevelDraw:
    """Resample units with replacement and pick one bank entry for each: the outer bootstrap level.

    ``banks`` has shape ``(n_units, bank_size)``; each resample picks
    ``n_units`` units uniformly with replacement and, for each, a uniform
    bank entry (one integer in ``[0, n_units·bank_size)`` does both).
    Returns arrays of shape ``(n_resamples,)``; ``variances`` is all zeros
    unless ``with_variances``.  Works in blocks of about
    :data:`BLOCK_ELEMENTS` picks.  Values are centred on the bank's grand
    mean and variances use the two-pass formula, so a spread that is tiny
    relative to the mean keeps its precision.
    """
    n_units, bank_size = banks.shape
    centre = float(banks.mean())
    flat = (banks - centre).ravel()
    means = np.empty(n_resamples)
    variances = np.zeros(n_resamples)
    block = max(1, BLOCK_ELEMENTS // n_units)
    index_dtype = _index_dtype(flat.size - 1)
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        picked = flat[rng.integers(0, flat.size, size=(stop - start, n_units), dtype=index_dtype)]
        sums = picked.sum(axis=1)
        means[start:stop] = sums / n_units
        if with_variances and n_units > 1:
            deviations = picked - means[start:stop, None]
            variance = np.einsum("ij,ij->i", deviations, deviations) / (n_units - 1)
            # Identical picks leave only rounding error; make that an exact 0.
            squares = np.einsum("ij,ij->i", picked, picked) / (n_units - 1)
            variance[variance <= ROUNDING_TOLERANCE * squares] = 0.0
            variances[start:stop] = variance
    return LevelDraw(means + centre, variances)


def _run_banks(runs: Sequence[tuple[np.ndarray, ...]], bank_size: int, rng: np.random.Generator) -> Banks:
    """Third level: for every run, a moment-matched bank of two-level resampled means (forks, then iterations)."""
    entries, means, variances, lows, highs = [], [], [], [], []
    for forks in runs:
        banks = fork_banks(forks, bank_size, rng)
        entries.append(draw_level(banks.entries, bank_size, rng, with_variances=False).means)
        mean, variance = exact_moments(banks.means, banks.variances)
        means.append(mean)
        variances.append(variance)
        lows.append(banks.lows.min())
        highs.append(banks.highs.max())
    moments = np.array(means), np.array(variances), np.array(lows), np.array(highs)
    return Banks(match_moments(np.stack(entries), *moments), *moments)


def as_runs(data: Sequence[ForkData], name: str = "runs") -> tuple[tuple[np.ndarray, ...], ...]:
    """Validate three-level data: a sequence of runs (e.g. machines or sessions), each fork-structured."""
    if isinstance(data, np.ndarray) and data.ndim == 3:
        data = list(data)
    runs = tuple(as_forks(run, f"{name}[{index}]") for index, run in enumerate(data))
    if not runs:
        raise ValueError(f"{name}: no runs (empty data)")
    return runs


def top_level_banks(
    data: ForkData | Sequence[ForkData], levels: int, bank_size: int, rng: np.random.Generator, name: str
) -> Banks:
    """Banks of the units the outermost level resamples: forks (``levels=2``) or runs (``levels=3``)."""
    if levels == 2:
        return fork_banks(as_forks(cast(ForkData, data), name), bank_size, rng)
    if levels == 3:
        return _run_banks(as_runs(cast("Sequence[ForkData]", data), name), bank_size, rng)
    raise ValueError(f"levels must be 2 (forks, iterations) or 3 (runs, forks, iterations), got {levels!r}")


def top_level_means(data: ForkData | Sequence[ForkData], levels: int, name: str) -> np.ndarray:
    """Means of the outermost units without resampling: fork means, or run means (mean of fork means)."""
    if levels == 2:
        return np.array([fork.mean() for fork in as_forks(data, name)])  # type: ignore[arg-type]
    if levels == 3:
        return np.array([np.mean([fork.mean() for fork in run]) for run in as_runs(data, name)])  # type: ignore[arg-type]
    raise ValueError(f"levels must be 2 (forks, iterations) or 3 (runs, forks, iterations), got {levels!r}")


def hierarchical_bootstrap_means(
    data: ForkData | Sequence[ForkData],
    n_resamples: int = 1000,
    seed: Seed = None,
    *,
    levels: int = 2,
    bank_size: int = DEFAULT_BANK_SIZE,
) -> np.ndarray:
    """Hierarchical bootstrap distribution of the mean of fork means: shape ``(n_resamples,)``.

    ``levels=2``: ``data`` is fork-structured (see :mod:`.forks`); forks are
    resampled with replacement, then iterations within each chosen fork.
    ``levels=3``: ``data`` is a sequence of runs, each fork-structured; runs,
    then forks, then iterations are resampled.  The statistic is the mean of
    the per-unit means at every level.

    Formula and source: Kalibera & Jones 2013 §4 (two/three-level random
    resampling with replacement); see the module docstring for the banked
    inner levels.  Small samples: with one fork (or run) the top level has
    nothing to resample and the distribution reflects only inner noise.
    Raises ``ValueError`` for empty/NaN data or invalid parameters.
    """
    check_counts(n_resamples, bank_size)
    rng = make_rng(seed)
    banks = top_level_banks(data, levels, bank_size, rng, "data")
    return draw_level(banks.entries, n_resamples, rng, with_variances=False).means


def check_counts(n_resamples: int, bank_size: int) -> None:
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if int(bank_size) != bank_size or bank_size < 1:
        raise ValueError(f"bank_size must be a positive integer, got {bank_size!r}")


