"""Stability criteria of the dynamic stop policy: one module per criterion, and a registry by name.

``cv`` and ``rciw`` are variance-type (window spread <= threshold), ``kld``
probability-type (window mean >= threshold); see :mod:`.base` and
docs/dynamic.md.
"""

from __future__ import annotations

from benchwarden.config import CriterionSettings
from benchwarden.runner.criteria.base import Criterion, StabilityKind, WindowState, WindowTrack, is_stable
from benchwarden.runner.criteria.cv import CvCriterion
from benchwarden.runner.criteria.kld import KldCriterion
from benchwarden.runner.criteria.rciw import RciwCriterion


def make_criterion(settings: CriterionSettings) -> Criterion:
    """The criterion named by ``settings.name``; ValueError for an unknown name."""
    if settings.name == "cv":
        return CvCriterion()
    if settings.name == "rciw":
        return RciwCriterion(confidence=settings.confidence, resamples=settings.resamples)
    if settings.name == "kld":
        return KldCriterion()
    raise ValueError(f"unknown stability criterion {settings.name!r}; expected cv, rciw or kld")


__all__ = ["Criterion", "CvCriterion", "KldCriterion", "RciwCriterion", "StabilityKind", "WindowState",
           "WindowTrack", "is_stable", "make_criterion"]
