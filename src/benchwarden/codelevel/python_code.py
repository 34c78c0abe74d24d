"""Python source as :class:`~.units.SourceUnits`: functions ``module:function``, methods ``module:Class.method``.

The notation is the trace hook's (``asv_worker``): module-level functions and the functions defined directly in a
module-level class. Code nested deeper (a function inside a function, a class inside a class) belongs to the
function or class around it. A method's fingerprint is :func:`ast.dump` of its definition (decorators, signature
and body; docstrings dropped), which ignores comments, blank lines and formatting.
"""

from __future__ import annotations

import ast
import copy

from benchwarden.codelevel.units import Method, SourceUnits, fingerprint

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


def _method(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Method:
    stripped = copy.copy(node)
    stripped.body = _without_docstring(node.body)
    return Method(node.lineno, fingerprint(ast.dump(stripped)))


def python_units(module: str, source: bytes) -> SourceUnits:
    """The functions and methods of one module (``module`` is its dotted import name)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        return SourceUnits(unparsed=f"not valid Python: {exc}")
    methods: dict[str, Method] = {}
    skeleton: list[ast.stmt] = []
    for node in _without_docstring(tree.body):
        if isinstance(node, _FUNCTIONS):
            methods[f"{module}:{node.name}"] = _method(node)
        elif isinstance(node, ast.ClassDef):
            kept = copy.copy(node)
            kept.body = []
            for member in _without_docstring(node.body):
                if isinstance(member, _FUNCTIONS):
                    methods[f"{module}:{node.name}.{member.name}"] = _method(member)
                else:
                    kept.body.append(member)
            skeleton.append(kept)
        else:
            skeleton.append(node)
    return SourceUnits(methods, fingerprint(ast.dump(ast.Module(body=skeleton, type_ignores=[]))))
