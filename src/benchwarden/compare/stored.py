"""``compare --runs A B``: two stored runs analysed without executing anything.

Benchmarks are paired by suite and key.  When both runs come from one
comparison session (their ``config["compare"]["session"]`` agree), the
session's sequential design is used again — so re-analysis gives the verdict
the session gave — and the look trail is rebuilt from the stored fork
decisions.  Otherwise the runs are treated as a fixed sample: one look, at
the configured confidence, with however many forks each benchmark has.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from benchwarden.compare.analysis import compare_forks
from benchwarden.compare.result import BenchmarkComparison, Comparison, Look, SideInfo
from benchwarden.compare.schedule import BIASED_SIDE_BY_SIDE, SIDE_BY_SIDE_WARNING, resolve_pairing
from benchwarden.compare.sequential import SequentialDesign
from benchwarden.compare.settings import CompareSettings
from benchwarden.compare.verdict import Verdict
from benchwarden.errors import StoreError, UsageError
from benchwarden.model import BenchmarkResult, BenchmarkStatus, RunData, StopDecision


def compare_runs(base: RunData, candidate: RunData, settings: CompareSettings) -> Comparison:
    """Compare two loaded runs benchmark by benchmark (no statistics beyond the verdict's)."""
    session = _same_session(base, candidate)
    stored_design = _design_from(session) if session else None
    by_key = {str(r.benchmark.id): r for r in candidate.results}
    results: list[BenchmarkComparison] = []
    unmatched: list[tuple[str, str]] = []
    for b in base.results:
        c = by_key.get(str(b.benchmark.id))
        if c is None:
            unmatched.append((str(b.benchmark.id), "base only"))
            continue
        result = _compare_pair(b, c, stored_design, settings)
        if session and _side_by_side_biased(session, base, b):
            result = replace(result, warnings=(*result.warnings, SIDE_BY_SIDE_WARNING))
        results.append(result)
    base_ids = {str(r.benchmark.id) for r in base.results}
    unmatched += [(str(r.benchmark.id), "candidate only") for r in candidate.results
                  if str(r.benchmark.id) not in base_ids]
    design = stored_design.to_dict() if stored_design else {
        "fixed_sample": True, "paired": False, "confidence": settings.confidence,
        "equivalence_confidence": settings.equivalence_confidence}
    return Comparison(
        source="runs", base=_side(base, "base"), candidate=_side(candidate, "candidate"),
        design={**design, "rank_alpha": settings.rank_alpha, "min_change": settings.min_change,
                **({"session": session["session"]} if session else {})},
        benchmarks=tuple(results), unmatched=tuple(unmatched), created_at=max(base.meta.created_at,
                                                                            candidate.meta.created_at),
        machine_time_s=sum(r.time_s for r in results), machine=dict(candidate.meta.machine),
        fail_on=settings.fail_on)


def _compare_pair(base: BenchmarkResult, candidate: BenchmarkResult, stored_design: SequentialDesign | None,
                  settings: CompareSettings) -> BenchmarkComparison:
    failed = [f"{role}: {r.message or 'failed'}" for role, r in (("base", base), ("candidate", candidate))
              if r.status is BenchmarkStatus.FAILED]
    skipped = [f"{role}: {r.message or 'skipped'}" for role, r in (("base", base), ("candidate", candidate))
               if r.status is BenchmarkStatus.SKIPPED]
    if base.benchmark.metric != candidate.benchmark.metric:
        failed.append(f"the base was measured in {base.benchmark.metric}, the candidate in "
                      f"{candidate.benchmark.metric}: they cannot be compared")
    design = stored_design or _fixed_design(base, candidate, settings)
    looks = _looks_from(base.fork_decisions, design) if stored_design else ()
    # Forks of one comparison session ran in pairs (fork k of each side in round k); two ordinary runs
    # did not, and are analysed unpaired.
    return compare_forks(base.benchmark, base.forks, candidate.forks, design, settings, looks=looks,
                         message="; ".join(failed + skipped) or None, error=bool(failed),
                         skipped=bool(skipped) and not failed, paired=stored_design is not None)


def _fixed_design(base: BenchmarkResult, candidate: BenchmarkResult, settings: CompareSettings) -> SequentialDesign:
    pairs = max(2, min(len(base.measurement_matrix()), len(candidate.measurement_matrix())))
    return SequentialDesign(confidence=settings.confidence, min_pairs=pairs, max_pairs=pairs, spending="none",
                            equivalence_confidence=settings.equivalence_confidence)


def _same_session(base: RunData, candidate: RunData) -> Mapping[str, Any] | None:
    a = _compare_meta(base)
    b = _compare_meta(candidate)
    if a and b and a.get("session") == b.get("session") and a.get("round") == b.get("round") and \
            a.get("role") == "base" and b.get("role") == "candidate":
        return a
    return None


def _side_by_side_biased(session: Mapping[str, Any], base: RunData, result: BenchmarkResult) -> bool:
    """Whether the session ran this benchmark's pairs side by side (its pairing setting, resolved as the
    session resolved it) on a suite kind that this is measured to bias: the re-analysis carries the same
    warning as the comparison did (:data:`~.schedule.BIASED_SIDE_BY_SIDE`)."""
    settings = session.get("settings")
    suites = base.meta.config.get("suites") if isinstance(base.meta.config, Mapping) else None
    entry = suites.get(str(result.benchmark.id.suite)) if isinstance(suites, Mapping) else None
    if not isinstance(settings, Mapping) or not isinstance(entry, Mapping):
        return False
    kind = str(entry.get("kind"))
    return kind in BIASED_SIDE_BY_SIDE and resolve_pairing(str(settings.get("pairing")), kind,
                                                           result.benchmark.metric) == "simultaneous"


def _compare_meta(run: RunData) -> Mapping[str, Any] | None:
    value = run.meta.config.get("compare") if isinstance(run.meta.config, Mapping) else None
    return value if isinstance(value, Mapping) else None


def _design_from(session: Mapping[str, Any]) -> SequentialDesign | None:
    design = session.get("design")
    if not isinstance(design, Mapping):
        return None
    try:
        # Sessions recorded before equivalence_confidence existed used one level for both claims.
        return SequentialDesign(confidence=float(design["confidence"]), min_pairs=int(design["min_pairs"]),
                                max_pairs=int(design["max_pairs"]), spending=str(design["spending"]),
                                equivalence_confidence=float(design.get("equivalence_confidence",
                                                                        design["confidence"])))
    except (KeyError, TypeError, ValueError):
        return None


def _looks_from(decisions: Sequence[StopDecision], design: SequentialDesign) -> tuple[Look, ...]:
    looks = []
    for index, d in enumerate(decisions):
        v = d.values
        if not {"ratio", "low", "high", "confidence", "p_value", "threshold"} <= set(v):
            continue
        verdict = Verdict(d.reason.removeprefix("settled-")) if d.reason.startswith("settled-") else \
            Verdict.INCONCLUSIVE
        looks.append(Look(pairs=design.min_pairs + index, confidence=v["confidence"], ratio=v["ratio"],
                          low=v["low"], high=v["high"], p_value=v["p_value"], threshold=v["threshold"],
                          verdict=verdict, equivalence_confidence=v.get("equivalence_confidence"),
                          equivalence_low=v.get("equivalence_low"),
                          equivalence_high=v.get("equivalence_high"), mde=v.get("mde")))
    return tuple(looks)


def _side(run: RunData, role: str) -> SideInfo:
    meta = _compare_meta(run)
    label = f"run {run.id}"
    if run.meta.label:
        label += f" ({run.meta.label})"
    return SideInfo(role=role, label=label, commit=run.meta.commit, run_id=run.id,
                    description={"kind": "run", **({"side": dict(meta.get("side", {}))} if meta else {})})


@dataclass(frozen=True)
class StoredSession:
    """The two runs of one stored comparison round, with what the session recorded about each side (``recorded``:
    role -> ``label``, ``side``, ``suites``, ``source``, ``seed``; see
    :func:`benchwarden.compare.sources.from_session`) and the compare settings it ran with (None when the runs
    recorded none usable)."""

    base: RunData
    candidate: RunData
    recorded: Mapping[str, Mapping[str, Any]]
    settings: CompareSettings | None


def stored_session(store, refs: Sequence[str]) -> StoredSession:
    """The comparison that stored the runs ``refs`` name: one run of it (``latest`` if none), whose other run is found,
    or its base and candidate in that order. Each run is loaded once. UsageError for a run ``compare`` did not
    store, for two runs of different comparisons or in the wrong order, and when the other run cannot be found."""
    if len(refs) > 2:
        raise UsageError(f"one stored comparison: a run of it, or its two runs; got {len(refs)} runs")
    first_id = store.resolve_run(refs[0] if refs else "latest")
    first = store.load_run(first_id)
    if len(refs) == 2:
        ids = (first_id, store.resolve_run(refs[1]))
        runs = (first, store.load_run(ids[1]))
    else:
        meta = _compare_meta(first)
        if meta is None:
            raise UsageError(f"run {first_id} was not stored by compare: give a run of a comparison (`benchwarden "
                             "runs` lists them as 'compare base' and 'compare candidate')")
        # a session creates one round's two runs one after the other, base first (.session)
        other_id = first_id + 1 if meta.get("role") == "base" else first_id - 1
        try:
            other = store.load_run(other_id) if other_id > 0 else None
        except StoreError:
            other = None
        if other is None or _session_key(other) != _session_key(first):
            raise UsageError(f"run {first_id} is the {meta.get('role')} of a comparison whose other run is not next "
                             "to it in the store (removed, or another process stored runs in between): give both "
                             "runs, base first")
        ids, runs = ((first_id, other_id), (first, other)) if meta.get("role") == "base" else \
            ((other_id, first_id), (other, first))
    recorded = {}
    for role, run_id, run in zip(("base", "candidate"), ids, runs):
        side = recorded_side(run)
        if side is None:
            raise UsageError(f"run {run_id} was not stored by compare: a plain run does not record the version it "
                             "measured")
        recorded[role] = side
    if _session_key(runs[0]) != _session_key(runs[1]) or \
            (_compare_meta(runs[0]) or {}).get("role") != "base" or (_compare_meta(runs[1]) or {}).get("role") != \
            "candidate":
        raise UsageError(f"runs {ids[0]} and {ids[1]} are not the base and the candidate of one comparison: give a "
                         "comparison's base run, then its candidate run, or either of them alone")
    return StoredSession(runs[0], runs[1], recorded, _recorded_settings(_compare_meta(runs[1])))


def _session_key(run: RunData) -> tuple[Any, Any] | None:
    meta = _compare_meta(run)
    return None if meta is None else (meta.get("session"), meta.get("round"))


def _recorded_settings(meta: Mapping[str, Any] | None) -> CompareSettings | None:
    """The compare settings a session recorded (``min_change``, confidences, ...), or None when none are usable."""
    from pydantic import ValidationError

    recorded = None if meta is None else meta.get("settings")
    if not isinstance(recorded, Mapping):
        return None
    try:
        return CompareSettings.model_validate(dict(recorded))
    except ValidationError:
        return None


def recorded_side(run: RunData) -> Mapping[str, Any] | None:
    """What a comparison session recorded about the version a run measured (``label``, ``side``, ``suites``,
    ``source``, ``seed``), or None for a run that ``compare`` did not store."""
    meta = _compare_meta(run)
    suites = run.meta.config.get("suites") if isinstance(run.meta.config, Mapping) else None
    if meta is None or not isinstance(meta.get("side"), Mapping) or not isinstance(suites, Mapping):
        return None
    return {"label": meta.get("label"), "side": meta["side"], "suites": suites, "source": meta.get("source"),
            "seed": meta.get("seed")}
