"""Expansion: aliases, SELF/THIS, arguments, quantifiers and linear sides, and every expansion error."""

from __future__ import annotations

import pytest

from benchwarden.model import BenchmarkId as B
from benchwarden.spl.expand import AllOf, AnyOf, Atom, Instance, NotOf, StaticCatalog, expand_program, format_ns
from benchwarden.spl.interpretations import Linear
from benchwarden.spl.lexer import SplError
from benchwarden.spl.parser import parse

TOK = "wordstat.bench.TokenizeBench.tokenize"
WORKTREE = [B("w", TOK, (("size", "100"),)), B("w", TOK, (("size", "1000"),)),
            B("w", "wordstat.bench.CountWordsBench.countHash"), B("w", "wordstat.bench.CountWordsBench.countSorted"),
            B("w", "bench.Mode.run", (("n", "1"), ("mode", "'fast'"))), B("w", "bench.Mode.run", (("n", "2"), ("mode", "'fast'"))),
            B("w", "bench.Mode.run", (("n", "1"), ("mode", "'slow'"))),
            B("w", "bench.Single.run", (("k", "10"),))]
OLD = [B("w", TOK, (("size", "100"),))]  # at v1 only one size existed
CATALOG = StaticCatalog({None: WORKTREE, "v1": OLD}, ["w"])


def expand(text, self_ref=None):
    return expand_program(parse(text, "t.spl"), CATALOG, self_ref)


def only(text, self_ref=None):
    [assertion] = expand(text, self_ref)
    return assertion


def test_scaling_across_parameter_values():
    a = only("TokenizeBench.tokenize(1000) <= 12 * TokenizeBench.tokenize(size=100)")
    [c] = a.comparisons
    assert c.left.instance == Instance(B("w", TOK, (("size", "1000"),)))
    assert c.right.transform == Linear(12.0, 0.0)
    assert c.text == f"w:{TOK}[size=1000] <= 12 * w:{TOK}[size=100]"
    assert isinstance(a.tree, Atom)


def test_quantifiers_expand_over_their_sets_nested():
    a = only('for n in {1, 2} for m in {"fast"} Mode.run(n, m) <= 2 * Mode.run(1, "fast")')
    assert isinstance(a.tree, AllOf) and a.tree.label == 'for n in {1, 2}'
    assert [c.left.instance.benchmark.params for c in a.comparisons] == [
        (("n", "1"), ("mode", "'fast'")), (("n", "2"), ("mode", "'fast'"))]
    assert all(isinstance(ch, AllOf) and ch.label == 'for m in {"fast"}' for ch in a.tree.children)


def test_exists_is_a_disjunction_and_not_and_or_keep_structure():
    # a quantifier's body extends as far as possible, so the disjunction is parenthesised
    a = only('(exists n in {1, 2} Mode.run(n, mode="fast") <= 1ms) or not countHash <= countSorted')
    assert isinstance(a.tree, AnyOf) and a.tree.label == "or"
    assert isinstance(a.tree.children[0], AnyOf) and a.tree.children[0].label.startswith("exists n")
    assert isinstance(a.tree.children[1], NotOf)


def test_aliases_bind_revision_and_arguments():
    [a] = expand("old := TokenizeBench.tokenize@v1(size=100)\ncur := TokenizeBench.tokenize\n"
                 "cur(100) <= 1.05 * old")
    [c] = a.comparisons
    assert c.left.instance == Instance(B("w", TOK, (("size", "100"),)), None)
    assert c.right.instance == Instance(B("w", TOK, (("size", "100"),)), "v1")
    assert c.right.instance.label.endswith("@v1")


def test_revisions_resolve_against_their_own_listing():
    with pytest.raises(SplError, match="1000 is not a value of parameter 'size'.*listed values: 100\n"):
        expand("old := TokenizeBench.tokenize@v1\nold(1000) <= 1ms")


def test_single_valued_parameters_need_no_argument():
    assert only("Single.run <= 1ms").comparisons[0].left.instance.benchmark.params == (("k", "10"),)


def test_self_and_this_in_annotations():
    a = only("SELF(1000) <= 12 * THIS(100)", self_ref=f"w:{TOK}")
    assert {c.left.instance.benchmark.name for c in a.comparisons} == {TOK}


def test_linear_forms_and_constants():
    c = only("2 * (countHash + 1us) - 500ns <= countSorted * 1.5 + 2ms").comparisons[0]
    assert c.left.transform == Linear(2.0, 1500.0) and c.right.transform == Linear(1.5, 2e6)
    c = only("countHash <= 3 * 2ms").comparisons[0]
    assert c.right.instance is None and c.right.constant_ns == pytest.approx(6e6)
    assert c.text.endswith("<= 6ms")


def test_using_options():
    a = only("using bootstrap(alpha=0.01, margin=0.1): countHash = countSorted")
    assert (a.options.interpretation, a.options.alpha, a.options.margin) == ("bootstrap", 0.01, 0.1)


def test_instances_are_unique_and_in_order():
    a = only("countHash <= countSorted and countSorted >= countHash")
    assert [i.benchmark.name.rsplit(".", 1)[-1] for i in a.instances] == ["countHash", "countSorted"]


def test_assertion_names_are_source_and_line():
    names = [a.name for a in expand("countHash <= countSorted\n\ncountHash <= 1ms")]
    assert names == ["t.spl:1", "t.spl:3"]


def test_format_ns():
    assert [format_ns(v) for v in (12.0, 1500.0, 2.5e6, 3e9)] == ["12ns", "1.5us", "2.5ms", "3s"]


ERRORS = [
    ("TokenizeBench.tokenize <= countHash", 1, 1, "needs a value for parameter 'size' (one of 100, 1000)"),
    ("TokenizeBench.tokenize(500) <= countHash", 1, 24, "500 is not a value of parameter 'size'"),
    ("countHash(1) <= countSorted", 1, 11, "too many arguments"),
    ("TokenizeBench.tokenize(sise=100) <= countHash", 1, 24, "has no parameter 'sise' (size)"),
    ("TokenizeBench.tokenize(100, size=100) <= countHash", 1, 29, "parameter 'size' is given twice"),
    ("nope <= countHash", 1, 1, "no benchmark 'nope'"),
    ("countHash * countSorted <= 1ms", 1, 1, "cannot multiply two benchmarks"),
    ("2ms * countHash <= 1ms", 1, 1, "cannot multiply two times"),
    ("countHash <= 2", 1, 14, "a bare number is not a time"),
    ("countHash + 2 <= 1ms", 1, 1, "cannot add a bare number and a time"),
    ("2ms <= 3ms", 1, 1, "compares no benchmark"),
    ("countHash + countSorted <= 1ms", 1, 1, "only one benchmark"),
    ("1ms - countHash <= 1ms", 1, 1, "cannot be subtracted"),
    ("0 * countHash <= countSorted", 1, 1, "must be positive"),
    ("SELF <= countHash", 1, 1, "only allowed in @SPL annotations"),
    ("x := countHash\nx := countSorted", 2, 1, "alias 'x' is already defined at line 1"),
    ("x := countHash\ny := x", 2, 6, "cannot refer to another alias"),
    ("x := TokenizeBench.tokenize(s)", 1, 29, "an alias fixes literal values only"),
    ("x := TokenizeBench.tokenize@v1\nx@v2(100) <= 1ms", 2, 1, "already fixes the revision @v1"),
    ("using foo: countHash <= countSorted", 1, 1, "unknown interpretation 'foo'"),
    ("using quick(beta=1): countHash <= countSorted", 1, 1, "unknown option 'beta'"),
    ("using quick(alpha=0.7): countHash <= countSorted", 1, 1, "option 'alpha' must be in (0.0, 0.5]"),
    ("for s in {100} for s in {100} countHash <= 1ms", 1, 16, "already bound"),
    ("x := countHash\nfor x in {1} countHash <= 1ms", 2, 1, "has the name of an alias"),
    ("for s in {100} s <= countHash", 1, 16, "is a quantifier variable, not a benchmark"),
    ("TokenizeBench.tokenize(z) <= countHash", 1, 24, "unknown variable 'z'"),
    ("Mode.run(2, \"slow\") <= 1ms", 1, 1, "was not listed with parameters [n=2,mode='slow']"),
]


@pytest.mark.parametrize("text,line,column,message", ERRORS)
def test_expansion_errors_point_at_the_source(text, line, column, message):
    with pytest.raises(SplError) as info:
        expand(text)
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert message in err.detail, str(err)
    assert str(err).startswith(f"t.spl:{line}:{column}: ")


class FailingCatalog:
    suites = ["w"]

    def listing(self, revision):
        from benchwarden.errors import BenchwardenError

        if revision is None:
            return WORKTREE
        raise BenchwardenError(f"unknown revision {revision!r}")


def test_revision_failures_point_at_the_term():
    with pytest.raises(SplError, match=r"t.spl:1:14: revision 'nope': unknown revision 'nope'"):
        expand_program(parse("countHash <= countSorted@nope", "t.spl"), FailingCatalog())
