"""SPL lexer and parser: every construct, every error path (with line and column), and hypothesis fuzzing."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchwarden.spl.ast import (
    AliasDef,
    And,
    Assertion,
    BinOp,
    Duration,
    Literal,
    Not,
    Number,
    Or,
    Quantifier,
    Relation,
    Term,
    VarRef,
    to_text,
)
from benchwarden.spl.lexer import SplSyntaxError, tokenize
from benchwarden.spl.parser import parse, parse_formula


def strip(node):
    """A tree without spans, for comparing parses of different texts."""
    if isinstance(node, tuple):
        return tuple(strip(n) for n in node)
    if hasattr(node, "__dataclass_fields__"):
        return (type(node).__name__,) + tuple(strip(getattr(node, f)) for f in node.__dataclass_fields__
                                              if f not in ("span", "text"))
    return node


# -- constructs -----------------------------------------------------------------------------------------

def test_relation_with_scale_on_the_right():
    f = parse_formula("tokenize(1000) <= 12 * tokenize(100)")
    assert isinstance(f, Relation) and f.op == "<="
    assert f.left == Term("tokenize", None, (f.left.args[0],), f.left.span)
    assert f.left.args[0].value == Literal(1000, f.left.args[0].value.span)
    assert isinstance(f.right, BinOp) and f.right.op == "*"
    assert f.right.left == Number(12.0, f.right.left.span)


@pytest.mark.parametrize("op", ["<=", ">=", "<", ">", "="])
def test_every_relation(op):
    assert parse_formula(f"a {op} b").op == op


def test_double_equals_is_equality():
    assert parse_formula("a == b").op == "="


def test_shift_and_scale_on_either_side_and_durations():
    f = parse_formula("a + 2ms <= 1.05 * b - 1.5us")
    assert f.left == BinOp("+", Term("a", None, None, f.left.left.span), Duration(2e6, "2ms", f.left.right.span),
                           f.left.span)
    assert isinstance(f.right, BinOp) and f.right.op == "-"
    assert f.right.right.ns == pytest.approx(1500.0)


@pytest.mark.parametrize("text,ns", [("3ns", 3.0), ("2us", 2e3), ("2µs", 2e3), ("4ms", 4e6), ("1s", 1e9),
                                     (".5ms", 5e5), ("1e3ns", 1e3)])
def test_duration_units(text, ns):
    assert parse_formula(f"a <= {text}").right.ns == pytest.approx(ns)


def test_precedence_not_and_or():
    f = parse_formula("not a <= b and c <= d or e <= f")
    assert isinstance(f, Or) and isinstance(f.operands[0], And)
    assert isinstance(f.operands[0].operands[0], Not)


def test_parentheses_group_formulas_and_expressions():
    f = parse_formula("(a <= b or c <= d) and (2 * e) <= f")
    assert isinstance(f, And)
    assert isinstance(f.operands[0], Or)
    assert isinstance(f.operands[1], Relation) and isinstance(f.operands[1].left, BinOp)


def test_quantifiers_nest_and_take_the_rest_of_the_formula():
    f = parse_formula('for n in {10, 100} exists m in {"fast", slow}: a(n, mode=m) <= b(n) and c <= d')
    assert isinstance(f, Quantifier) and f.kind == "for" and f.var == "n"
    assert [v.value for v in f.values] == [10, 100]
    inner = f.body
    assert isinstance(inner, Quantifier) and inner.kind == "exists"
    assert [v.value for v in inner.values] == ["fast", "slow"]
    assert isinstance(inner.body, And)
    args = inner.body.operands[0].left.args
    assert args[0].name is None and isinstance(args[0].value, VarRef)
    assert args[1].name == "mode" and args[1].value.name == "m"


def test_quantifier_after_and():
    f = parse_formula("a <= b and for n in {1} c(n) <= d")
    assert isinstance(f, And) and isinstance(f.operands[1], Quantifier)


def test_aliases_with_revision_args_and_statements():
    program = parse("# header comment\nold := wordstat.Bench.parse@v2.0.0(size=10)\ncur := Bench.parse@HEAD~1\n"
                    "head := `BenchmarkX/sub`@\"release/1.0\"\nold <= cur; cur <= 1.05 * old\n", "f.spl")
    old, cur, head, a1, a2 = program.statements
    assert isinstance(old, AliasDef) and old.name == "old"
    assert old.target.ref == "wordstat.Bench.parse" and old.target.revision == "v2.0.0"
    assert old.target.args[0].name == "size"
    assert cur.target.revision == "HEAD~1"
    assert head.target.quoted and head.target.ref == "BenchmarkX/sub" and head.target.revision == "release/1.0"
    assert isinstance(a1, Assertion) and isinstance(a2, Assertion)
    assert a1.span.line == 5 and a2.span.line == 5 and a2.span.column == 13
    assert program.aliases == (old, cur, head) and program.assertions == (a1, a2)


def test_statements_on_separate_lines_without_separator():
    program = parse("a <= b\nc <= d\n(e <= f)\n1.1 * g <= h")
    assert len(program.assertions) == 4


def test_arguments_must_start_on_the_line_of_their_term():
    program = parse("a <= b\n(c) <= d")
    assert len(program.assertions) == 2
    assert program.assertions[0].formula.right.args is None


def test_reference_forms():
    f = parse_formula("java.util.Arrays#sort(10) <= wordstat:TopKBench.topK and "
                      "`wordstat-cli:top` <= internal/parse.BenchmarkX/sub and SELF <= THIS")
    refs = [o.left.ref for o in f.operands] + [o.right.ref for o in f.operands]
    assert refs == ["java.util.Arrays#sort", "wordstat-cli:top", "SELF", "wordstat:TopKBench.topK",
                    "internal/parse.BenchmarkX/sub", "SELF"]


def test_hash_glued_to_a_name_is_part_of_it_else_a_comment():
    f = parse_formula("Arrays#sort <= b # the rest is a comment <= c")
    assert f.left.ref == "Arrays#sort" and f.right.ref == "b"


def test_using_clause():
    program = parse("using bootstrap(alpha=0.01, margin=0.05): a = b\nusing quick a <= b")
    first, second = program.assertions
    assert first.using.interpretation == "bootstrap" and first.using.options == (("alpha", 0.01), ("margin", 0.05))
    assert second.using.interpretation == "quick" and second.using.options == ()


def test_string_escapes():
    f = parse_formula(r'a("x\"y\\z\n\t", \'it\'\'s\') <= b'.replace("\\'it\\'\\'s\\'", "'it'"))
    assert f.left.args[0].value.value == 'x"y\\z\n\t'


def test_assertion_text_is_canonical():
    assert parse("a<=12*b # note").assertions[0].text == "a <= 12 * b"


ROUND_TRIP = [
    "for s in {100, 1000} tokenize(s) <= 12 * tokenize(100)",
    "a - (b - 1ms) <= c",
    "(a <= b or c <= d) and not e = f",
    'exists m in {"x y", 2.5} a(mode=m) > 2 * (b + 3us)',
    "using parametric(alpha=0.01): `odd name` <= x@HEAD~1(1, 'a')",
    "old := X@v1\nfor n in {1} old(n) <= 1.05 * X(n)",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_printing_round_trips(text):
    program = parse(text)
    again = parse(to_text(program))
    assert strip(again.statements) == strip(program.statements)


# -- error paths: each names line and column and what was expected -----------------------------------------

ERRORS = [
    ("a <= ", 1, 5, "expected a benchmark, an alias, a number or a duration after '<=', found end of input"),
    ("a and b", 1, 3, "expected a relation (<=, >=, <, >, =) after 'a', found 'and'"),
    ("a <= b <= c", 1, 8, "relations cannot be chained"),
    ("for x {1} a <= b", 1, 7, "expected 'in' after 'x', found '{'"),
    ("for 1 in {1} a <= b", 1, 5, "expected a variable name after 'for', found number 1"),
    ("for x in 1 a <= b", 1, 10, "expected '{' starting a set of values"),
    ("for x in {} a <= b", 1, 10, "the set is empty"),
    ("for x in {1 2} a <= b", 1, 13, "expected ',' or '}' after number 1, found number 2"),
    ("for x in {<} a <= b", 1, 11, "expected a value"),
    ("a(1,", 1, 5, "expected an argument"),
    ("a(1 2) <= b", 1, 5, "expected ',' or ')' after number 1, found number 2"),
    ("a(x.y) <= b", 1, 3, "expected an argument"),
    ("a := 1", 1, 6, "expected a benchmark reference after ':=', found number 1"),
    ("a.b := c", 1, 1, "an alias name must be a plain identifier"),
    ("(a <= b) <= c", 1, 10, "expected 'and', 'or' or ')', found '<='"),
    ("(a <= b", 1, 8, "expected ')' after 'b', found end of input"),
    ("a <= b )", 1, 8, "expected 'and', 'or', or the end of the assertion after 'b', found ')'"),
    ("a <= 2xs", 1, 7, "unknown time unit 'xs'"),
    ("a <= 2_", 1, 7, "a number cannot be followed by '_'"),
    ("'abc", 1, 1, "unterminated string"),
    ('a("x\\q") <= b', 1, 5, "unknown escape"),
    ("`abc <= b", 1, 1, "unterminated `reference`"),
    ("`` <= b", 1, 1, "empty `` reference"),
    ("a@ <= b", 1, 4, "expected a revision after '@'"),
    ("a <= b * ", 1, 9, "expected a benchmark, an alias, a number or a duration after '*'"),
    ("%", 1, 1, "unexpected character '%'"),
    ("using : a <= b", 1, 7, "expected an interpretation name"),
    ("using q(alpha=x) a <= b", 1, 15, "expected a number for option 'alpha'"),
    ("using q(alpha) a <= b", 1, 14, "expected '=' and a number"),
    ("using q(1) a <= b", 1, 9, "expected an option name"),
    ("using q(alpha=1 a <= b", 1, 17, "expected ',' or ')'"),
    ("a <= b\n\n   c <= ", 3, 8, "expected a benchmark, an alias"),
    ("a <= b\n  for", 2, 6, "expected a variable name after 'for', found end of input"),
    ("a := ", 1, 5, "expected a benchmark reference"),
    ("a := b@", 1, 8, "expected a revision (a commit, a tag, a branch or HEAD) after '@', found end of input"),
]


@pytest.mark.parametrize("text,line,column,message", ERRORS)
def test_errors_point_at_line_and_column(text, line, column, message):
    with pytest.raises(SplSyntaxError) as info:
        parse(text, "bad.spl")
    err = info.value
    assert (err.source, err.line, err.column) == ("bad.spl", line, column), str(err)
    assert message in err.detail
    assert str(err).startswith(f"bad.spl:{line}:{column}: ")
    # the message shows the offending line with a caret under the column
    shown = str(err).splitlines()
    if len(shown) == 3:
        assert shown[2].index("^") - 4 == column - 1


def test_parse_formula_wants_exactly_one_assertion():
    with pytest.raises(SplSyntaxError, match="exactly one assertion"):
        parse_formula("a <= b\nc <= d")


def test_tokens_carry_positions():
    toks = tokenize("a <=\n  12ms")
    assert [(t.kind, t.line, t.column) for t in toks] == [("name", 1, 1), ("op", 1, 3), ("duration", 2, 3),
                                                         ("eof", 2, 7)]
    assert toks[2].newline_before and not toks[1].newline_before


# -- fuzzing: no crash, only clear errors -----------------------------------------------------------------

VOCAB = ["a", "b(1)", "x.y#z", "`q r`", "SELF", "THIS", "for", "exists", "in", "and", "or", "not", "using",
         "quick", ":=", "<=", ">=", "<", ">", "=", "==", "*", "+", "-", "(", ")", "{", "}", ",", ";", ":", "@",
         "HEAD", "12", "1.05", "2ms", '"s"', "'t'", "#c\n", "\n", "n", "size=", "v1.0"]


def _check_error(text: str, err: SplSyntaxError) -> None:
    lines = text.splitlines() or [""]
    assert err.source == "fuzz.spl"
    assert 1 <= err.line <= max(len(lines), text.count("\n") + 1)
    assert err.column >= 1
    assert err.detail and str(err).startswith(f"fuzz.spl:{err.line}:{err.column}: ")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=string.printable + "µ≤😀\u0000", max_size=80))
def test_fuzz_arbitrary_text_never_crashes(text):
    try:
        parse(text, "fuzz.spl")
    except SplSyntaxError as err:
        _check_error(text, err)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), max_size=25))
def test_fuzz_token_soup_never_crashes_and_valid_programs_round_trip(words):
    text = " ".join(words)
    try:
        program = parse(text, "fuzz.spl")
    except SplSyntaxError as err:
        _check_error(text, err)
        return
    assert strip(parse(to_text(program)).statements) == strip(program.statements)


names = st.sampled_from(["a", "b", "Bench.x", "`w:q`", "SELF"])
values = st.one_of(st.integers(0, 10_000), st.sampled_from(["fast", "x y"]))
terms = st.builds(lambda n, args: n + (f"({', '.join(repr(a) if isinstance(a, str) else str(a) for a in args)})"
                                       if args is not None else ""),
                  names, st.one_of(st.none(), st.lists(values, max_size=2)))
exprs = st.recursive(st.one_of(terms, st.sampled_from(["2ms", "1.5us"])),
                     lambda inner: st.one_of(st.builds(lambda k, e: f"{k} * ({e})", st.sampled_from(["2", "1.05"]), inner),
                                             st.builds(lambda e: f"{e} + 1ms", inner)), max_leaves=4)
relations = st.builds(lambda left, op, r: f"{left} {op} {r}", exprs, st.sampled_from(["<=", ">=", "<", ">", "="]), exprs)
formulas = st.recursive(relations, lambda inner: st.one_of(
    st.builds(lambda a, b: f"({a}) and ({b})", inner, inner),
    st.builds(lambda a, b: f"({a}) or ({b})", inner, inner),
    st.builds(lambda a: f"not ({a})", inner),
    st.builds(lambda a: f"for n in {{1, 2}} {a}", inner)), max_leaves=5)


@settings(max_examples=300, deadline=None)
@given(formulas)
def test_generated_formulas_parse_and_round_trip(text):
    f = parse_formula(text)
    assert strip(parse_formula(to_text(f))) == strip(f)
