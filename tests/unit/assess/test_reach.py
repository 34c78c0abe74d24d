"""Group testing's grouping: no benchmark may reach two methods of one group."""

from __future__ import annotations

import itertools

import numpy as np

from benchwarden.assess.reach import disjoint_groups


def test_methods_share_a_group_only_when_no_benchmark_reaches_two_of_them():
    reaching = {"a": ["b1", "b2"], "b": ["b2", "b3"], "c": ["b4"], "d": ["b3", "b5"], "e": ["b1"]}
    # a; b overlaps a (b2); c joins a; d overlaps b (b3) but not a or c: joins the first group; e overlaps a (b1)
    # but not b
    assert disjoint_groups(reaching) == [["a", "c", "d"], ["b", "e"]]


def test_random_reach_maps_give_partitions_with_disjoint_reach():
    rng = np.random.default_rng(19)
    for _ in range(200):
        methods = [f"m{i}" for i in range(int(rng.integers(1, 12)))]
        reaching = {m: [f"k{j}" for j in rng.choice(10, size=int(rng.integers(1, 5)), replace=False)] for m in methods}
        groups = disjoint_groups(reaching)
        assert sorted(m for g in groups for m in g) == sorted(methods)  # every method exactly once
        for group in groups:
            for x, y in itertools.combinations(group, 2):
                assert not set(reaching[x]) & set(reaching[y])
        # first fit: a method opens a new group only if it overlaps every earlier group
        for later, group in enumerate(groups[1:], start=1):
            first = group[0]
            for earlier in groups[:later]:
                opened_before = [m for m in earlier if methods.index(m) < methods.index(first)]
                assert any(set(reaching[first]) & set(reaching[m]) for m in opened_before)


def test_no_methods_no_groups():
    assert disjoint_groups({}) == []
