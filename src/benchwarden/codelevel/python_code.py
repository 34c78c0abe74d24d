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


FILE_PREFIX = "file:"
"""How a source file is named among traced methods: ``file:<path in the repository>``, as the trace hook writes the
files a process imported (``asv_worker.TraceHook.imported_files``, relative to the git work tree's top)."""


def imported_file_units(file_name: str, units: SourceUnits) -> SourceUnits:
    """``units`` of a traced module with its skeleton made a unit of its own, ``file_name``: module-level code
    (imports, constants, class bodies) runs when the module is imported, so a change there affects exactly the
    processes that imported the file, which the trace records."""
    if units.unparsed:
        return units
    return SourceUnits({**units.methods, file_name: Method(1, units.skeleton)}, skeleton="",
                       namespace=units.namespace)


def whole_file_units(file_name: str, source: bytes) -> SourceUnits:
    """A file outside the traced modules (benchmark code, tests, scripts) as one unit, ``file_name``: its
    fingerprint is the syntax tree of the whole file, so only a change of code, not of comments or layout, is a
    change, and it affects the processes that imported the file."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        return SourceUnits(unparsed=f"not valid Python: {exc}")
    return SourceUnits({file_name: Method(1, fingerprint(ast.dump(tree)))})
