"""Stability criteria of the dynamic stop policy: one module per criterion, and a registry by name.

benchwarden's own: ``level`` (no trend or serial dependence in the warmup
window, confirmed by the measurement; no trend in the fork means) and
``precision`` (the interval of the mean across forks within a tolerance).
The study's (Laaber et al. FSE 2020), kept as options: ``cv`` and ``rciw``
are variance-type (window spread <= threshold), ``kld`` probability-type
(window mean >= threshold); see :mod:`.base` and docs/dynamic.md.
"""

from __future__ import annotations

from benchwarden.config import CriterionSettings
from benchwarden.runner.criteria.base import (
    CheckState,
    Criterion,
    StabilityKind,
    StopCriterion,
    WindowCriterion,
    WindowState,
    WindowTrack,
    is_stable,
)
from benchwarden.runner.criteria.cv import CvCriterion
from benchwarden.runner.criteria.kld import KldCriterion
from benchwarden.runner.criteria.level import LevelCriterion
from benchwarden.runner.criteria.precision import PrecisionCriterion
from benchwarden.runner.criteria.rciw import RciwCriterion


def make_criterion(settings: CriterionSettings) -> Criterion:
    """The study criterion (a window value) named by ``settings.name``; ValueError for other names."""
    if settings.name == "cv":
        return CvCriterion()
    if settings.name == "rciw":
        return RciwCriterion(confidence=settings.confidence, resamples=settings.resamples)
    if settings.name == "kld":
        return KldCriterion()
    raise ValueError(f"unknown stability criterion {settings.name!r}; expected cv, rciw or kld")


def make_stop_criterion(settings: CriterionSettings) -> StopCriterion:
    """A fresh criterion for one benchmark, any name; ValueError for an unknown name."""
    if settings.name == "level":
        return LevelCriterion(alpha=settings.threshold, window=settings.window, scout=settings.scout)
    if settings.name == "precision":
        return PrecisionCriterion(tolerance=settings.threshold, confidence=settings.confidence)
    return WindowCriterion(make_criterion(settings), settings.window, settings.fork_window, settings.threshold)


__all__ = ["CheckState", "Criterion", "CvCriterion", "KldCriterion", "LevelCriterion", "PrecisionCriterion",
           "RciwCriterion", "StabilityKind", "StopCriterion", "WindowCriterion", "WindowState", "WindowTrack",
           "is_stable", "make_criterion", "make_stop_criterion"]
