"""compare --explain's analysis (codelevel.explain) on seeded synthetic call trees.

The simulated profiles are what a profiled fork gives: a benchmark function calling an API function that calls
three helpers; each fork's times carry a per-fork factor (the machine: every node of a fork moves together,
s_f) and per-node noise (s_n). The checks are the properties the explanation claims: the function whose own time
changed is ranked first, a caller is never blamed for its callee, an A/A pair of versions names no cause,
a replaced function shows as new and gone.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchwarden.codelevel.explain import (
    MIN_SHARE,
    TRUST_CALLS,
    NodeVerdict,
    explain,
    explain_sequential,
    rank_causes,
)
from benchwarden.codelevel.profiles import CallTree, NodeTimes
from benchwarden.compare.verdict import Verdict

ROOT = "bench:time_api"
API = (ROOT, "lib:api")
HELPERS = {(ROOT, "lib:api", "lib:parse"): 40_000.0, (ROOT, "lib:api", "lib:index"): 25_000.0,
           (ROOT, "lib:api", "lib:emit"): 5_000.0}
SELF = {(ROOT,): 1_000.0, API: 2_000.0, **HELPERS}  # self ns per operation


def tree(self_ns: dict[tuple[str, ...], float], ops: int = 1000, probe: float = 1000.0,
         calls: dict[tuple[str, ...], int] | None = None) -> CallTree:
    """A CallTree whose inclusive times are consistent with ``self_ns`` (ns per operation)."""
    nodes = {}
    for path in self_ns:
        inclusive = sum(v for p, v in self_ns.items() if p[:len(path)] == path)
        n = (calls or {}).get(path, ops)
        nodes[path] = NodeTimes(n, inclusive * ops, self_ns[path] * ops)
    return CallTree(ROOT, nodes, probe, probe / 4)


def forks(rng: np.random.Generator, self_ns: dict, n: int, s_f: float, s_n: float) -> list[CallTree]:
    out = []
    for _ in range(n):
        machine = math.exp(rng.normal(0, s_f))
        out.append(tree({p: v * machine * math.exp(rng.normal(0, s_n)) for p, v in self_ns.items()}))
    return out


def slowed(path: tuple[str, ...], factor: float) -> dict:
    return {p: v * (factor if p == path else 1.0) for p, v in SELF.items()}


@pytest.mark.parametrize("target", sorted(HELPERS) + [API])
def test_the_function_whose_own_time_grew_is_ranked_first(target):
    # +10 % of the benchmark's time put into one function's own time, s_f = 5 %, s_n = 1 %, 6 pairs
    rng = np.random.default_rng(20261128)
    total = sum(SELF.values())
    factor = 1 + 0.10 * total / SELF[target]
    first = 0
    for _ in range(200):
        e = explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, 0.01), forks(rng, slowed(target, factor), 6, 0.05, 0.01),
                    min_change=0.03)
        first += bool(e.causes) and e.causes[0] == target
    assert first >= 190, f"{target}: ranked first in {first} of 200"


def test_a_small_change_in_a_small_function_is_found_beside_a_large_one():
    # emit is 6.5 % of the benchmark; its own time +30 % is a 2 % change of the whole: still ranked first
    rng = np.random.default_rng(7)
    target = (ROOT, "lib:api", "lib:emit")
    first = sum(explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, 0.01),
                        forks(rng, slowed(target, 1.3), 6, 0.05, 0.01), min_change=0.03).causes[:1] == (target,)
                for _ in range(100))
    assert first >= 90


def test_callers_are_not_blamed_for_their_callee():
    rng = np.random.default_rng(3)
    target = (ROOT, "lib:api", "lib:parse")
    e = explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, 0.01), forks(rng, slowed(target, 1.5), 6, 0.05, 0.01),
                min_change=0.03)
    assert e.causes == (target,)
    api = e.node(API)
    assert api.inclusive_delta_ns > 15_000  # the caller's inclusive time carries the change ...
    assert api.verdict in (NodeVerdict.UNCHANGED, NodeVerdict.INCONCLUSIVE)  # ... its own time does not
    assert e.explained_ns == pytest.approx(e.candidate_ns - e.base_ns, rel=0.1)


def test_a_and_a_names_no_cause():
    rng = np.random.default_rng(11)
    named = sum(bool(explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, 0.02), forks(rng, SELF, 6, 0.05, 0.02),
                             min_change=0.03).causes) for _ in range(300))
    assert named <= 9, f"an A/A named a cause in {named} of 300"


def drawn(rng: np.random.Generator, base_ns: dict, candidate_ns: dict, s_f: float, s_n: float):
    """draw(k) for explain_sequential: one simulated pair, counted."""
    drawn.count = 0

    def draw(k: int) -> tuple[CallTree, CallTree]:
        drawn.count += 1
        return forks(rng, base_ns, 1, s_f, s_n)[0], forks(rng, candidate_ns, 1, s_f, s_n)[0]
    return draw


def test_noise_costs_pairs_not_the_cause():
    """A noisy machine (node noise s_n = 20 %): emit's own time +30 % (a 2 % change of the whole) is named first
    by six pairs in about a fifth of the experiments; adding six pairs while no cause is named, up to 18, finds
    it in most."""
    rng = np.random.default_rng(20261207)
    target = (ROOT, "lib:api", "lib:emit")
    one = sequential = used = 0
    for _ in range(100):
        one += explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, 0.2),
                       forks(rng, slowed(target, 1.3), 6, 0.05, 0.2), min_change=0.03).causes[:1] == (target,)
        draw = drawn(rng, SELF, slowed(target, 1.3), 0.05, 0.2)
        e = explain_sequential("s:b", Verdict.SLOWER, draw, pairs=6, looks=3, min_change=0.03)
        sequential += e.causes[:1] == (target,)
        used += drawn.count
        assert e.pairs == drawn.count and drawn.count in (6, 12, 18)
        assert (drawn.count > 6) == any("no cause at" in w for w in e.warnings)
    assert one <= 35 and sequential >= 55, (one, sequential)
    assert used < 18 * 100  # stops at the first look that names a cause


@pytest.mark.parametrize("s_n", [0.02, 0.2])
def test_a_and_a_names_no_cause_over_all_looks(s_n):
    """The looks share the per-node error (Bonferroni): an A/A names a cause at some look as rarely as one look
    does, on a quiet and on a noisy machine. Measured over 1,000 seeded A/As each: one look of 6 pairs 3.9 % and
    4.8 %, up to three looks 4.1 % and 4.8 % (about five judged nodes at 1 % each). Bound: 6 %."""
    rng = np.random.default_rng(13)
    named = looked = 0
    for _ in range(300):
        draw = drawn(rng, SELF, SELF, 0.05, s_n)
        e = explain_sequential("s:b", Verdict.SLOWER, draw, pairs=6, looks=3, min_change=0.03)
        named += bool(e.causes)
        looked += drawn.count > 6
    assert named <= 18, f"an A/A named a cause in {named} of 300"
    assert looked >= 250  # the A/As did take the further looks: the bound is over all of them


def test_a_sequential_explanation_that_names_a_cause_at_once_is_the_one_look():
    rng = np.random.default_rng(3)
    target = (ROOT, "lib:api", "lib:parse")
    draw = drawn(rng, SELF, slowed(target, 1.5), 0.05, 0.01)
    e = explain_sequential("s:b", Verdict.SLOWER, draw, pairs=6, min_change=0.03)
    assert e.causes == (target,) and e.pairs == drawn.count == 6 and not e.warnings
    with pytest.raises(ValueError):
        explain_sequential("s:b", Verdict.SLOWER, draw, pairs=1, min_change=0.03)


def test_heavy_tailed_machine_noise_keeps_the_ranking():
    # one fork in ten runs 1.5-3x slower as a whole (a disturbed fork): pairs cancel it, the cause stays first
    rng = np.random.default_rng(5)
    target = (ROOT, "lib:api", "lib:index")

    def disturbed(self_ns: dict) -> list[CallTree]:
        out = []
        for t in forks(rng, self_ns, 6, 0.03, 0.01):
            scale = rng.uniform(1.5, 3.0) if rng.random() < 0.1 else 1.0
            out.append(CallTree(t.root, {p: NodeTimes(v.calls, v.inclusive_ns * scale, v.self_ns * scale)
                                         for p, v in t.nodes.items()}, t.traced_call_ns))
        return out
    first = sum(explain("s:b", Verdict.SLOWER, disturbed(SELF), disturbed(slowed(target, 1.4)),
                        min_change=0.03).causes[:1] == (target,) for _ in range(100))
    assert first >= 85


def test_a_replaced_function_is_new_and_its_predecessor_gone():
    rng = np.random.default_rng(1)
    old, new = (ROOT, "lib:api", "lib:parse"), (ROOT, "lib:api", "lib:parse_fast")
    candidate = {(p if p != old else new): (v * 0.5 if p == old else v) for p, v in SELF.items()}
    base_forks, cand_forks = forks(rng, SELF, 6, 0.03, 0.01), forks(rng, candidate, 6, 0.03, 0.01)
    faster = explain("s:b", Verdict.FASTER, base_forks, cand_forks, min_change=0.03)
    assert faster.node(old).verdict is NodeVerdict.GONE and faster.node(new).verdict is NodeVerdict.NEW
    assert faster.causes == (old,)  # what saved the time: the old function's 40 µs went away
    slower = explain("s:b", Verdict.SLOWER, cand_forks, base_forks, min_change=0.03)
    assert slower.causes == (old,)  # the other way round it is new, and the cause


def test_a_node_in_some_forks_only_is_irregular_and_never_a_cause():
    rng = np.random.default_rng(2)
    base = forks(rng, SELF, 6, 0.03, 0.01)
    extra = (ROOT, "lib:api", "lib:rare")
    cand = [tree({**{p: v for p, v in SELF.items()}, **({extra: 50_000.0} if k % 2 else {})}) for k in range(6)]
    e = explain("s:b", Verdict.SLOWER, base, cand, min_change=0.03)
    assert e.node(extra).verdict is NodeVerdict.IRREGULAR
    assert extra not in e.causes


def test_tree_order_puts_parents_first_and_heavier_siblings_first():
    rng = np.random.default_rng(4)
    e = explain("s:b", Verdict.SLOWER, forks(rng, SELF, 3, 0.01, 0.01), forks(rng, SELF, 3, 0.01, 0.01),
                min_change=0.03)
    assert [n.path for n in e.nodes] == [(ROOT,), API, (ROOT, "lib:api", "lib:parse"),
                                         (ROOT, "lib:api", "lib:index"), (ROOT, "lib:api", "lib:emit")]


def test_short_calls_are_flagged_against_the_probe_cost():
    calls = {(ROOT, "lib:api", "lib:emit"): 1000 * 1000}  # 1000 calls per operation: 5 ns each
    base = [tree(SELF, calls=calls) for _ in range(3)]
    e = explain("s:b", Verdict.SLOWER, base, [tree(SELF, calls=calls) for _ in range(3)], min_change=0.03)
    assert e.node((ROOT, "lib:api", "lib:emit")).short
    assert e.node((ROOT, "lib:api", "lib:parse")).per_call_ns == pytest.approx(40_000.0)
    assert not e.node((ROOT, "lib:api", "lib:parse")).short  # 40 µs >= 20 x 1 µs
    assert TRUST_CALLS * 1000.0 == 20_000.0


def test_causes_below_the_minimum_share_stay_in_the_tree_only():
    rng = np.random.default_rng(6)
    nodes = explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.01, 0.001),
                    forks(rng, slowed((ROOT, "lib:api", "lib:parse"), 1.5), 6, 0.01, 0.001), min_change=0.03).nodes
    tiny = next(n for n in nodes if n.path == (ROOT, "lib:api", "lib:parse"))
    change = tiny.self_delta_ns
    assert rank_causes(nodes, slower=True, change_ns=change / (MIN_SHARE * 0.9)) == ()
    assert rank_causes(nodes, slower=True, change_ns=change / (MIN_SHARE * 1.1)) == (tiny.path,)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="at least 2"):
        explain("s:b", Verdict.SLOWER, [tree(SELF)], [tree(SELF), tree(SELF)], min_change=0.03)
    other = CallTree("bench:other", {("bench:other",): NodeTimes(1, 1.0, 1.0)})
    with pytest.raises(ValueError, match="different benchmark functions"):
        explain("s:b", Verdict.SLOWER, [tree(SELF), other], [tree(SELF), tree(SELF)], min_change=0.03)


def test_to_dict_is_plain_json():
    import json
    rng = np.random.default_rng(8)
    e = explain("s:b", Verdict.SLOWER, forks(rng, SELF, 3, 0.01, 0.01),
                forks(rng, slowed(API, 3.0), 3, 0.01, 0.01), min_change=0.03)
    d = json.loads(json.dumps(e.to_dict()))
    assert d["causes"] == [list(API)]
    assert {n["verdict"] for n in d["nodes"]} <= {v.value for v in NodeVerdict}


def test_too_short_pools_the_pilot_pair_and_never_names_the_benchmark_function():
    from benchwarden.codelevel.profiling import too_short

    def pilot(short_ns: float) -> CallTree:
        return CallTree(ROOT, {(ROOT,): NodeTimes(10, 10 * 90_000.0, 10.0),  # 9 µs per call (< 20 probes) ...
                               (ROOT, "lib:tiny"): NodeTimes(1000, 1000 * short_ns, 1000 * short_ns),
                               (ROOT, "lib:big"): NodeTimes(10, 10 * 50_000.0, 10 * 50_000.0),
                               (ROOT, "lib:big", "lib:tiny"): NodeTimes(10, 10 * 30_000.0, 10 * 30_000.0)}, 1000.0)
    # lib:tiny: 1000 calls of 5 µs and 10 of 30 µs, pooled mean 5.2 µs < 20 µs: folded; lib:big 50 µs: kept
    assert too_short([pilot(5_000.0), pilot(5_000.0)]) == ["lib:tiny"]
    # ... but the root is never folded, and a function long enough on average is kept
    assert too_short([pilot(25_000.0)]) == []
