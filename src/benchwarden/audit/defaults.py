"""JMH's built-in defaults by JMH version.

JMH 1.21 (CODETOOLS-7902165 and -7902170, 2018) changed the defaults from
10 forks x (20 + 20) iterations of 1 s to 5 forks x (5 + 5) iterations of
10 s (Würsten 2020, Table 2.1; Laaber et al. 2020, §2; ``Defaults.java``).
Neither uses warmup forks.  Single-shot mode has its own iteration defaults
(no warmup, one measurement "iteration" = one invocation), unchanged by 1.21.

Unknown versions get the current (>= 1.21) defaults, and the caller records
that assumption; versions are compared numerically on their leading
``major.minor[.patch]`` so ``1.17.2`` is not read as ``1.17`` and
``1.21-SNAPSHOT`` counts as 1.21.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: First JMH version with the new defaults.
DEFAULTS_CHANGED_IN = (1, 21)

_VERSION = re.compile(r"^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?")


@dataclass(frozen=True)
class JmhDefaults:
    """JMH's defaults for one version; times in seconds."""

    label: str  # "<= 1.20" or ">= 1.21"
    forks: int
    warmup_forks: int
    warmup_iterations: int
    warmup_time_s: float
    measurement_iterations: int
    measurement_time_s: float
    mode: str = "Throughput"
    threads: int = 1
    output_time_unit: str = "SECONDS"
    singleshot_warmup_iterations: int = 0
    singleshot_measurement_iterations: int = 1


LEGACY_DEFAULTS = JmhDefaults("<= 1.20", forks=10, warmup_forks=0, warmup_iterations=20, warmup_time_s=1.0,
                              measurement_iterations=20, measurement_time_s=1.0)
CURRENT_DEFAULTS = JmhDefaults(">= 1.21", forks=5, warmup_forks=0, warmup_iterations=5, warmup_time_s=10.0,
                               measurement_iterations=5, measurement_time_s=10.0)


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    """``"1.37"`` -> ``(1, 37, 0)``; ``"1.17.2"`` -> ``(1, 17, 2)``; ``"1.10.+"`` -> ``(1, 10, 0)``.

    None without at least ``major.minor`` (``"1.+"``, ranges, ``latest.release``, junk): such a version
    says nothing about which side of 1.21 it falls on.
    """
    if not text:
        return None
    m = _VERSION.match(text)
    if not m or m.group(2) is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)


def uses_legacy_defaults(version: str | None) -> bool | None:
    """True for JMH <= 1.20, False for >= 1.21, None when the version is unknown."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    return parsed[:2] < DEFAULTS_CHANGED_IN


def defaults_for(version: str | None) -> JmhDefaults:
    """JMH's defaults for ``version``; the current (>= 1.21) defaults when the version is unknown."""
    return LEGACY_DEFAULTS if uses_legacy_defaults(version) else CURRENT_DEFAULTS
