"""Terminal tables fit their width: names shortened, droppable columns dropped, else a vertical layout."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from benchwarden.report.table import Column, TableModel, fit, fmt_number, table_width, to_rich


def _model(names, title="t"):
    m = TableModel([Column("benchmark"), Column("mode", drop=1), Column("mean", "right"),
                    Column("iterations", "right", drop=2)], title=title)
    for n in names:
        m.add([n, "avgt", "1,234.5", "50 (+25 wu)"])
    return m


def _render(model, width):
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(to_rich(model))
    return out.getvalue()


def test_a_table_that_fits_is_left_alone():
    layout = fit(_model(["a", "b"]), 200)
    assert layout.columns == (0, 1, 2, 3) and not layout.notes and not layout.vertical


def test_common_prefix_goes_to_a_note_before_anything_is_dropped():
    names = [f"jmh:org.example.bench.Bench{n}.run" for n in range(3)]
    full = table_width([max(len(n) for n in names), 4, 7, 11])
    layout = fit(_model(names), full - 5)
    assert layout.columns == (0, 1, 2, 3)
    assert [r[0] for r in layout.rows] == ["Bench0.run", "Bench1.run", "Bench2.run"]
    assert layout.notes == ("benchmark names without their common prefix 'jmh:org.example.bench.'",)


def test_columns_are_dropped_lowest_first_and_named():
    names = [f"suite:Benchmark{n}WithAFairlyLongNameOfItsOwn" for n in range(3)]
    layout = fit(_model(names), 60)
    assert layout.columns == (0, 2, 3) or layout.columns == (0, 2)
    assert any(n.startswith("not shown at this width: mode") for n in layout.notes)
    text = _render(_model(names), 60)
    assert all(cell_len(line) <= 60 for line in text.splitlines())


def test_too_narrow_for_any_table_becomes_vertical_with_every_value_whole():
    text = _render(_model(["jmh:org.example.Bench.run[size=1000]"]), 30)
    assert "mode avgt" in text and "mean 1,234.5" in text and "iterations 50 (+25 wu)" in text
    assert "┃" not in text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=70),
                min_size=1, max_size=6),
       st.integers(min_value=30, max_value=160))
def test_every_rendered_line_fits(names, width):
    text = _render(_model(names), width)
    assert all(cell_len(line) <= width for line in text.splitlines()), text


@pytest.mark.parametrize("value, shown", [(None, "-"), (float("nan"), "-"), (0.0, "0"), (12.345678, "12.35"),
                                          (123456.7, "123,457"), (0.0012345, "0.001234"), (float("inf"), "∞"),
                                          (float("-inf"), "-∞"), (-3.5, "-3.500")])
def test_numbers_are_formatted_and_infinity_does_not_crash(value, shown):
    # an infinite value only comes from a damaged store; showing it must not be an internal error
    assert fmt_number(value) == shown
