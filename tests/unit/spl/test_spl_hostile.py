"""Hostile SPL sources: a syntax error with line and column (exit 2 from `check`), never a traceback.

Found by hand on main: 300 nested parentheses, 500 `not`s and a 2,000-term `+` chain were RecursionErrors;
`²` (which ``str.isdigit`` calls a digit) an AssertionError in the lexer; `٣` and `１` silently read as 3 and 1.
"""

from __future__ import annotations

import io
import string

import pytest
import spl_fake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main
from benchwarden.spl.ast import to_text
from benchwarden.spl.lexer import SplSyntaxError
from benchwarden.spl.parser import MAX_DEPTH, parse


@pytest.mark.parametrize("text, column", [
    ("a <= ²", 6), ("a <= 2²", 7), ("a <= .²", 6), ("a <= ٣", 6), ("a <= １", 6), ("a <= b * ⁵", 10),
])
def test_digits_are_ascii(text, column):
    with pytest.raises(SplSyntaxError) as info:
        parse(text, "p.spl")
    assert (info.value.line, info.value.column) == (1, column)


@pytest.mark.parametrize("text", ["a <= 1e999 * b", "a <= " + "9" * 5000 + " * b"])
def test_numbers_must_be_finite(text):
    with pytest.raises(SplSyntaxError, match="number too large"):
        parse(text, "p.spl")


HOSTILE = {
    "parentheses": "(" * 300 + "a <= b" + ")" * 300,
    "expression parentheses": "(" * 300 + "a" + ")" * 300 + " <= b",
    "not": "not " * 500 + "a <= b",
    "plus chain": "a" + " + a" * 2000 + " <= b",
    "times chain": "a" + " * 2" * 2000 + " <= b",
    "quantifiers": "for n in {1} " * 300 + "a <= b",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_too_deep_is_a_syntax_error_at_the_place_it_gets_too_deep(name):
    with pytest.raises(SplSyntaxError, match="nested too deeply") as info:
        parse(HOSTILE[name], "p.spl")
    assert info.value.line == 1 and 1 < info.value.column < len(HOSTILE[name])


def _deepest(kind: str) -> str:
    depth = MAX_DEPTH - 2  # a relation and its term take the last levels
    return {"parentheses": "(" * depth + "fast <= slow" + ")" * depth,
            "plus": "fast" + " + 1ns" * depth + " <= slow",
            "not": "not " * depth + "slow <= fast"}[kind]


@pytest.mark.parametrize("kind", ["parentheses", "plus", "not"])
def test_the_deepest_accepted_assertion_goes_through_every_stage(kind):
    program = parse(_deepest(kind), "p.spl")
    assert parse(to_text(program)) is not None


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "splfake", "spl_fake:SplFakeAdapter")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "benchwarden.toml").write_text(
        '[defaults]\niteration_time = "10ms"\nwarmup = { min = 1, max = 1 }\niterations = 5\n'
        'forks = { min = 2, max = 2 }\nstop = "static"\n[suites.fake]\nkind = "splfake"\n')
    monkeypatch.chdir(tmp_path)
    spl_fake.STARTED.clear()
    return tmp_path


def _check(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["check", *args], stdout=out, stderr=err)
    return status, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("name", ["parentheses", "not", "plus chain"])
def test_check_on_a_hostile_file_is_exit_2_with_the_place(project, name):
    (project / "perf.spl").write_text("fast <= slow\n" + HOSTILE[name] + "\n")
    status, output = _check("perf.spl")
    assert status == 2, output
    assert "perf.spl:2:" in output and "nested too deeply" in output and "Traceback" not in output
    assert spl_fake.STARTED == []  # nothing ran


@pytest.mark.parametrize("kind", ["parentheses", "plus", "not"])
def test_check_evaluates_the_deepest_accepted_assertion(project, kind):
    (project / "perf.spl").write_text(_deepest(kind) + "\n")
    status, output = _check("perf.spl", "--json")
    assert status in (0, 1), output  # a verdict, whatever it is: no stage may hit the recursion limit
    assert "Traceback" not in output and "internal error" not in output


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=string.printable + "²³¹⁰٣１٠µμ≤ﬁ\u00a0\u2028\u0000", max_size=60),
       st.integers(0, 150), st.sampled_from(["(", "not ", "for n in {1} ", "a + "]))
def test_fuzz_unicode_and_nesting_never_crash(text, depth, opener):
    source = opener * depth + text
    try:
        parse(source, "fuzz.spl")
    except SplSyntaxError as err:
        assert err.line >= 1 and err.column >= 1 and str(err).startswith(f"fuzz.spl:{err.line}:{err.column}: ")
