"""Hypothesis strategies for whole runs: any RunData the model can represent with finite numbers."""

from __future__ import annotations

from hypothesis import strategies as st

from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
_unit = st.sampled_from(["ns/op", "us/op", "ms/op", "s/op", "ops/s", "ops/ms", "ops/us", "instr/op"])  # units.check_unit
_timestamp = st.floats(min_value=0, max_value=1e11)  # the store's contract (store.rows.MAX_TIMESTAMP)
_positive = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
_iteration = st.builds(IterationResult, value_ns=_positive, raw_value=_finite,
                       ops=st.none() | st.floats(min_value=0, max_value=1e18),
                       secondary=st.dictionaries(_text, _finite, max_size=3))
_decision = st.builds(StopDecision, stop=st.booleans(), reason=_text,
                      values=st.dictionaries(_text, _finite, max_size=2), warning=st.none() | _text)


@st.composite
def runs(draw) -> RunData:
    results = []
    for position in range(draw(st.integers(0, 3))):
        params = tuple(draw(st.lists(st.tuples(_text, _text), max_size=2)))
        bench = Benchmark(BenchmarkId(draw(_text.filter(bool)), f"b{position}", params), mode=draw(_text),
                          unit=draw(_unit), direction=draw(st.sampled_from(Direction)),
                          spec=draw(st.dictionaries(_text, _text, max_size=2)))
        forks = tuple(ForkResult(index=i, status=draw(st.sampled_from(ForkStatus)),
                                 warmup=tuple(draw(st.lists(_iteration, max_size=3))),
                                 measurement=tuple(draw(st.lists(_iteration, max_size=4))),
                                 started_at=draw(_timestamp), finished_at=draw(_timestamp),
                                 warmup_decisions=tuple(draw(st.lists(_decision, max_size=2))),
                                 message=draw(st.none() | _text))
                      for i in range(1, draw(st.integers(0, 3)) + 1))
        results.append(BenchmarkResult(bench, forks, draw(st.sampled_from(BenchmarkStatus)), draw(st.none() | _text),
                                       tuple(draw(st.lists(_decision, max_size=2)))))
    meta = RunMeta(created_at=draw(_timestamp), tool_version=draw(_text), commit=draw(st.none() | _text),
                   dirty=draw(st.none() | st.booleans()), machine=draw(st.dictionaries(_text, _text, max_size=3)),
                   toolchain=draw(st.dictionaries(_text, _text, max_size=3)),
                   config=draw(st.dictionaries(_text, st.none() | st.booleans() | st.integers() | _finite | _text,
                                               max_size=3)),
                   label=draw(st.none() | _text))
    return RunData(meta=meta, results=tuple(results), status=draw(st.sampled_from(RunStatus)))
