"""The stream a remote fork sends back: hello (where it runs), iterations, end (how it ended). Pure.

Messages travel through a dask ``Queue`` (msgpack: plain dicts of numbers and strings).  Every message carries
the protocol version and the *attempt* — a random id the worker task draws when it starts — so that the
scheduler side can tell the fork it is following from a second attempt dask started after the first worker
died (dask reschedules a task whose worker is lost; for benchwarden that is a lost fork, run again under a new
index, never a continuation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from benchwarden.model import IterationResult

PROTOCOL_VERSION = 1


class MessageError(ValueError):
    """A message that is not one of ours (another version, or damaged)."""


@dataclass(frozen=True)
class Hello:
    attempt: str
    machine: Mapping[str, str]  # worker (address), name, host, machine_key


@dataclass(frozen=True)
class Iteration:
    attempt: str
    result: IterationResult


@dataclass(frozen=True)
class End:
    """``reason`` None: the harness ended normally; else a :class:`~benchwarden.errors.ForkFailed` reason."""

    attempt: str
    reason: str | None = None
    detail: str = ""
    output: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)


Message = Hello | Iteration | End


def hello(attempt: str, machine: Mapping[str, str]) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "kind": "hello", "attempt": attempt, "machine": dict(machine)}


def iteration(attempt: str, result: IterationResult) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "kind": "iteration", "attempt": attempt, "value_ns": result.value_ns,
            "raw_value": result.raw_value, "ops": result.ops, "secondary": dict(result.secondary)}


def end(attempt: str, reason: str | None = None, detail: str = "", output: str = "") -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "kind": "end", "attempt": attempt, "reason": reason, "detail": detail,
            "output": output}


def decode(raw: object) -> Message:
    """The message ``raw`` encodes; MessageError naming what is wrong."""
    if not isinstance(raw, dict):
        raise MessageError(f"expected a message object, got {type(raw).__name__}")
    if raw.get("v") != PROTOCOL_VERSION:
        raise MessageError(f"protocol version {raw.get('v')!r}, expected {PROTOCOL_VERSION} "
                            "(the worker runs another benchwarden version)")
    attempt = raw.get("attempt")
    if not isinstance(attempt, str):
        raise MessageError("message without attempt id")
    kind = raw.get("kind")
    try:
        if kind == "hello":
            machine = raw["machine"]
            if not isinstance(machine, dict):
                raise TypeError("machine is not an object")
            return Hello(attempt, {str(k): str(v) for k, v in machine.items()})
        if kind == "iteration":
            ops = raw.get("ops")
            return Iteration(attempt, IterationResult(
                value_ns=float(raw["value_ns"]), raw_value=float(raw["raw_value"]),
                ops=None if ops is None else float(ops),
                secondary={str(k): float(v) for k, v in (raw.get("secondary") or {}).items()}))
        if kind == "end":
            reason = raw.get("reason")
            return End(attempt, None if reason is None else str(reason), str(raw.get("detail") or ""),
                       str(raw.get("output") or ""))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MessageError(f"malformed {kind} message: {exc}") from None
    raise MessageError(f"unknown message kind {kind!r}")
