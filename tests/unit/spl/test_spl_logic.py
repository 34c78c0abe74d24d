"""Three-valued connectives: Kleene's strong logic, checked exhaustively against its truth tables."""

from __future__ import annotations

import itertools

import pytest

from benchwarden.spl.logic import Truth, v_all, v_any, v_not

H, F, U = Truth.HOLDS, Truth.FAILS, Truth.UNDECIDED
ORDER = {F: 0, U: 1, H: 2}  # Kleene: and = min, or = max, not = mirror


def test_not():
    assert (v_not(H), v_not(F), v_not(U)) == (F, H, U)


@pytest.mark.parametrize("values", [v for n in range(4) for v in itertools.product((H, F, U), repeat=n)])
def test_and_or_are_min_and_max(values):
    if values:
        assert v_all(values) is min(values, key=ORDER.get)
        assert v_any(values) is max(values, key=ORDER.get)
        # De Morgan holds in Kleene logic
        assert v_not(v_all(values)) is v_any([v_not(v) for v in values])
    else:
        assert v_all(values) is H and v_any(values) is F


def test_two_valued_inputs_give_boolean_logic():
    for a, b in itertools.product((H, F), repeat=2):
        assert (v_all([a, b]) is H) == (a is H and b is H)
        assert (v_any([a, b]) is H) == (a is H or b is H)


def test_decided_property():
    assert H.decided and F.decided and not U.decided
