"""Parameter overrides: the suite's ``params`` table and the command line's ``-p NAME=V1,V2``.

What an override means depends on what the harness can do, and each adapter applies it while listing:

* **JMH** (``-p``): the given values *replace* the declared ``@Param`` values, exactly as JMH's own ``-p``
  does — any value, declared or not (an ``@Param("-1")`` placeholder that a benchmark refuses to run with
  gets real values). :func:`replace_values`.
* **asv** ``params`` and **Go** sub-benchmarks: the harness decides which values exist (asv declares Python
  objects; Go discovers sub-benchmarks by running ``b.Run``), so an override *selects* among them.
  :func:`select_values`. An asv string value may be given without its quotes (``impl=hash`` for ``'hash'``).

Either way a name no benchmark of the suite has, or (for selection) a value none has, is an error naming
what exists, so a typo never silently runs everything or nothing. Pure functions.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence, TypeVar

from benchwarden.errors import ListingFailed
from benchwarden.model import Benchmark

#: parameter name -> the values to use (in order)
Overrides = Mapping[str, tuple[str, ...]]
T = TypeVar("T")


def replace_values(declared: Sequence[tuple[str, tuple[str, ...]]],
                   overrides: Overrides) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``declared`` (name -> values, in order) with the overridden names' values replaced (JMH semantics)."""
    return tuple((name, tuple(overrides[name]) if name in overrides else tuple(values)) for name, values in declared)


def check_names(suite: str, overrides: Overrides, declared_names: Iterable[str]) -> None:
    """ListingFailed when an override names a parameter that no benchmark of the suite declares."""
    known = set(declared_names)
    unknown = [name for name in overrides if name not in known]
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        raise ListingFailed(f"suite '{suite}': no benchmark has a parameter named {', '.join(map(repr, unknown))} "
                            f"(parameters: {have})")


def value_matches(given: str, value: str) -> bool:
    """``given`` names ``value``: equal, or ``value`` is a quoted Python string repr of ``given``."""
    if given == value:
        return True
    return len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" and value[1:-1] == given


def declared_values(benchmarks: Iterable[Benchmark]) -> dict[str, list[str]]:
    """Each parameter name of ``benchmarks`` with its values, in first-listed order."""
    present: dict[str, list[str]] = {}
    for b in benchmarks:
        for name, value in b.id.params:
            values = present.setdefault(name, [])
            if value not in values:
                values.append(value)
    return present


def select_values(suite: str, benchmarks: Sequence[Benchmark], overrides: Overrides) -> list[Benchmark]:
    """The benchmarks whose value of every overridden parameter is one of the given values (asv, Go semantics).

    A benchmark without an overridden parameter is kept. ListingFailed for an unknown name, or a given value
    that no benchmark has (listing what exists).
    """
    if not overrides:
        return list(benchmarks)
    present = declared_values(benchmarks)
    check_names(suite, overrides, present)
    for name, wanted in overrides.items():
        missing = [w for w in wanted if not any(value_matches(w, v) for v in present[name])]
        if missing:
            raise ListingFailed(f"suite '{suite}': parameter '{name}' has no value {', '.join(map(repr, missing))} "
                                f"(values: {', '.join(present[name])}); this harness can only select among them")

    def keep(b: Benchmark) -> bool:
        params = dict(b.id.params)
        return all(name not in params or any(value_matches(w, params[name]) for w in wanted)
                   for name, wanted in overrides.items())

    return [b for b in benchmarks if keep(b)]


def parse_assignments(texts: Iterable[str], where: str) -> dict[str, tuple[str, ...]]:
    """``["size=10,100", "impl=hash"]`` -> ``{"size": ("10", "100"), "impl": ("hash",)}``; ValueError naming ``where``.

    A later assignment of the same name replaces an earlier one (as on JMH's command line).
    """
    found: dict[str, tuple[str, ...]] = {}
    for text in texts:
        name, eq, values = text.partition("=")
        name = name.strip()
        items = tuple(v.strip() for v in values.split(","))
        if not eq or not name or any(c in name for c in ",= ") or not values or any(not v for v in items):
            raise ValueError(f"{where}: expected NAME=VALUE[,VALUE...], got {text!r}")
        found[name] = items
    return found
