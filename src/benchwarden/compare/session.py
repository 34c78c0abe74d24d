"""A whole comparison, from two sources to a :class:`Comparison`: pair, store, run interleaved, confirm.

The two runs a session creates carry ``config["compare"]`` = the session id, role, source, design,
settings and seed, so ``compare --runs`` recognises the pair later and re-analyses it with the same
sequential design.
"""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable, ContextManager, Mapping, Sequence

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter
from benchwarden.compare.confirm import confirm_regressions
from benchwarden.compare.pairing import MatchedBenchmark, Pairing, pair_sides
from benchwarden.compare.result import BenchmarkComparison, Comparison, SideInfo
from benchwarden.compare.schedule import ROLES, CompareListener, InterleavedSession
from benchwarden.compare.settings import CompareSettings
from benchwarden.compare.sources import Side, Sources
from benchwarden.compare.verdict import Verdict
from benchwarden.environment import GitState, collect_run_meta, machine_identity
from benchwarden.errors import BenchwardenError
from benchwarden.model import RunMeta, RunStatus


@dataclass(frozen=True)
class SessionOptions:
    settings: CompareSettings = field(default_factory=CompareSettings)
    cli_filter: str | None = None
    seed: int | None = None  # None: a fresh random seed, recorded in the result
    label: str | None = None  # prefix of the stored runs' labels
    explain_pairs: int = 0  # > 0: profile that many fork pairs of each changed benchmark (compare --explain)


def run_comparison(sources: Sources, store, options: SessionOptions = SessionOptions(), *,
                   adapter_factory: Callable[[str], Adapter] = get_adapter,
                   listener: CompareListener | None = None, wall: Callable[[], float] = time.time,
                   monotonic: Callable[[], float] = time.monotonic, concurrency: int = 1,
                   pair_scope: Callable[[], ContextManager[object]] | None = None,
                   on_interrupt: Callable[[], None] | None = None) -> Comparison:
    """Prepare both sides, compare every matched benchmark interleaved, confirm regressions if asked.

    ``concurrency``, ``pair_scope`` and ``on_interrupt`` are for forks on a cluster (``InterleavedSession``).

    Raises BenchwardenError when nothing can be compared (every suite failed, or no benchmark exists
    in both versions), CompareInterrupted on Ctrl-C (forks so far stay stored).
    """
    t0 = monotonic()
    listener = listener or CompareListener()
    settings = options.settings
    seed = options.seed if options.seed is not None else secrets.randbits(32)
    pairing = pair_sides(sources, options.cli_filter, adapter_factory, listener)
    if not pairing.matched:
        raise BenchwardenError(_nothing_to_compare(pairing))
    session_id = uuid.uuid4().hex
    machine = dict(machine_identity())

    def session(matched: Sequence[MatchedBenchmark], round_label: str, round_seed: int) -> tuple[
            list[BenchmarkComparison], tuple[int, int]]:
        run_ids = tuple(store.create_run(_meta(sources, role, pairing, settings, round_seed, session_id,
                                               round_label, options.label, machine, wall()))
                        for role in ROLES)
        results = InterleavedSession(store, run_ids, settings, round_seed, listener, wall, concurrency=concurrency,
                                     pair_scope=pair_scope, on_interrupt=on_interrupt).run(matched)
        failed = any(r.verdict is Verdict.ERROR for r in results)
        for run_id in run_ids:
            store.finish_run(run_id, RunStatus.FAILED if failed else RunStatus.COMPLETE)
        return results, (run_ids[0], run_ids[1])

    results, run_ids = session(pairing.matched, "", seed)
    machine_time_s = sum(r.time_s for r in results)
    if settings.confirm:
        by_name = {f"{m.id.suite}:{m.id.key}": m for m in pairing.matched}

        def remeasure(names: Sequence[str], round_index: int) -> list[BenchmarkComparison]:
            again, _ = session([by_name[n] for n in names], f"confirm {round_index}", seed + round_index)
            return again

        results, spent_s = confirm_regressions(results, settings.confirm, remeasure)
        machine_time_s += spent_s
    explanations: tuple = ()
    if options.explain_pairs:
        from benchwarden.codelevel.profiling import ExplainSettings, explain_changes
        explanations = explain_changes(pairing.matched, results,
                                       ExplainSettings(options.explain_pairs, settings.min_change, seed),
                                       log=listener.note)
        machine_time_s += sum(e.machine_time_s for e in explanations)
    return Comparison(
        source=sources.kind,
        base=_side_info(sources.base, run_ids[0]), candidate=_side_info(sources.candidate, run_ids[1]),
        design={**settings.design().to_dict(), "paired": True, "rank_alpha": settings.rank_alpha,
                "min_change": settings.min_change, "confirm": settings.confirm, "seed": seed,
                "session": session_id},
        benchmarks=tuple(results), unmatched=tuple(pairing.unmatched), failed_suites=dict(pairing.failed_suites),
        explanations=explanations,
        created_at=wall(), elapsed_s=monotonic() - t0, machine_time_s=machine_time_s, machine=machine,
        fail_on=settings.fail_on)


def _nothing_to_compare(pairing: Pairing) -> str:
    if pairing.failed_suites:
        failures = "; ".join(f"{k}: {v}" for k, v in pairing.failed_suites.items())
        return f"nothing to compare: {failures}"
    if pairing.unmatched:
        return ("nothing to compare: no benchmark exists in both versions "
                f"({', '.join(f'{n} ({where})' for n, where in pairing.unmatched[:5])})")
    return "nothing to compare: no benchmark matches the suite filters and --filter"


def _side_info(side: Side, run_id: int) -> SideInfo:
    return SideInfo(role=side.role, label=side.label, commit=side.commit, run_id=run_id,
                    description=dict(side.description))


def _meta(sources: Sources, role: str, pairing: Pairing, settings: CompareSettings, seed: int, session_id: str,
          round_label: str, label: str | None, machine: Mapping[str, str], now: float) -> RunMeta:
    side = sources.base if role == "base" else sources.candidate
    compare = {"session": session_id, "role": role, "source": sources.kind, "label": side.label,
               "side": dict(side.description), "round": round_label or "main", "seed": seed,
               "settings": settings.model_dump(), "design": settings.design().to_dict()}
    suites = {s.name: {"kind": s.kind, "root": str(s.context.root), "settings": s.settings.to_dict(),
                       "env": dict(s.context.env), "jvm_args": list(s.context.jvm_args)} for s in side.suites}
    prefix = f"{label}: " if label else ""
    suffix = f" [{round_label}]" if round_label else ""
    return collect_run_meta(None, source=GitState(side.commit, side.dirty), created_at=now,
                            toolchain=pairing.toolchain.get(role, {}), config={"compare": compare, "suites": suites},
                            label=f"{prefix}compare {role}: {side.label}{suffix}")
