"""A hand-written recursive-descent parser for SPL (grammar in docs/spl.md, "Grammar").

Why hand-written: the language is small (one token of look-ahead, plus one bounded backtrack to
tell ``(formula)`` from ``(expression) <= ...``), a grammar library would be a dependency for ~300
lines, and precise messages ("expected a relation (<=, >=, <, >, =) after 'a', found 'and'") are
easiest to write by hand.  No ``eval`` anywhere: values are converted by the lexer.

Every error is a :class:`~benchwarden.spl.lexer.SplSyntaxError` naming source, line and column.
When the parser had to try two readings of a parenthesis, it reports the error of the reading that
got further into the input (the usual "furthest failure" rule), which is the one the author meant.
"""

from __future__ import annotations

from benchwarden.spl.ast import (
    SELF,
    AliasDef,
    And,
    Arg,
    ArgValue,
    Assertion,
    BinOp,
    Duration,
    Expr,
    Formula,
    Literal,
    Not,
    Number,
    Or,
    Program,
    Quantifier,
    Relation,
    Span,
    Statement,
    Term,
    Using,
    VarRef,
    to_text,
)
from benchwarden.spl.lexer import SplSyntaxError, Token, tokenize

#: deepest syntax tree accepted: nested parentheses, ``not``, quantifiers and chained operators (``a + b + c``
#: is two levels) together.  Real assertions use a handful; the limit keeps every later stage, which walks the
#: tree recursively, far from Python's recursion limit (300 nested parentheses used to be a RecursionError).
MAX_DEPTH = 100
_RELATION_OPS = ("<=", ">=", "<", ">", "=")
_RELATIONS_TEXT = "a relation (<=, >=, <, >, =)"
_TERM_START = ("name", "qref")


class Parser:
    """Parses one source. Use :func:`parse`; the class exists so state stays out of module globals."""

    def __init__(self, text: str, source: str = "<input>"):
        self.text = text
        self.source = source
        self.tokens = tokenize(text, source)
        self.i = 0
        self.depth = 0  # nesting of the construct being parsed (see MAX_DEPTH)

    # -- helpers -------------------------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def span(self, tok: Token | None = None) -> Span:
        t = tok or self.tok
        return Span(self.source, t.line, t.column)

    def error(self, expected: str, tok: Token | None = None, after: Token | None = None) -> SplSyntaxError:
        t = tok or self.tok
        where = f" after {after.describe()}" if after is not None else ""
        return SplSyntaxError(self.source, t.line, t.column, f"expected {expected}{where}, found {t.describe()}",
                              self.text)

    def nested(self, rule, *args):
        """Parse ``rule(*args)`` one level deeper; a SplSyntaxError at the current token past :data:`MAX_DEPTH`."""
        if self.depth >= MAX_DEPTH:
            raise self.too_deep(self.tok)
        self.depth += 1
        try:
            return rule(*args)
        finally:
            self.depth -= 1

    def too_deep(self, tok: Token) -> SplSyntaxError:
        return SplSyntaxError(self.source, tok.line, tok.column,
                              f"the assertion is nested too deeply (more than {MAX_DEPTH} levels of parentheses, "
                              "'not', quantifiers and operators); split it with aliases or 'and'", self.text)

    def is_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.value in ops

    def is_keyword(self, *words: str) -> bool:
        return self.tok.kind == "keyword" and self.tok.value in words

    def expect_op(self, op: str, expected: str | None = None) -> Token:
        if not self.is_op(op):
            raise self.error(expected or f"'{op}'", after=self.tokens[self.i - 1] if self.i else None)
        return self.advance()

    # -- statements ----------------------------------------------------------------------------------

    def program(self) -> Program:
        statements: list[Statement] = []
        while self.tok.kind != "eof":
            if self.is_op(";"):
                self.advance()
                continue
            statements.append(self.statement())
            if self.tok.kind != "eof" and not self.is_op(";") and self._continues_previous():
                raise self.error("'and', 'or', or the end of the assertion", after=self.tokens[self.i - 1])
        return Program(self.source, tuple(statements), self.text)

    def _continues_previous(self) -> bool:
        """After a complete statement, tokens that can only continue an expression are an error, not a
        new statement (``a <= b c`` must not silently become two statements)."""
        return self.tok.kind == "revision" or self.is_op(
            ")", "}", ",", ":", ":=", "@", "*", "+", "-", *_RELATION_OPS)

    def statement(self) -> Statement:
        if self.tok.kind == "name" and self.peek().kind == "op" and self.peek().value == ":=":
            return self.alias()
        return self.assertion()

    def alias(self) -> AliasDef:
        name_tok = self.advance()
        if any(c in name_tok.text for c in ".#/:"):
            raise SplSyntaxError(self.source, name_tok.line, name_tok.column,
                                 f"an alias name must be a plain identifier, not {name_tok.describe()}", self.text)
        self.advance()  # ':='
        if self.tok.kind not in _TERM_START and not self.is_keyword("SELF", "THIS"):
            raise self.error("a benchmark reference", after=self.tokens[self.i - 1])
        target = self.term()
        return AliasDef(name_tok.text, target, self.span(name_tok))

    def assertion(self) -> Assertion:
        start = self.tok
        using = self.using() if self.is_keyword("using") else None
        formula = self.formula()
        return Assertion(formula, using, self.span(start), to_text(formula))

    def using(self) -> Using:
        start = self.advance()
        if self.tok.kind != "name":
            raise self.error("an interpretation name (quick, parametric, bootstrap)", after=start)
        name = self.advance().text
        options: list[tuple[str, float]] = []
        if self.is_op("("):
            self.advance()
            while True:
                if self.tok.kind != "name":
                    raise self.error("an option name (alpha, margin)")
                key = self.advance().text
                self.expect_op("=", "'=' and a number")
                if self.tok.kind != "number":
                    raise self.error(f"a number for option '{key}'")
                options.append((key, float(self.advance().value)))  # type: ignore[arg-type]
                if self.is_op(","):
                    self.advance()
                    continue
                self.expect_op(")", "',' or ')'")
                break
        if self.is_op(":"):
            self.advance()
        return Using(name, tuple(options), self.span(start))

    # -- formulas ------------------------------------------------------------------------------------

    def formula(self) -> Formula:
        if self.is_keyword("for", "exists"):
            return self.quantifier()
        return self.disjunction()

    def quantifier(self) -> Quantifier:
        start = self.advance()
        if self.tok.kind != "name" or any(c in self.tok.text for c in ".#/:"):
            raise self.error("a variable name", after=start)
        var = self.advance().text
        if not self.is_keyword("in"):
            raise self.error("'in'", after=self.tokens[self.i - 1])
        self.advance()
        values = self.value_set()
        if self.is_op(":"):
            self.advance()
        body = self.nested(self.formula)
        return Quantifier(str(start.value), var, values, body, self.span(start))

    def value_set(self) -> tuple[Literal, ...]:
        open_tok = self.expect_op("{", "'{' starting a set of values")
        values: list[Literal] = []
        while not self.is_op("}"):
            tok = self.tok
            if tok.kind in ("number", "string"):
                values.append(Literal(tok.value, self.span()))  # type: ignore[arg-type]
            elif tok.kind == "name":
                values.append(Literal(tok.text, self.span()))
            else:
                raise self.error("a value (a number, a \"string\" or a word)" if not values else "',' or '}'",
                                 after=self.tokens[self.i - 1])
            self.advance()
            if self.is_op(","):
                self.advance()
            elif not self.is_op("}"):
                raise self.error("',' or '}'", after=self.tokens[self.i - 1])
        if not values:
            raise SplSyntaxError(self.source, open_tok.line, open_tok.column,
                                 "a quantifier needs at least one value: the set is empty", self.text)
        self.advance()
        return tuple(values)

    def disjunction(self) -> Formula:
        start = self.tok
        operands = [self.conjunction()]
        while self.is_keyword("or"):
            self.advance()
            operands.append(self.formula_operand(self.conjunction))
        return operands[0] if len(operands) == 1 else Or(tuple(operands), self.span(start))

    def conjunction(self) -> Formula:
        start = self.tok
        operands = [self.negation()]
        while self.is_keyword("and"):
            self.advance()
            operands.append(self.formula_operand(self.negation))
        return operands[0] if len(operands) == 1 else And(tuple(operands), self.span(start))

    def formula_operand(self, rule):
        """An operand after and/or: a quantifier there extends to the end (its body is maximal)."""
        if self.is_keyword("for", "exists"):
            return self.quantifier()
        return rule()

    def negation(self) -> Formula:
        if self.is_keyword("not"):
            start = self.advance()
            return Not(self.nested(self.formula_operand, self.negation), self.span(start))
        return self.primary()

    def primary(self) -> Formula:
        if self.is_keyword("for", "exists"):
            return self.quantifier()
        if self.is_op("("):
            return self.nested(self.parenthesised)
        return self.relation()

    def parenthesised(self) -> Formula:
        """``(`` starts either a grouped formula or a grouped expression on the left of a relation."""
        start = self.i
        try:
            self.advance()
            inner = self.formula()
            self.expect_op(")", "')'")
            if not (self.is_op("*", "+", "-", *_RELATION_OPS)):
                return inner
            group_error = self.error("'and', 'or' or ')'")  # "(a <= b) <= c": not a formula group
            group_pos = self.i
        except SplSyntaxError as exc:
            group_error, group_pos = exc, self.i
        self.i = start
        try:
            return self.relation()
        except SplSyntaxError as exc:
            if self.i >= group_pos:
                raise
            raise group_error from exc

    def relation(self) -> Relation:
        start = self.tok
        left = self.expression()
        if not self.is_op(*_RELATION_OPS):
            raise self.error(_RELATIONS_TEXT, after=self.tokens[self.i - 1])
        op = str(self.advance().value)
        right = self.expression()
        if self.is_op(*_RELATION_OPS):
            raise SplSyntaxError(self.source, self.tok.line, self.tok.column,
                                 "relations cannot be chained (a <= b <= c); write 'a <= b and b <= c'", self.text)
        return Relation(left, op, right, self.span(start))

    # -- expressions ---------------------------------------------------------------------------------

    def expression(self) -> Expr:
        start = self.tok
        left = self.product()
        while self.is_op("+", "-"):
            op = str(self.advance().value)
            left = BinOp(op, left, self.nested(self.product), self.span(start))
            self._check_depth(left)
        return left

    def product(self) -> Expr:
        start = self.tok
        left = self.atom()
        while self.is_op("*"):
            self.advance()
            left = BinOp("*", left, self.nested(self.atom), self.span(start))
            self._check_depth(left)
        return left

    def _check_depth(self, node: Expr) -> None:
        """A chain ``a + b + ...`` nests to the left: each operator is one level more below the current one."""
        if self.depth + _expr_depth(node) > MAX_DEPTH:
            raise self.too_deep(self.tokens[self.i - 1])

    def atom(self) -> Expr:
        tok = self.tok
        if tok.kind == "number":
            self.advance()
            return Number(float(tok.value), self.span(tok))  # type: ignore[arg-type]
        if tok.kind == "duration":
            self.advance()
            return Duration(float(tok.value), tok.text, self.span(tok))  # type: ignore[arg-type]
        if tok.kind in _TERM_START or self.is_keyword("SELF", "THIS"):
            return self.term()
        if self.is_op("("):
            self.advance()
            inner = self.nested(self.expression)
            self.expect_op(")", "')'")
            return inner
        raise self.error("a benchmark, an alias, a number or a duration",
                         after=self.tokens[self.i - 1] if self.i else None)

    def term(self) -> Term:
        tok = self.advance()
        quoted = tok.kind == "qref"
        ref = SELF if tok.kind == "keyword" else str(tok.value)
        revision = None
        if self.is_op("@"):
            self.advance()
            if self.tok.kind != "revision":
                raise self.error("a revision (a commit, a tag, a branch or HEAD)", after=self.tokens[self.i - 1])
            revision = str(self.advance().value)
        args = None
        if self.is_op("(") and not self.tok.newline_before:
            args = self.arguments()
        return Term(ref, revision, args, self.span(tok), quoted)

    def arguments(self) -> tuple[Arg, ...]:
        self.advance()
        args: list[Arg] = []
        while not self.is_op(")"):
            start = self.tok
            name = None
            if self.tok.kind == "name" and self.peek().kind == "op" and self.peek().value == "=":
                name = self.advance().text
                self.advance()
            args.append(Arg(name, self.argument_value(), self.span(start)))
            if self.is_op(","):
                self.advance()
            elif not self.is_op(")"):
                raise self.error("',' or ')'", after=self.tokens[self.i - 1])
        self.advance()
        return tuple(args)

    def argument_value(self) -> ArgValue:
        tok = self.tok
        if tok.kind in ("number", "string"):
            self.advance()
            return Literal(tok.value, self.span(tok))  # type: ignore[arg-type]
        if tok.kind == "name" and not any(c in tok.text for c in ".#/:"):
            self.advance()
            return VarRef(tok.text, self.span(tok))
        raise self.error("an argument (a number, a \"string\" or a quantifier variable)",
                         after=self.tokens[self.i - 1])


def _expr_depth(node: Expr) -> int:
    """Levels of an expression tree, counted without recursion (the tree may be the deep one being refused)."""
    deepest = 0
    stack: list[tuple[Expr, int]] = [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(current, BinOp):
            stack.append((current.left, level + 1))
            stack.append((current.right, level + 1))
    return deepest


def parse(text: str, source: str = "<input>") -> Program:
    """Parse an SPL program. Raises :class:`SplSyntaxError` (source, line, column, expectation)."""
    return Parser(text, source).program()


def parse_formula(text: str, source: str = "<input>") -> Formula:
    """Parse exactly one assertion without aliases (used by tests and the config's inline formulas)."""
    program = parse(text, source)
    if len(program.statements) != 1 or not isinstance(program.statements[0], Assertion):
        raise SplSyntaxError(source, 1, 1, "expected exactly one assertion", text)
    return program.statements[0].formula
