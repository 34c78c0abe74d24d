"""What a reader may ask `serve` to measure: each harness's declared domain, and clear refusals outside it."""

from __future__ import annotations

import pytest

from benchwarden.model import Benchmark, BenchmarkId
from benchwarden.serve.domain import DomainError, families


def listed(suite: str, name: str, *combos: dict[str, str], spec: dict | None = None) -> list[Benchmark]:
    return [Benchmark(BenchmarkId(suite, name, tuple(c.items())), "avgt", "us/op", spec=spec or {}) for c in combos]


def test_jmh_numeric_params_accept_any_value_in_the_declared_range_and_replace_it():
    found = families("j", "jmh", [
        *listed("j", "T.tokenize", {"size": "100", "mode": "fast"}, {"size": "1000", "mode": "fast"},
                {"size": "100", "mode": "slow"}, {"size": "1000", "mode": "slow"}, spec={"jar": "x.jar"}),
        *listed("j", "Plain.run", {}),  # no parameters: nothing to choose
    ])
    assert list(found) == ["j:T.tokenize"]
    family = found["j:T.tokenize"]
    size, mode = family.axes
    assert size.open_range and size.integer and size.describe() == "an integer from 100 to 1000"
    assert not mode.open_range and mode.describe() == "one of fast, slow"
    new = family.resolve({"size": " 500 ", "mode": "slow"})
    assert new.id.params == (("size", "500"), ("mode", "slow")) and new.spec == {"jar": "x.jar"}
    assert family.resolve({"size": "1000", "mode": "fast"}) is family.members[1]  # declared: the listed one
    assert family.resolve({"size": "500.0", "mode": "fast"}).id.params[0] == ("size", "500")
    for params, message in [({"size": "1001", "mode": "fast"}, "outside the declared range 100..1000"),
                            ({"size": "99", "mode": "fast"}, "outside the declared range"),
                            ({"size": "250.5", "mode": "fast"}, "expected an integer from 100 to 1000"),
                            ({"size": "1e3", "mode": "fast"}, "expected an integer"),
                            ({"size": "nan", "mode": "fast"}, "expected an integer"),
                            ({"size": "inf", "mode": "fast"}, "expected an integer"),
                            ({"size": "500", "mode": "medium"}, "expected one of fast, slow, got 'medium'"),
                            ({"size": "500"}, "give a value for 'mode'"),
                            ({"size": "500", "mode": "fast", "x": "1"}, "no parameter 'x'"),
                            ({"size": "", "mode": "fast"}, "expected an integer"),
                            ({"size": "1" * 100, "mode": "fast"}, "expected an integer")]:
        with pytest.raises(DomainError, match=message):
            family.resolve(params)


def test_a_real_valued_jmh_range_keeps_the_readers_number():
    family = families("j", "jmh", listed("j", "F.load", {"factor": "0.25"}, {"factor": "0.75"}))["j:F.load"]
    assert family.axes[0].describe() == "a number from 0.25 to 0.75"
    assert family.resolve({"factor": "0.5"}).id.params == (("factor", "0.5"),)
    assert family.resolve({"factor": ".3"}).id.params == (("factor", "0.3"),)


def test_a_single_declared_value_is_no_range():
    family = families("j", "jmh", listed("j", "S.one", {"size": "100"}))["j:S.one"]
    assert not family.axes[0].open_range
    with pytest.raises(DomainError, match="expected one of 100"):
        family.resolve({"size": "150"})


@pytest.mark.parametrize("kind", ["go", "python"])
def test_go_and_asv_values_exist_only_as_declared(kind):
    found = families("s", kind, listed("s", "B.count", {"size": "100"}, {"size": "1000"}, {"size": "10000"}))
    family = found["s:B.count"]
    assert not family.axes[0].open_range and family.axes[0].describe() == "one of 100, 1000, 10000"
    assert family.resolve({"size": "1000"}) is family.members[1]
    with pytest.raises(DomainError, match="expected one of 100, 1000, 10000, got '500'"):
        family.resolve({"size": "500"})


def test_asv_string_values_may_be_given_without_their_quotes():
    family = families("p", "python", listed("p", "B.impl", {"impl": "'hash'"}, {"impl": "'sort'"}))["p:B.impl"]
    assert family.resolve({"impl": "hash"}) is family.members[0]
    assert family.resolve({"impl": "'sort'"}) is family.members[1]


def test_a_combination_the_harness_did_not_list_is_refused_for_closed_kinds():
    # asv can exclude combinations (skip); Go lists only the sub-benchmarks that ran
    family = families("g", "go", listed("g", "B", {"a": "1", "b": "x"}, {"a": "2", "b": "y"}))["g:B"]
    with pytest.raises(DomainError, match="lists no combination a=1, b=y"):
        family.resolve({"a": "1", "b": "y"})


def test_the_form_description_is_plain_data():
    family = families("j", "jmh", listed("j", "T.t", {"size": "100"}, {"size": "1000"}))["j:T.t"]
    assert family.to_json() == {"benchmark": "j:T.t", "axes": [
        {"name": "size", "values": ["100", "1000"], "open": True, "accepts": "an integer from 100 to 1000",
         "low": 100.0, "high": 1000.0, "integer": True}]}
