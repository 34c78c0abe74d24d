"""Conversion between model objects and plain JSON values, shared by the database rows and the JSON export.

One place decides how a :class:`~benchwarden.model.StopDecision` or a
parameter list looks as JSON, so the database and the export file can never
drift apart.  Every function here is pure.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from benchwarden.model import StopDecision

#: Message given to a benchmark the run never finished (no ``finish_benchmark``).
#:
#: :class:`~benchwarden.model.BenchmarkStatus` has no "pending" member, so an
#: unfinished benchmark is loaded as ``OK`` with exactly this message, and
#: :meth:`Store.import_run <benchwarden.store.store.Store.import_run>` turns
#: that pair back into "unfinished".  This keeps an interrupted run's
#: export -> import -> export identical.
UNFINISHED_MESSAGE = "unfinished: the run stopped before this benchmark completed"


def decision_to_json(decision: StopDecision) -> dict[str, Any]:
    return {
        "stop": decision.stop,
        "reason": decision.reason,
        "values": {str(k): float(v) for k, v in decision.values.items()},
        "warning": decision.warning,
    }


def decision_from_json(data: Mapping[str, Any]) -> StopDecision:
    return StopDecision(stop=bool(data["stop"]), reason=str(data["reason"]),
                        values={str(k): float(v) for k, v in data.get("values", {}).items()},
                        warning=data.get("warning"))


def decisions_to_json(decisions: Iterable[StopDecision]) -> list[dict[str, Any]]:
    return [decision_to_json(d) for d in decisions]


def decisions_from_json(data: Sequence[Mapping[str, Any]] | None) -> tuple[StopDecision, ...]:
    return tuple(decision_from_json(d) for d in data or ())


def params_to_json(params: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Parameters as an ordered list of ``[name, value]`` pairs (a JSON object would lose the order)."""
    return [[str(k), str(v)] for k, v in params]


def params_from_json(data: Sequence[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in data)


def secondary_to_json(secondary: Mapping[str, float]) -> dict[str, float] | None:
    """Secondary metrics, or None when there are none (stored as SQL NULL: cheaper to load)."""
    if not secondary:
        return None
    return {str(k): float(v) for k, v in secondary.items()}
