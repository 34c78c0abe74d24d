"""A run's configuration snapshot: what ``run --resume``, ``show`` and re-analysis read back from a stored run.

One shape for every command that starts a run of configured suites (``run``, ``serve``), so a run that
``serve`` started and a shutdown interrupted is finished by ``benchwarden run --resume`` like any other.
"""

from __future__ import annotations

from typing import Any, Sequence

from benchwarden.config import Config, Suite


def run_snapshot(config: Config, suites: Sequence[Suite], cli_filter: str | None) -> dict[str, Any]:
    """The config path, the filter, and each suite's kind, root, settings and parameter overrides."""
    return {
        "config_path": str(config.path),
        "filter": cli_filter,
        "suites": {s.name: {"kind": s.kind, "root": str(s.context.root), "settings": s.settings.to_dict(),
                            **({"params": {k: list(v) for k, v in s.context.params.items()}}
                               if s.context.params else {})}
                   for s in suites},
    }
