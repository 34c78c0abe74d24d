"""Java source extraction with tree-sitter: classes, methods, fields and resolved annotation values.

One :func:`parse_java` call turns one ``.java`` file into a :class:`JavaFile`.
Nothing here knows JMH's precedence rules (that is :mod:`.resolve`); this
module only reports what the source says, faithfully and with locations:

* every class, interface, enum and record, nested ones included, under its
  JMH-style qualified name (``pkg.Outer.Inner``);
* annotation uses by *simple* name (``@Fork`` and
  ``@org.openjdk.jmh.annotations.Fork`` both become ``"Fork"``) with their
  element values evaluated: literals, arrays, enum constants
  (``Mode.AverageTime`` -> :class:`SymbolRef`), and compile-time constants
  declared in the same file (``static final int N = 3``; ``Consts.N``;
  ``2 * N``; string concatenation);
* methods with return type and parameter types (Blackhole detection, state
  classes), fields with their annotations (``@Param``);
* benchmarks that were commented out.  Rather than pattern-matching comment
  text (the thesis's heuristic, which misfires on prose such as JMH's
  HelloWorld sample), a comment that mentions ``@Benchmark`` is parsed *as
  Java* inside a synthetic class; only a real method declaration carrying
  ``@Benchmark`` counts.  A live method directly below a commented-out
  ``// @Benchmark`` line counts too (the benchmark was switched off).

Why tree-sitter rather than regular expressions or the JDT: it is a real
Java grammar (nested generics, annotations with arrays, comments and strings
are handled by the grammar, not by guesswork), it recovers from syntax errors
and keeps parsing the rest of the file, and it runs in-process without a JVM.
Syntax errors become :class:`Diagnostic` entries with line numbers; they never
raise.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Iterator, Mapping, TypeGuard, Union

import tree_sitter_java
from tree_sitter import Language, Node, Parser

#: Class kinds, by tree-sitter node type.
_CLASS_NODES = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}


@dataclass(frozen=True, order=True)
class SourceLocation:
    """A place in a source file: ``path`` relative to the project root (POSIX), ``line`` 1-based."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line > 0 else self.path


#: Location of findings and warnings about the project as a whole.
PROJECT = SourceLocation("(project)", 0)


@dataclass(frozen=True)
class Diagnostic:
    """Something the audit could not read or had to assume; shown to the user as a warning."""

    location: SourceLocation
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class SymbolRef:
    """A name the file does not define as a constant: an enum constant such as ``Mode.AverageTime``,
    or a constant declared elsewhere.  ``simple`` is the last segment (``AverageTime``)."""

    text: str

    @property
    def simple(self) -> str:
        return self.text.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Unresolved:
    """An expression that is not a compile-time constant we can evaluate; ``text`` is its source."""

    text: str


ElementValue = Union[int, float, bool, str, SymbolRef, Unresolved, tuple]


@dataclass(frozen=True)
class AnnotationUse:
    """One annotation as written: simple ``name``, evaluated ``elements`` (``value`` for the single-element form)."""

    name: str
    elements: Mapping[str, ElementValue]
    location: SourceLocation

    def has(self, key: str) -> bool:
        return key in self.elements


@dataclass(frozen=True)
class JavaParameter:
    type_name: str  # simple name, generics and array brackets stripped: "Blackhole", "MyState"
    type_text: str  # as written: "org.openjdk.jmh.infra.Blackhole", "List<String>"
    name: str


@dataclass(frozen=True)
class DeadResult:
    """A value a ``@Benchmark`` method computes and never uses (see :mod:`.deadcode`): ``kind`` "discarded"
    (``text`` is the expression whose result is dropped) or "unused-local" (``text`` is the variable)."""

    kind: str
    text: str
    location: SourceLocation


@dataclass(frozen=True)
class JavaMethod:
    name: str
    return_type: str  # as written; "void" for void methods
    parameters: tuple[JavaParameter, ...]
    annotations: Mapping[str, AnnotationUse]
    is_abstract: bool
    location: SourceLocation  # line of the method's name
    dead_results: tuple[DeadResult, ...] = ()  # only worked out for @Benchmark methods

    @property
    def returns_void(self) -> bool:
        return self.return_type == "void"


@dataclass(frozen=True)
class JavaField:
    name: str
    type_name: str  # simple name
    annotations: Mapping[str, AnnotationUse]
    location: SourceLocation
    type_text: str = ""  # as written, generics stripped: "CountersFactory.CounterType"


@dataclass(frozen=True)
class JavaClass:
    """A type declaration.  ``qualified_name`` is ``pkg.Outer.Inner`` (JMH's spelling in benchmark names)."""

    qualified_name: str
    name: str
    package: str
    kind: str  # class | interface | enum | record | annotation
    is_abstract: bool
    superclass: str | None  # as written, generics stripped: "Base", "com.x.Base", "Outer.Base"
    annotations: Mapping[str, AnnotationUse]
    fields: tuple[JavaField, ...]
    methods: tuple[JavaMethod, ...]
    enum_constants: tuple[str, ...]
    outer: str | None  # qualified name of the enclosing type
    location: SourceLocation


@dataclass(frozen=True)
class CommentedBenchmark:
    """A ``@Benchmark`` method that sits in a comment (or whose ``@Benchmark`` was commented out)."""

    method: str
    location: SourceLocation


@dataclass(frozen=True)
class JavaFile:
    path: str
    package: str
    imports: tuple[str, ...]
    classes: tuple[JavaClass, ...]
    commented_benchmarks: tuple[CommentedBenchmark, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


@functools.lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_java.language()))


def parse_java(path: str, source: bytes) -> JavaFile:
    """Parse one Java file.  Never raises on bad Java: problems become ``diagnostics``."""
    tree = _parser().parse(source)
    return _FileReader(path, source, tree.root_node).read()


# --------------------------------------------------------------------------------------------
# Reading one file


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _strip_generics(type_text: str) -> str:
    """``Map<String, List<X>>[]`` -> ``Map``; ``a.b.C<T>`` -> ``a.b.C``."""
    depth = 0
    out = []
    for ch in type_text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch not in "[] \t\r\n":
            out.append(ch)
    text = "".join(out)
    return text.removesuffix("...")


def _simple_type(type_text: str) -> str:
    return _strip_generics(type_text).rsplit(".", 1)[-1]


def _modifier_tokens(node: Node) -> set[str]:
    mods = node.child_by_field_name("modifiers") or _first_child(node, "modifiers")
    if mods is None:
        return set()
    return {_text(c) for c in mods.children if c.type not in ("annotation", "marker_annotation")}


def _first_child(node: Node, type_: str) -> Node | None:
    for c in node.children:
        if c.type == type_:
            return c
    return None


def _annotation_nodes(node: Node) -> list[Node]:
    mods = _first_child(node, "modifiers")
    if mods is None:
        return []
    return [c for c in mods.children if c.type in ("annotation", "marker_annotation")]


class _FileReader:
    def __init__(self, path: str, source: bytes, root: Node):
        self.path = path
        self.source = source
        self.root = root
        self.package = ""
        self.imports: list[str] = []
        self.classes: list[JavaClass] = []
        self.diagnostics: list[Diagnostic] = []
        self.constants = _ConstantTable(self)

    def loc(self, node: Node) -> SourceLocation:
        return SourceLocation(self.path, _line(node))

    def read(self) -> JavaFile:
        for child in self.root.children:
            if child.type == "package_declaration":
                for c in child.children:
                    if c.type in ("scoped_identifier", "identifier"):
                        self.package = _text(c)
            elif child.type == "import_declaration":
                self.imports.append(_text(child).removeprefix("import").strip().rstrip(";").strip())
        self._report_syntax_errors()
        self.constants.collect(self.root, outer=None)
        for child in self.root.children:
            if child.type in _CLASS_NODES:
                self._read_class(child, outer=None)
            elif child.type == "ERROR":
                self._recover_class(child, outer=None)
        commented = _CommentScanner(self).scan()
        return JavaFile(self.path, self.package, tuple(self.imports), tuple(self.classes),
                        tuple(commented), tuple(self.diagnostics))

    def _report_syntax_errors(self) -> None:
        if not self.root.has_error:
            return
        reported = 0
        for node in _walk(self.root):
            if node.type == "ERROR" or node.is_missing:
                what = f"missing {node.type!r}" if node.is_missing else "unexpected text"
                snippet = _text(node).strip().splitlines()[0][:40] if _text(node).strip() else ""
                detail = f" near `{snippet}`" if snippet else ""
                self.diagnostics.append(Diagnostic(self.loc(node), f"Java syntax error ({what}{detail}); the rest "
                                                   "of the file was still read, but benchmarks in the damaged part "
                                                   "may be missing or incomplete"))
                reported += 1
                if reported >= 3:
                    break

    def qualified(self, name: str, outer: str | None) -> str:
        if outer:
            return f"{outer}.{name}"
        return f"{self.package}.{name}" if self.package else name

    def _read_class(self, node: Node, outer: str | None, depth: int = 0) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        if depth >= MAX_NESTING:
            self.diagnostics.append(Diagnostic(self.loc(name_node), f"{_text(name_node)} and the types inside it are "
                                               f"nested more than {MAX_NESTING} levels deep; they were not read"))
            return
        kind = _CLASS_NODES[node.type]
        superclass = None
        sup = node.child_by_field_name("superclass")
        if sup is not None:
            type_nodes = [c for c in sup.children if c.is_named]
            if type_nodes:
                superclass = _strip_generics(_text(type_nodes[0]))
        body = node.child_by_field_name("body")
        members: list[Node] = []
        enum_constants: list[str] = []
        if body is not None:
            members = list(body.children)
            if kind == "enum":
                for c in body.children:
                    constant = c.child_by_field_name("name") if c.type == "enum_constant" else None
                    if constant is not None:
                        enum_constants.append(_text(constant))
                    if c.type == "enum_body_declarations":
                        members.extend(c.children)
        self._add_class(node, name_node, kind, superclass, members, enum_constants, outer, depth)

    def _add_class(self, node: Node, name_node: Node, kind: str, superclass: str | None, members: list[Node],
                   enum_constants: list[str], outer: str | None, depth: int = 0) -> None:
        qname = self.qualified(_text(name_node), outer)
        fields: list[JavaField] = []
        methods: list[JavaMethod] = []
        method_nodes: list[Node] = []
        nested: list[Node] = []
        for member in members:
            if member.type == "field_declaration":
                fields.extend(self._read_fields(member, qname))
            elif member.type == "method_declaration":
                methods.append(self._read_method(member, qname))
                method_nodes.append(member)
            elif member.type in _CLASS_NODES:
                nested.append(member)
            elif member.type == "ERROR":
                self._recover_class(member, outer=qname, depth=depth + 1)
        by_name: dict[str, list[Node]] = {}
        for m, n in zip(methods, method_nodes):
            by_name.setdefault(m.name, []).append(n)
        methods = [self._with_dead_results(m, n, fields, by_name) for m, n in zip(methods, method_nodes)]
        mods = _modifier_tokens(node)
        self.classes.append(JavaClass(
            qualified_name=qname, name=_text(name_node), package=self.package, kind=kind,
            is_abstract="abstract" in mods or kind == "interface", superclass=superclass,
            annotations=self._annotations(node, qname), fields=tuple(fields), methods=tuple(methods),
            enum_constants=tuple(enum_constants), outer=outer, location=self.loc(name_node)))
        for n in nested:
            self._read_class(n, outer=qname, depth=depth + 1)

    def _recover_class(self, node: Node, outer: str | None, depth: int = 0) -> None:
        """A class declaration the parser could not close (truncated or damaged file): the ``class`` keyword,
        its name, and the complete members that follow are still read, with a diagnostic."""
        children = list(node.children)
        for i, c in enumerate(children[:-1]):
            if c.type == "class" and children[i + 1].type == "identifier":
                name_node = children[i + 1]
                members = [m for m in children[i + 2:] if m.is_named]
                self.diagnostics.append(Diagnostic(self.loc(name_node), f"class {_text(name_node)} is damaged; "
                                                   "its complete members were read, damaged ones are skipped"))
                if depth >= MAX_NESTING:
                    return
                self._add_class(node, name_node, "class", None, members, [], outer, depth)
                return

    def _with_dead_results(self, method: JavaMethod, node: Node, fields: list[JavaField],
                           methods: dict[str, list[Node]]) -> JavaMethod:
        if "Benchmark" not in method.annotations:
            return method
        from benchwarden.audit.deadcode import dead_values  # it reads nodes with this module's helpers

        found = tuple(DeadResult(d.kind, d.text, SourceLocation(self.path, d.line))
                      for d in dead_values(node, {f.name: f.type_name for f in fields}, methods))
        return replace(method, dead_results=found) if found else method

    def _read_fields(self, node: Node, owner: str) -> list[JavaField]:
        type_node = node.child_by_field_name("type")
        type_name = _simple_type(_text(type_node)) if type_node is not None else "?"
        type_text = _strip_generics(_text(type_node)) if type_node is not None else "?"
        anns = self._annotations(node, owner)
        out = []
        for decl in node.children_by_field_name("declarator"):
            name_node = decl.child_by_field_name("name")
            if name_node is not None:
                out.append(JavaField(_text(name_node), type_name, anns, self.loc(name_node), type_text))
        return out

    def _read_method(self, node: Node, owner: str) -> JavaMethod:
        name_node = node.child_by_field_name("name")
        type_node = node.child_by_field_name("type")
        params: list[JavaParameter] = []
        plist = node.child_by_field_name("parameters")
        if plist is not None:
            for p in plist.children:
                if p.type in ("formal_parameter", "spread_parameter"):
                    pt = p.child_by_field_name("type") or next(
                        (c for c in p.children if c.is_named and c.type not in ("modifiers", "variable_declarator")), None)
                    pn = p.child_by_field_name("name")
                    if pn is None:
                        decl = _first_child(p, "variable_declarator")
                        pn = decl.child_by_field_name("name") if decl is not None else None
                    type_text = _text(pt) if pt is not None else "?"
                    params.append(JavaParameter(_simple_type(type_text), type_text, _text(pn) if pn is not None else "?"))
        return JavaMethod(
            name=_text(name_node) if name_node is not None else "?",
            return_type=_text(type_node) if type_node is not None else "?",
            parameters=tuple(params),
            annotations=self._annotations(node, owner),
            is_abstract="abstract" in _modifier_tokens(node) or node.child_by_field_name("body") is None,
            location=self.loc(name_node if name_node is not None else node))

    def _annotations(self, node: Node, scope: str) -> dict[str, AnnotationUse]:
        out: dict[str, AnnotationUse] = {}
        for ann in _annotation_nodes(node):
            name_node = ann.child_by_field_name("name")
            if name_node is None:
                continue
            simple = _text(name_node).rsplit(".", 1)[-1]
            elements: dict[str, ElementValue] = {}
            args = ann.child_by_field_name("arguments")
            if args is not None:
                for arg in args.children:
                    if not arg.is_named or arg.type in ("line_comment", "block_comment"):
                        continue
                    if arg.type == "element_value_pair":
                        key = arg.child_by_field_name("key")
                        value = arg.child_by_field_name("value")
                        if key is not None and value is not None:
                            elements[_text(key)] = self.constants.evaluate(value, scope)
                    else:
                        elements["value"] = self.constants.evaluate(arg, scope)
            out[simple] = AnnotationUse(simple, elements, self.loc(ann))
        return out


def _walk(node: Node) -> Iterator[Node]:
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            if cursor.node is not None:
                yield cursor.node
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


# --------------------------------------------------------------------------------------------
# Compile-time constants


#: deepest nesting read: classes inside classes, and constant expressions (see _ConstantTable.evaluate).  Java
#: code nests a handful of levels; the limit keeps the recursive readers far from Python's recursion limit.
MAX_NESTING = 100
_TOO_DEEP = f" (nested more than {MAX_NESTING} levels deep: not evaluated)"


def _clip_source(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


class _ConstantTable:
    """``final`` fields with initialisers, per declaring type, evaluated lazily (with a cycle guard).

    Java annotation values must be compile-time constants, so a name used in
    an annotation is either such a field or an enum constant.  Lookup order
    for a bare name follows Java scoping as far as one file can tell: the
    annotated type, then its enclosing types, then (if unique) any type of
    the file.  Names not found stay :class:`SymbolRef` for the caller to
    interpret (enum constant, or a constant from another file).
    """

    def __init__(self, reader: _FileReader):
        self.reader = reader
        self.fields: dict[str, dict[str, Node]] = {}  # qualified type -> field -> initializer
        self.simple_types: dict[str, list[str]] = {}  # simple type name -> qualified names
        self.owners: dict[str, list[str]] = {}  # field name -> qualified types declaring it
        self._evaluating: set[tuple[str, str]] = set()
        # each constant is evaluated once: `N20 = N19 + N19` chains were exponential (2^20 evaluations)
        self._values: dict[tuple[str, str], ElementValue] = {}
        self._depth = 0  # of the evaluation in progress (see evaluate)

    def collect(self, node: Node, outer: str | None, depth: int = 0) -> None:
        if depth >= MAX_NESTING:
            return  # reported by _FileReader._read_class, which stops at the same depth
        for child in node.children:
            if child.type in _CLASS_NODES:
                name_node = child.child_by_field_name("name")
                if name_node is None:
                    continue
                qname = self.reader.qualified(_text(name_node), outer)
                self.simple_types.setdefault(_text(name_node), []).append(qname)
                table = self.fields.setdefault(qname, {})
                body = child.child_by_field_name("body")
                if body is None:
                    continue
                is_interface = child.type in ("interface_declaration", "annotation_type_declaration")
                members = list(body.children)
                for c in body.children:
                    if c.type == "enum_body_declarations":
                        members.extend(c.children)
                for member in members:
                    if member.type in ("field_declaration", "constant_declaration"):
                        if is_interface or "final" in _modifier_tokens(member):
                            for decl in member.children_by_field_name("declarator"):
                                n, v = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                                if n is not None and v is not None:
                                    table[_text(n)] = v
                                    self.owners.setdefault(_text(n), []).append(qname)
                self.collect(body, qname, depth + 1)
                for member in members:
                    if member.type == "enum_body_declarations":
                        self.collect(member, qname, depth + 1)

    def _scopes(self, scope: str | None) -> Iterator[str]:
        while scope:
            if scope in self.fields:
                yield scope
            if "." not in scope or scope == self.reader.package:
                return
            scope = scope.rsplit(".", 1)[0]

    def lookup(self, name: str, scope: str | None) -> ElementValue | None:
        key = self._find(name, scope)
        return None if key is None else self._field_value(*key)

    def lookup_qualified(self, type_text: str, name: str) -> ElementValue | None:
        key = self._find_qualified(type_text, name)
        return None if key is None else self._field_value(*key)

    def _find(self, name: str, scope: str | None) -> tuple[str, str] | None:
        """The constant a bare name in ``scope`` refers to: ``(declaring type, name)``, or None."""
        for s in self._scopes(scope):
            if name in self.fields[s]:
                return s, name
        owners = self.owners.get(name, [])
        return (owners[0], name) if len(set(owners)) == 1 else None

    def _find_qualified(self, type_text: str, name: str) -> tuple[str, str] | None:
        simple = type_text.rsplit(".", 1)[-1]
        for q in self.simple_types.get(simple, []):
            if (q.endswith(type_text) or type_text.endswith(simple)) and name in self.fields.get(q, {}):
                return q, name
        return None

    def _references(self, node: Node, scope: str) -> Iterator[tuple[str, str]]:
        """Constants an initializer may refer to (a superset is harmless: it only orders the evaluation)."""
        for n in _walk(node):
            if n.type == "identifier":
                key = self._find(_text(n), scope)
            elif n.type in ("field_access", "scoped_identifier"):
                owner, _, name = _text(n).rpartition(".")
                key = self._find_qualified(owner, name)
            else:
                continue
            if key is not None:
                yield key

    def _field_value(self, owner: str, name: str) -> ElementValue:
        """The value of a constant, each evaluated once, dependencies first, without recursion between constants.

        A constant's initializer is evaluated only after every constant it refers to (an explicit depth-first
        walk), so evaluating it finds them memoised: ``N20 = N19 + N19`` chains cost one evaluation per constant
        instead of 2^20, and a chain of 1,000 constants each referring to the previous one needs no deeper
        stack than one.  A reference back into a constant being evaluated is :class:`Unresolved` (circular).
        """
        root = (owner, name)
        if root in self._values:
            return self._values[root]
        if root in self._evaluating:
            return Unresolved(f"{owner}.{name} (circular)")
        stack = [root]
        pending = {root}
        while stack:
            key = stack[-1]
            deps = [d for d in dict.fromkeys(self._references(self.fields[key[0]][key[1]], key[0]))
                    if d not in self._values and d not in pending and d not in self._evaluating]
            if deps:
                stack.extend(deps)
                pending.update(deps)
                continue
            stack.pop()
            pending.discard(key)
            if key in self._values:
                continue
            self._evaluating.add(key)
            saved, self._depth = self._depth, 0  # each initializer gets the whole nesting budget
            try:
                self._values[key] = self.evaluate(self.fields[key[0]][key[1]], key[0])
            finally:
                self._depth = saved
                self._evaluating.discard(key)
        return self._values[root]

    def evaluate(self, node: Node, scope: str | None) -> ElementValue:
        """Evaluate an annotation element / constant initializer; never raises.

        Expressions nest at most :data:`MAX_NESTING` levels (parentheses, operators, constants referring
        to constants, counted together); deeper ones are :class:`Unresolved`, so no source, however
        generated or hostile, can exhaust Python's stack (3,000 nested parentheses or a 5,000-term
        ``+`` chain used to be a RecursionError).
        """
        if self._depth >= MAX_NESTING:
            return Unresolved(_clip_source(_text(node)) + _TOO_DEEP)
        self._depth += 1
        try:
            return self._evaluate(node, scope)
        finally:
            self._depth -= 1

    def _evaluate(self, node: Node, scope: str | None) -> ElementValue:
        t = node.type
        if t in ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"):
            return _int_literal(_text(node))
        if t in ("decimal_floating_point_literal", "hex_floating_point_literal"):
            try:
                return float(_text(node).rstrip("fFdD").replace("_", ""))
            except ValueError:
                return Unresolved(_clip_source(_text(node)))
        if t in ("true", "false"):
            return t == "true"
        if t == "string_literal":
            return _string_literal(node)
        if t == "character_literal":
            return _text(node)[1:-1]
        if t == "element_value_array_initializer" or t == "array_initializer":
            return tuple(self.evaluate(c, scope) for c in node.children
                         if c.is_named and c.type not in ("line_comment", "block_comment"))
        if t == "parenthesized_expression":
            inner = [c for c in node.children if c.is_named]
            return self.evaluate(inner[0], scope) if inner else Unresolved(_clip_source(_text(node)))
        if t == "unary_expression":
            return self._unary(node, scope)
        if t == "binary_expression":
            return self._binary(node, scope)
        if t == "identifier":
            found = self.lookup(_text(node), scope)
            return found if found is not None else SymbolRef(_text(node))
        if t in ("field_access", "scoped_identifier"):
            text = _text(node)
            owner, _, name = text.rpartition(".")
            found = self.lookup_qualified(owner, name)
            return found if found is not None else SymbolRef(text)
        if t == "cast_expression":
            return self._cast(node, scope)
        return Unresolved(_clip_source(_text(node)))

    def _cast(self, node: Node, scope: str | None) -> ElementValue:
        type_node, value_node = node.child_by_field_name("type"), node.child_by_field_name("value")
        if type_node is None or value_node is None:
            return Unresolved(_clip_source(_text(node)))
        value = self.evaluate(value_node, scope)
        target = _text(type_node)
        if _number(value) and target in ("int", "long", "short", "byte"):
            return int(value)  # Java narrows toward zero, as int() does
        if _number(value) and target in ("double", "float"):
            return float(value)
        return value

    def _unary(self, node: Node, scope: str | None) -> ElementValue:
        op = node.child_by_field_name("operator")
        operand = node.child_by_field_name("operand")
        if op is None or operand is None:
            return Unresolved(_clip_source(_text(node)))
        value = self.evaluate(operand, scope)
        if _too_deep(value):
            return Unresolved(_clip_source(_text(node)) + _TOO_DEEP)
        if _text(op) == "-" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
        if _text(op) == "+" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        return Unresolved(_clip_source(_text(node)))

    def _binary(self, node: Node, scope: str | None) -> ElementValue:
        left_node, right_node = node.child_by_field_name("left"), node.child_by_field_name("right")
        op_node = node.child_by_field_name("operator")
        if left_node is None or right_node is None or op_node is None:
            return Unresolved(_clip_source(_text(node)))
        left, right, op = self.evaluate(left_node, scope), self.evaluate(right_node, scope), _text(op_node)
        if _too_deep(left) or _too_deep(right):
            return Unresolved(_clip_source(_text(node)) + _TOO_DEEP)
        if op == "+" and (isinstance(left, str) or isinstance(right, str)) and _plain(left) and _plain(right):
            return f"{_java_str(left)}{_java_str(right)}"
        if not (_number(left) and _number(right)):
            return Unresolved(_clip_source(_text(node)))
        try:
            if op == "+":
                return left + right
            if op == "-":
                return left - right
            if op == "*":
                return left * right
            if op == "/":
                if isinstance(left, int) and isinstance(right, int):
                    q = abs(left) // abs(right)  # Java truncates toward zero
                    return q if (left >= 0) == (right >= 0) else -q
                return left / right
            if op == "%" and isinstance(left, int) and isinstance(right, int):
                return left - right * int(left / right)
        except (ZeroDivisionError, OverflowError):
            pass
        return Unresolved(_clip_source(_text(node)))


def _too_deep(v: object) -> bool:
    return isinstance(v, Unresolved) and v.text.endswith(_TOO_DEEP)


def _number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _plain(v: object) -> bool:
    return isinstance(v, (int, float, bool, str))


def _java_str(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _int_literal(text: str) -> ElementValue:
    t = text.replace("_", "").rstrip("lL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0"):
            return int(t, 8)
        return int(t)
    except ValueError:
        return Unresolved(text)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "s": " ", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def _string_literal(node: Node) -> str:
    parts = []
    for c in node.children:
        if c.type == "string_fragment" or c.type == "multiline_string_fragment":
            parts.append(_text(c))
        elif c.type == "escape_sequence":
            esc = _text(c)[1:]
            if esc.startswith("u"):
                try:
                    parts.append(chr(int(esc.lstrip("u")[:4], 16)))
                    continue
                except ValueError:
                    pass
            parts.append(_ESCAPES.get(esc, esc))
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# Commented-out benchmarks


class _CommentScanner:
    """Find ``@Benchmark`` methods inside comments by parsing the comment text as class members."""

    def __init__(self, reader: _FileReader):
        self.reader = reader

    def scan(self) -> list[CommentedBenchmark]:
        found: list[CommentedBenchmark] = []
        for group in self._comment_groups():
            found.extend(self._benchmarks_in(group))
        return found

    def _comment_groups(self) -> list[list[Node]]:
        """Comments, with runs of ``//`` comments on consecutive lines merged into one group."""
        groups: list[list[Node]] = []
        for node in _walk(self.reader.root):
            if node.type not in ("line_comment", "block_comment"):
                continue
            prev = groups[-1][-1] if groups else None
            if (prev is not None and node.type == "line_comment" and prev.type == "line_comment"
                    and node.start_point[0] == prev.start_point[0] + 1):
                groups[-1].append(node)
            else:
                groups.append([node])
        return [g for g in groups if any(b"@Benchmark" in (n.text or b"") for n in g)]

    def _benchmarks_in(self, group: list[Node]) -> list[CommentedBenchmark]:
        body = "\n".join(_uncomment(n) for n in group)
        first_line = _line(group[0])
        tree = _parser().parse(f"class __Commented {{\n{body}\n}}\n".encode())
        out = []
        for node in _walk(tree.root_node):
            name_node = node.child_by_field_name("name") if node.type == "method_declaration" else None
            if name_node is not None and _has_benchmark(node):
                # wrapped line 2 is the comment's first line
                out.append(CommentedBenchmark(_text(name_node),
                                              SourceLocation(self.reader.path, first_line + _line(name_node) - 2)))
        if out:
            return out
        # Only annotations in the comment (``// @Benchmark`` above a live method)?  Probe by
        # appending a method: if it then parses cleanly and carries @Benchmark, it was so.
        probe = _parser().parse(f"class __Commented {{\n{body}\nvoid __probe() {{}}\n}}\n".encode())
        if probe.root_node.has_error:
            return []
        probed = [n for n in _walk(probe.root_node) if n.type == "method_declaration"]
        if len(probed) != 1 or not _has_benchmark(probed[0]):
            return []
        live = self._next_method(group[-1])
        if live is None or _has_benchmark(live):
            return []
        name_node = live.child_by_field_name("name")
        return [CommentedBenchmark(_text(name_node), self.reader.loc(name_node))] if name_node is not None else []

    def _next_method(self, comment: Node) -> Node | None:
        """The method declaration a comment sits on, if any.

        tree-sitter attaches a comment placed between annotations/modifiers and
        the method to the method (as a child of the declaration or its
        modifiers); otherwise the declaration is the comment's next sibling.
        """
        node: Node | None = comment
        while node is not None and node.type not in ("method_declaration", "class_body", "program"):
            node = node.parent
        if node is not None and node.type == "method_declaration":
            return node
        sib = comment.next_named_sibling
        while sib is not None and sib.type in ("line_comment", "block_comment"):
            sib = sib.next_named_sibling
        return sib if sib is not None and sib.type == "method_declaration" else None


def _has_benchmark(method: Node) -> bool:
    for a in _annotation_nodes(method):
        name = a.child_by_field_name("name")
        if name is not None and _text(name).rsplit(".", 1)[-1] == "Benchmark":
            return True
    return False


def _uncomment(node: Node) -> str:
    text = _text(node)
    if node.type == "line_comment":
        return text[2:]
    inner = text[2:-2] if text.endswith("*/") else text[2:]
    lines = []
    for ln in inner.split("\n"):
        stripped = ln.lstrip()
        if stripped.startswith("*"):
            ln = stripped[1:]
        lines.append(ln)
    return "\n".join(lines)
