"""Java source as :class:`~.units.SourceUnits` (tree-sitter): methods ``pkg.Outer$Inner#name``.

The notation is the agent's (``TypeDescription.getName()`` and the method name) without the parameter list:
overloads of one name count as one method, so a change to any of them selects every benchmark that calls any of
them — an over-approximation, which costs measurements but never misses one. Constructors are ``#<init>``. Code
inside a method (lambdas, anonymous and local classes) belongs to it; fields, instance and static initialisers
(the agent cannot count a class initialiser: it runs once, before any method) and everything else outside
methods form the skeleton. Fingerprints are the
sequence of tokens without comments, so formatting and comments never count as a change.
"""

from __future__ import annotations

import functools

import tree_sitter_java
from tree_sitter import Language, Node, Parser

from benchwarden.codelevel.units import Method, SourceUnits, fingerprint

_TYPES = {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
          "annotation_type_declaration"}
_METHODS = {"method_declaration": None, "constructor_declaration": "<init>",
            "compact_constructor_declaration": "<init>"}
_COMMENTS = {"line_comment", "block_comment"}


@functools.lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_java.language()))


def _tokens(node: Node, out: list[str]) -> None:
    if node.type in _COMMENTS:
        return
    if node.child_count == 0:
        out.append(node.text.decode("utf-8", "replace") if node.text is not None else "")
        return
    for child in node.children:
        _tokens(child, out)


class _Reader:
    def __init__(self) -> None:
        self.bodies: dict[str, list[tuple[int, list[str]]]] = {}
        self.skeleton: list[str] = []

    def walk(self, node: Node, owner: str | None, package: str) -> None:
        """Tokens of ``node`` into the skeleton, except methods of types (recorded under ``owner$...#name``)."""
        if node.type in _COMMENTS:
            return
        if node.type in _METHODS and owner is not None:
            name = _METHODS[node.type] or _name(node)
            tokens: list[str] = []
            _tokens(node, tokens)
            self.bodies.setdefault(f"{owner}#{name}", []).append((node.start_point[0] + 1, tokens))
            return
        if node.type in _TYPES:
            simple = _name(node)
            owner = f"{owner}${simple}" if owner else (f"{package}.{simple}" if package else simple)
        elif node.type in ("object_creation_expression", "lambda_expression") and owner is not None:
            owner = None  # anonymous classes and lambdas outside methods: the skeleton's, no method of their own
        if node.child_count == 0:
            self.skeleton.append(node.text.decode("utf-8", "replace") if node.text is not None else "")
            return
        for child in node.children:
            self.walk(child, owner, package)


def _name(node: Node) -> str:
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None and name.text is not None else "?"


def _package(root: Node) -> str:
    for child in root.children:
        if child.type == "package_declaration":
            for part in child.children:
                if part.type in ("scoped_identifier", "identifier") and part.text is not None:
                    return part.text.decode("utf-8", "replace")
    return ""


def java_units(source: bytes) -> SourceUnits:
    """The methods of one Java file, named by the file's own package declaration."""
    root = _parser().parse(source).root_node
    if root.has_error:
        return SourceUnits(unparsed="not valid Java (tree-sitter found a syntax error)")
    reader = _Reader()
    package = _package(root)
    reader.walk(root, None, package)
    methods = {name: Method(min(line for line, _ in parts),
                            fingerprint("\n".join(" ".join(tokens) for _, tokens in parts)))
               for name, parts in reader.bodies.items()}
    return SourceUnits(methods, fingerprint(" ".join(reader.skeleton)), namespace=package)
