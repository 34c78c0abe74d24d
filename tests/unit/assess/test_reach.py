"""Reach: which benchmarks a named method is reached by, and group testing's grouping (no benchmark may reach
two methods of one group)."""

from __future__ import annotations

import itertools

import numpy as np

from benchwarden.assess.reach import ReachMap, calls_of, disjoint_groups


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


def test_a_java_name_without_parameters_is_reached_through_every_overload():
    # the agent names each traced method with its parameter types; Commons Text's study named them without
    traced = {"p.ParsedDecimal#append(char)": 225, "p.ParsedDecimal#append(char[])": 15,
              "p.ParsedDecimal#appendFraction(int,int)": 20, "p.ParsedDecimal#from(double)": 0}
    assert calls_of(traced, "p.ParsedDecimal#append") == 240  # both overloads, not appendFraction
    assert calls_of(traced, "p.ParsedDecimal#append(char[])") == 15  # a parameter list selects one overload
    assert calls_of(traced, "p.ParsedDecimal#appendWhole") == 0
    reach = ReachMap({"b1": traced, "b2": {"p.ParsedDecimal#append(char)": 3}, "b3": {"p.Other#append(int)": 9}},
                     trace_s=0.0, failed={"b4": "crashed"})
    assert reach.benchmarks_reaching("p.ParsedDecimal#append") == ["b1", "b2", "b4"]
    assert reach.benchmarks_reaching("p.ParsedDecimal#from") == ["b4"]  # zero calls reach nothing; failed: all


def test_go_and_python_names_match_exactly():
    traced = {"example.com/ws.(*T).Count": 4, "example.com/ws.Count": 2, "ws.mod:count": 1, "ws.mod:count_all": 8}
    assert calls_of(traced, "example.com/ws.Count") == 2
    assert calls_of(traced, "example.com/ws.(*T).Count") == 4
    assert calls_of(traced, "ws.mod:count") == 1
