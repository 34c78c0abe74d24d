"""Values a benchmark computes and never uses: what the JIT may remove (dead-code elimination).

JMH's own sample ``JMHSample_08_DeadCode`` shows the pitfall: ``Math.log(x);`` as a statement, its result
discarded, is compiled away and the benchmark measures nothing.  The earlier rule ("returns ``void`` and
takes no ``Blackhole``") flagged 38 of OpenJDK JMH's 110 own benchmarks and 23 of JCTools' 64, essentially
all intentional: empty baselines, ``Blackhole.consumeCPU``, queue operations and counters whose side effects
the JIT must keep.  A void method is not the problem; a *dead value* is.

This module finds dead values precisely, trading recall for precision (a finding must be worth reading):

* **discarded**: an expression statement whose value is the result of a call known to be free of side
  effects, e.g. ``Math.log(x);``, ``s.length();``, ``Integer.toBinaryString(i);``;
* **unused local**: a local variable initialised by such a side-effect-free expression and never read,
  e.g. ``double r = Math.sqrt(x);`` with no later use of ``r``.

"Known to be free of side effects" is a closed list: the static methods of ``Math``/``StrictMath``, the
pure static and instance methods of ``String`` and the boxed primitive types, and a few of ``Objects`` and
``Arrays``; receivers are typed from the method's parameters, locals and the class's own fields.  A method
of the same class called without a receiver (or on ``this``) is side-effect free when its body is: it only
assigns its own locals and parameters and calls side-effect-free methods (``compute(x);`` in JMH's sample,
whose loop only updates its parameter).  Calls to anything else (other classes, collections, queues,
constructors) may have side effects and are never flagged.  Arithmetic, casts, conditionals and reads of
variables, fields and array elements are pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from tree_sitter import Node

from benchwarden.audit.javasource import _text as text
from benchwarden.audit.javasource import _walk

_BOXED = ("Integer", "Long", "Double", "Float", "Short", "Byte", "Character", "Boolean")
_BOXED_STATIC = frozenset({
    "valueOf", "parseInt", "parseLong", "parseDouble", "parseFloat", "parseShort", "parseByte", "parseBoolean",
    "toString", "toHexString", "toOctalString", "toBinaryString", "toUnsignedString", "bitCount", "highestOneBit",
    "lowestOneBit", "numberOfLeadingZeros", "numberOfTrailingZeros", "reverse", "reverseBytes", "rotateLeft",
    "rotateRight", "signum", "compare", "compareUnsigned", "hashCode", "max", "min", "sum", "divideUnsigned",
    "remainderUnsigned", "isNaN", "isInfinite", "isFinite", "doubleToLongBits", "doubleToRawLongBits",
    "longBitsToDouble", "floatToIntBits", "floatToRawIntBits", "intBitsToFloat", "isDigit", "isLetter",
    "isWhitespace", "isUpperCase", "isLowerCase", "toUpperCase", "toLowerCase", "getNumericValue", "digit",
})
_BOXED_INSTANCE = frozenset({"intValue", "longValue", "doubleValue", "floatValue", "shortValue", "byteValue",
                             "charValue", "booleanValue", "hashCode", "equals", "compareTo", "toString", "isNaN",
                             "isInfinite"})
#: String methods whose result is a String (they can be chained: ``s.trim().length()``)
_STRING_TO_STRING = frozenset({"substring", "trim", "strip", "stripLeading", "stripTrailing", "toUpperCase",
                               "toLowerCase", "concat", "replace", "replaceAll", "replaceFirst", "repeat",
                               "toString", "formatted", "indent"})
_STRING_INSTANCE = _STRING_TO_STRING | frozenset({
    "length", "charAt", "codePointAt", "indexOf", "lastIndexOf", "equals", "equalsIgnoreCase", "hashCode",
    "compareTo", "compareToIgnoreCase", "isEmpty", "isBlank", "contains", "startsWith", "endsWith", "matches",
    "split", "toCharArray", "getBytes", "chars", "codePoints", "lines", "regionMatches", "contentEquals",
})
#: receiver (as written, also with "java.lang."/"java.util." in front) -> pure static methods (None: all of them)
_PURE_STATIC: dict[str, frozenset[str] | None] = {
    "Math": None, "StrictMath": None,
    **{b: _BOXED_STATIC for b in _BOXED},
    "String": frozenset({"valueOf", "format", "join", "copyValueOf"}),
    "Objects": frozenset({"hash", "hashCode", "equals", "deepEquals", "toString", "isNull", "nonNull", "compare"}),
    "Arrays": frozenset({"hashCode", "deepHashCode", "equals", "deepEquals", "toString", "deepToString",
                         "binarySearch", "mismatch", "compare"}),
}
_PURE_INSTANCE: dict[str, frozenset[str]] = {"String": _STRING_INSTANCE, **{b: _BOXED_INSTANCE for b in _BOXED}}
_PURE_NODES = frozenset({
    "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal",
    "decimal_floating_point_literal", "hex_floating_point_literal", "true", "false", "null_literal",
    "character_literal", "string_literal", "identifier", "this", "field_access",
})


@dataclass(frozen=True)
class DeadValue:
    """``kind``: "discarded" (``text`` is the expression) or "unused-local" (``text`` is the variable);
    ``line`` is 1-based."""

    kind: str
    text: str
    line: int


def dead_values(method: Node, fields: Mapping[str, str],
                methods: Mapping[str, list[Node]] | None = None) -> list[DeadValue]:
    """The dead values in the body of ``method`` (a ``method_declaration`` node); ``fields`` maps the class's
    field names to their simple types, ``methods`` the class's method names to their declarations."""
    body = method.child_by_field_name("body")
    if body is None:
        return []
    checker = _Purity(fields, methods or {})
    scope, declarations = _local_types(method, fields)
    checker.types = scope
    found = []
    for node in _walk(body):
        if node.type == "expression_statement":
            inner = next((c for c in node.children if c.is_named), None)
            if inner is not None and inner.type == "method_invocation" and checker.pure(inner):
                found.append(DeadValue("discarded", _clip(text(inner)), node.start_point[0] + 1))
    if declarations:
        reads: dict[str, int] = {}
        for node in _walk(body):
            if node.type == "identifier":
                reads[text(node)] = reads.get(text(node), 0) + 1
        for decl, name in declarations:
            value = decl.child_by_field_name("value")
            # the declarator's own name is the one occurrence: nothing reads the variable
            if value is not None and reads.get(text(name), 0) == 1 and checker.pure(value):
                found.append(DeadValue("unused-local", text(name), name.start_point[0] + 1))
    return sorted(found, key=lambda d: d.line)


def _local_types(method: Node, fields: Mapping[str, str]) -> tuple[dict[str, str], list[tuple[Node, Node]]]:
    """Names visible in ``method`` with their simple types (fields, then parameters and locals over them), and
    the local declarators with their name nodes; ``scope.keys() - fields`` are not all the locals (a parameter
    may shadow a field): use :func:`_locals` for those."""
    scope = dict(fields)
    params = method.child_by_field_name("parameters")
    for p in params.children if params is not None else ():
        if p.type in ("formal_parameter", "spread_parameter"):
            type_node, name = p.child_by_field_name("type"), p.child_by_field_name("name")
            if name is not None:
                scope[text(name)] = _simple(text(type_node)) if type_node is not None else "?"
    declarations = []
    body = method.child_by_field_name("body")
    for node in _walk(body) if body is not None else ():
        if node.type == "local_variable_declaration":
            type_node = node.child_by_field_name("type")
            type_name = _simple(text(type_node)) if type_node is not None else "?"
            for decl in node.children_by_field_name("declarator"):
                name = decl.child_by_field_name("name")
                if name is not None:
                    scope[text(name)] = type_name
                    declarations.append((decl, name))
    return scope, declarations


def _locals(method: Node) -> set[str]:
    """Names of the parameters and local variables of ``method`` (what it may assign without a side effect)."""
    names = set()
    for node in _walk(method):
        if node.type in ("formal_parameter", "spread_parameter", "variable_declarator", "catch_formal_parameter",
                         "enhanced_for_statement"):
            name = node.child_by_field_name("name")
            if name is not None:
                names.add(text(name))
    return names


#: statements and expressions that are side effects (or may hide one) wherever they occur in a method
_IMPURE_NODES = frozenset({"object_creation_expression", "lambda_expression", "method_reference", "class_body",
                           "throw_statement", "synchronized_statement", "explicit_constructor_invocation",
                           "assert_statement"})


class _Purity:
    def __init__(self, fields: Mapping[str, str], methods: Mapping[str, list[Node]]):
        self.fields = fields
        self.methods = methods
        self.types: Mapping[str, str] = fields
        self._method_pure: dict[int, bool] = {}

    def _local_method_pure(self, name: str) -> bool:
        """Whether every method of the class named ``name`` (all overloads) is free of side effects."""
        declarations = self.methods.get(name)
        return bool(declarations) and all(self._pure_method(m) for m in declarations or ())

    def _pure_method(self, method: Node) -> bool:
        """A method of the class whose call yields a value without side effects: it returns something (a call
        to a void method has no value to lose, e.g. JMH's CompilerControl sample measuring empty calls), is
        not opaque to the JIT (:func:`_opaque`), and its body only assigns its own locals and calls
        side-effect-free methods."""
        key = method.id
        if key in self._method_pure:
            return self._method_pure[key]
        self._method_pure[key] = False  # while in progress (recursion): not known to be pure
        body = method.child_by_field_name("body")
        type_node = method.child_by_field_name("type")
        result = False
        if body is not None and type_node is not None and text(type_node) != "void" and not _opaque(method):
            scope, _ = _local_types(method, self.fields)
            locals_ = _locals(method)
            saved, self.types = self.types, scope
            try:
                result = self._body_pure(body, locals_)
            finally:
                self.types = saved
        self._method_pure[key] = result
        return result

    def _body_pure(self, body: Node, locals_: set[str]) -> bool:
        for n in _walk(body):
            t = n.type
            if t in _IMPURE_NODES:
                return False
            if t == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is None or left.type != "identifier" or text(left) not in locals_:
                    return False  # a field, an array element, or something we cannot see
            elif t == "update_expression":
                operand = next((c for c in n.children if c.is_named), None)
                if operand is None or operand.type != "identifier" or text(operand) not in locals_:
                    return False
            elif t == "method_invocation" and not self._pure_call(n):
                return False
        return True

    def pure(self, node: Node) -> bool:
        """Whether evaluating ``node`` has no side effect we can see (closed list, see the module docstring)."""
        stack = [node]
        while stack:
            n = stack.pop()
            t = n.type
            if t in _PURE_NODES:
                continue
            if t in ("parenthesized_expression", "binary_expression", "ternary_expression", "cast_expression",
                     "array_access", "instanceof_expression"):
                stack.extend(c for c in n.children if c.is_named and not c.type.endswith("_type")
                             and c.type not in ("type_identifier", "scoped_type_identifier"))
                continue
            if t == "unary_expression":  # + - ! ~ (++/-- are update_expression)
                stack.extend(c for c in n.children if c.is_named)
                continue
            if t == "method_invocation" and self._pure_call(n):
                args = n.child_by_field_name("arguments")
                if args is not None:
                    stack.extend(c for c in args.children if c.is_named)
                obj = n.child_by_field_name("object")
                if obj is not None and obj.type not in ("identifier", "field_access", "scoped_identifier"):
                    stack.append(obj)
                continue
            return False
        return True

    def _pure_call(self, call: Node) -> bool:
        name_node = call.child_by_field_name("name")
        obj = call.child_by_field_name("object")
        if name_node is None:
            return False
        method = text(name_node)
        if obj is None or obj.type == "this":  # the class's own method: pure if its body is
            return self._local_method_pure(method)
        receiver = self._receiver_type(obj)
        if receiver is None:
            return False
        kind, type_name = receiver
        if kind == "static":
            allowed = _PURE_STATIC.get(type_name, frozenset())
            return allowed is None or method in allowed
        return method in _PURE_INSTANCE.get(type_name, frozenset())

    def _receiver_type(self, obj: Node) -> tuple[str, str] | None:
        """``("static", "Math")`` for a class name, ``("instance", "String")`` for a typed value, else None."""
        if obj.type == "string_literal":
            return "instance", "String"
        if obj.type == "parenthesized_expression":
            inner = next((c for c in obj.children if c.is_named), None)
            return self._receiver_type(inner) if inner is not None else None
        if obj.type == "method_invocation":
            name = obj.child_by_field_name("name")
            if name is not None and self._pure_call(obj) and text(name) in _STRING_TO_STRING | {"valueOf"}:
                receiver = obj.child_by_field_name("object")
                receiver_type = self._receiver_type(receiver) if receiver is not None else None
                if receiver_type in (("instance", "String"), ("static", "String")):
                    return "instance", "String"
            return None
        written = text(obj)
        if obj.type == "field_access" and written.startswith("this."):
            written = written[len("this."):]
        for prefix in ("java.lang.", "java.util."):
            written = written.removeprefix(prefix)
        if written in self.types:
            declared = self.types[written]
            return ("instance", declared) if declared in _PURE_INSTANCE else None
        if written in _PURE_STATIC:
            return "static", written
        return None


def _opaque(method: Node) -> bool:
    """``@CompilerControl(DONT_INLINE)`` or ``(EXCLUDE)``: the JIT does not see into the method, so its call
    stays (``INLINE`` makes it, if anything, more transparent)."""
    modifiers = next((c for c in method.children if c.type == "modifiers"), None)
    for ann in modifiers.children if modifiers is not None else ():
        name = ann.child_by_field_name("name") if ann.type in ("annotation", "marker_annotation") else None
        if name is not None and text(name).rsplit(".", 1)[-1] == "CompilerControl":
            mode = text(ann)
            if "DONT_INLINE" in mode or "EXCLUDE" in mode or "COMPILE_QUIET" in mode:
                return True
    return False


def _simple(type_text: str) -> str:
    depth, out = 0, []
    for ch in type_text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch not in "[] \t\r\n":
            out.append(ch)
    return "".join(out).rsplit(".", 1)[-1]


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
