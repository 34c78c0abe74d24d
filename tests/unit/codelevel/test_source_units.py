"""Methods and skeletons of Python and Java files: names in the tracers' notation, fingerprints blind to layout."""

from __future__ import annotations

import pytest

from benchwarden.codelevel.java_code import java_units
from benchwarden.codelevel.python_code import python_units


def _fingerprints(units):
    return {k: v.fingerprint for k, v in units.methods.items()}


PY = b'''"""Module doc."""
import re

LIMIT = 3


def f(a):
    """Doc."""
    return a + 1


async def g():
    def inner():
        return 1
    return inner()


class C:
    X = 1

    def m(self):
        return self.X

    class Inner:
        def n(self):
            return 2
'''


def test_python_names_follow_the_trace_hook():
    units = python_units("pkg.mod", PY)
    assert set(units.methods) == {"pkg.mod:f", "pkg.mod:g", "pkg.mod:C.m"}
    assert units.methods["pkg.mod:f"].line == 7 and units.unparsed is None


@pytest.mark.parametrize("edit", [
    (b"return a + 1", b"return a+1  # same code"),
    (b'"""Doc."""', b'"""Another doc."""'),
    (b'"""Module doc."""', b"# a comment"),
    (b"\n\nasync def g", b"\n\n\n\nasync def g"),
])
def test_python_layout_comments_and_docstrings_change_nothing(edit):
    before, after = python_units("m", PY), python_units("m", PY.replace(*edit))
    assert _fingerprints(before) == _fingerprints(after) and before.skeleton == after.skeleton


@pytest.mark.parametrize("old, new, method", [
    (b"return a + 1", b"return a + 2", "m:f"),
    (b"return 1\n    return inner()", b"return 2\n    return inner()", "m:g"),  # nested code is its function's
    (b"return self.X", b"return -self.X", "m:C.m"),
])
def test_python_a_changed_body_changes_only_that_method(old, new, method):
    before, after = python_units("m", PY), python_units("m", PY.replace(old, new, 1))
    changed = {k for k in before.methods if before.methods[k].fingerprint != after.methods[k].fingerprint}
    assert changed == {method} and before.skeleton == after.skeleton


@pytest.mark.parametrize("edit", [(b"LIMIT = 3", b"LIMIT = 4"), (b"X = 1", b"X = 2"), (b"import re", b"import os"),
                                  (b"return 2", b"return 3")])  # a nested class is not traced: skeleton
def test_python_code_outside_methods_is_the_skeleton(edit):
    before, after = python_units("m", PY), python_units("m", PY.replace(*edit))
    assert before.skeleton != after.skeleton and _fingerprints(before) == _fingerprints(after)


def test_python_that_does_not_parse_says_so():
    assert "not valid Python" in (python_units("m", b"def f(:\n").unparsed or "")


JAVA = b'''package a.b;

import java.util.List;

/** Doc. */
public class C {
    private int x = 1; // field
    static { System.out.println("init"); }

    public C() { x = 2; }

    public int f(int a) { return a + 1; /* note */ }
    public int f(String s) { return s.length(); }

    private int helper() { Runnable r = () -> System.out.println(); return x; }

    static class In { void g() { } }

    enum E { A, B; int h() { return 1; } }
}

interface I { default void d() { } void abstractOne(); }
'''


def test_java_names_follow_the_agent():
    units = java_units(JAVA)
    assert set(units.methods) == {"a.b.C#<init>", "a.b.C#f", "a.b.C#helper", "a.b.C$In#g",
                                  "a.b.C$E#h", "a.b.I#d", "a.b.I#abstractOne"}
    assert units.namespace == "a.b" and units.methods["a.b.C#f"].line == 12


@pytest.mark.parametrize("edit", [(b"/* note */", b""), (b"return a + 1;", b"return a\n   +   1 ;"),
                                  (b"/** Doc. */", b"// other")])
def test_java_layout_and_comments_change_nothing(edit):
    before, after = java_units(JAVA), java_units(JAVA.replace(*edit))
    assert _fingerprints(before) == _fingerprints(after) and before.skeleton == after.skeleton


@pytest.mark.parametrize("old, new, method", [
    (b"return s.length();", b"return s.length() + 1;", "a.b.C#f"),  # overloads share one name
    (b"System.out.println(); return x;", b"System.out.println(1); return x;", "a.b.C#helper"),  # lambda: its method
    (b"x = 2;", b"x = 3;", "a.b.C#<init>"),
    (b"void g() { }", b"void g() { g(); }", "a.b.C$In#g"),
])
def test_java_a_changed_body_changes_only_that_method(old, new, method):
    before, after = java_units(JAVA), java_units(JAVA.replace(old, new, 1))
    changed = {k for k in before.methods if before.methods[k].fingerprint != after.methods[k].fingerprint}
    assert changed == {method} and before.skeleton == after.skeleton


@pytest.mark.parametrize("edit", [(b"private int x = 1;", b"private int x = 3;"),
                                  (b'println("init")', b'println("start")'),  # a static initialiser
                                  (b"import java.util.List;", b"import java.awt.List;")])
def test_java_fields_and_imports_are_the_skeleton(edit):
    before, after = java_units(JAVA), java_units(JAVA.replace(*edit))
    assert before.skeleton != after.skeleton and _fingerprints(before) == _fingerprints(after)


def test_java_that_does_not_parse_says_so():
    assert "not valid Java" in (java_units(b"class { void").unparsed or "")
