"""Benchmark references in SPL: how ``TokenizeBench.tokenize``, ``BenchmarkX/sub`` or ``Tokenize.time_x``
name a benchmark that an adapter listed.

A reference is matched against the benchmark names of every selected suite (at one revision):

* an optional ``suite:`` prefix restricts the search to that suite;
* ``#`` is read as ``.`` (``java.util.Arrays#sort`` in the thesis' listings);
* the reference matches a listed name exactly, or as a suffix of whole dotted components
  (``TokenizeBench.tokenize`` and ``tokenize`` both match ``wordstat.bench.TokenizeBench.tokenize``;
  ``Tokenize.time_tokenize`` matches asv's ``bench_wordstat.Tokenize.time_tokenize``);
* Go sub-benchmarks: what follows ``Name/`` is a sub-benchmark path whose elements become fixed
  parameters by the Go adapter's own rule (``key=value`` elements, other elements ``sub``, ``sub2``...;
  :func:`benchwarden.adapters.gotest_output.name_to_params`), e.g. ```BenchmarkTokenize/size=100```;
* an exact match wins over suffix matches; several suffix matches are an ambiguity error that lists
  them; no match is an error with the closest names.

Parameter *values* are matched leniently: a program's ``100`` matches a listed ``"100"``, and ``"hash"``
matches asv's ``'hash'`` (asv shows values as ``repr``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Sequence

from benchwarden.adapters.gotest_output import name_to_params
from benchwarden.model import BenchmarkId


class UnknownReference(ValueError):
    """A reference names no benchmark, or several; the message says which and suggests names."""


@dataclass(frozen=True)
class Resolved:
    """A reference resolved to one benchmark name of one suite.

    ``fixed``: parameters fixed by the reference itself (a Go sub-benchmark path);
    ``variants``: every listed id of this name whose parameters agree with ``fixed``.
    """

    suite: str
    name: str
    fixed: tuple[tuple[str, str], ...]
    variants: tuple[BenchmarkId, ...]

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of the parameters still to be given, in declaration order."""
        fixed = {k for k, _ in self.fixed}
        names: list[str] = []
        for v in self.variants:
            for k, _ in v.params:
                if k not in fixed and k not in names:
                    names.append(k)
        return tuple(names)

    def values_of(self, param: str) -> tuple[str, ...]:
        seen: list[str] = []
        for v in self.variants:
            for k, value in v.params:
                if k == param and value not in seen:
                    seen.append(value)
        return tuple(seen)


def value_matches(listed: str, given: int | float | str) -> bool:
    """Whether a value written in SPL denotes a listed parameter value (see the module docstring)."""
    if isinstance(given, str):
        return listed in (given, repr(given), f'"{given}"')
    if listed == str(given):
        return True
    try:
        return float(listed) == float(given)
    except ValueError:
        return False


def _dotted_suffix(ref: str, name: str) -> bool:
    ref_parts, name_parts = ref.split("."), name.split(".")
    return len(ref_parts) < len(name_parts) and name_parts[-len(ref_parts):] == ref_parts


def _splits(ref: str) -> Iterable[tuple[str, str | None]]:
    """(head, sub-benchmark path) readings of a reference: the whole ref, then every '/' split point."""
    yield ref, None
    for k, ch in enumerate(ref):
        if ch == "/":
            yield ref[:k], ref[k + 1:]


def resolve(ref: str, listing: Sequence[BenchmarkId], suites: Sequence[str]) -> Resolved:
    """Resolve ``ref`` against ``listing`` (every benchmark of the selected suites). Raises UnknownReference."""
    suite, rest = _split_suite(ref, suites)
    rest = rest.replace("#", ".")
    names = sorted({(b.suite, b.name) for b in listing if suite is None or b.suite == suite})
    exact: list[tuple[str, str, str | None]] = []
    suffix: list[tuple[str, str, str | None]] = []
    for head, path in _splits(rest):
        for s, name in names:
            dotted = name.replace("#", ".")  # a JUnit test is listed as Class#method; JMH's Class#method is dotted
            if head == dotted:
                exact.append((s, name, path))
            elif _dotted_suffix(head, dotted):
                suffix.append((s, name, path))
    found = exact or suffix
    candidates = []
    for s, name, path in found:
        fixed = name_to_params("X/" + path)[1] if path else ()
        variants = tuple(b for b in listing if b.suite == s and b.name == name and _agrees(b.params, fixed))
        if variants:
            candidates.append(Resolved(s, name, fixed, variants))
    distinct = {(c.suite, c.name, c.fixed): c for c in candidates}
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    if len(distinct) > 1:
        shown = ", ".join(_show(c) for c in distinct.values())
        raise UnknownReference(f"'{ref}' is ambiguous: it matches {shown}; write more of the name "
                             "or a suite prefix (suite:name)")
    raise UnknownReference(_not_found(ref, rest, suite, names, found))


def _split_suite(ref: str, suites: Sequence[str]) -> tuple[str | None, str]:
    head, sep, tail = ref.partition(":")
    if not sep:
        return None, ref
    if head not in suites:
        raise UnknownReference(f"'{ref}': no suite named '{head}' (suites: {', '.join(suites) or 'none'})")
    if not tail:
        raise UnknownReference(f"'{ref}': a benchmark name must follow the suite name")
    return head, tail


def _agrees(params: tuple[tuple[str, str], ...], fixed: tuple[tuple[str, str], ...]) -> bool:
    have = dict(params)
    return all(have.get(k) == v for k, v in fixed)


def _show(c: Resolved) -> str:
    path = "".join(f"/{k}={v}" for k, v in c.fixed)
    return f"{c.suite}:{c.name}{path}"


def _not_found(ref: str, rest: str, suite: str | None, names: list[tuple[str, str]],
               found: list[tuple[str, str, str | None]]) -> str:
    where = f"suite '{suite}'" if suite else "the selected suites"
    if found:
        s, name, path = found[0]
        return f"'{ref}': {s}:{name} has no sub-benchmark '{path}'"
    close = difflib.get_close_matches(rest, [n for _, n in names], n=3, cutoff=0.5)
    if not close:  # match on the last component, which is what people usually misspell
        last = {n.rsplit(".", 1)[-1]: n for _, n in names}
        close = [last[m] for m in difflib.get_close_matches(rest.rsplit(".", 1)[-1], list(last), n=3, cutoff=0.5)]
    hint = f"; did you mean {', '.join(close)}?" if close else (
        f"; {where} list{'s' if suite else ''}: {', '.join(n for _, n in names[:8])}"
        + (" ..." if len(names) > 8 else "") if names else f"; {where} list no benchmarks")
    return f"no benchmark '{ref}' in {where}{hint}"
