"""Hostile or generated Java: the audit finishes in linear time with warnings, never a RecursionError.

Found on main: ``N20 = N19 + N19`` chains took 2^20 evaluations (13.5 s; 40 levels never finished), 3,000
nested parentheses, a 5,000-term ``+`` chain and 3,000 nested classes were RecursionErrors, and 6,000
benchmarks in one class re-read every method of the class per benchmark (quadratic).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from benchwarden.audit import javasource, resolve
from benchwarden.audit.javasource import MAX_NESTING, Unresolved, parse_java
from benchwarden.audit.project import audit_project
from benchwarden.cli import main

HEADER = "package p;\nimport org.openjdk.jmh.annotations.*;\n"


def _chain(k: int) -> str:
    consts = "\n".join(["  static final int N0 = 1;"] + [f"  static final int N{i} = N{i - 1} + N{i - 1};"
                                                          for i in range(1, k + 1)])
    return f"{HEADER}public class B {{\n{consts}\n  @Benchmark @Fork(N{k}) public int b() {{ return 1; }}\n}}\n"


def test_chained_constants_are_evaluated_once_each(monkeypatch):
    calls = []
    original = javasource._ConstantTable._evaluate

    def counting(self, node, scope):
        calls.append(node.type)
        return original(self, node, scope)

    monkeypatch.setattr(javasource._ConstantTable, "_evaluate", counting)
    jf = parse_java("B.java", _chain(40).encode())
    (method,) = jf.classes[0].methods
    assert method.annotations["Fork"].elements["value"] == 2 ** 40
    # a few evaluations per constant (its binary expression and two names); naively 2^41
    assert len(calls) < 10 * 40, len(calls)


def test_a_constant_used_in_many_annotations_is_evaluated_once(monkeypatch):
    body = "\n".join(f"  @Benchmark @Fork(F) @Warmup(iterations = W) public int b{i}() {{ return 1; }}"
                     for i in range(200))
    source = f"{HEADER}public class B {{\n  static final int F = 2 * 3 - 4;\n  static final int W = F + 1;\n{body}\n}}\n"
    calls = []
    original = javasource._ConstantTable._field_value

    def counting(self, owner, name):
        calls.append(name)
        return original(self, owner, name)

    monkeypatch.setattr(javasource._ConstantTable, "_field_value", counting)
    jf = parse_java("B.java", source.encode())
    assert {m.annotations["Fork"].elements["value"] for m in jf.classes[0].methods} == {2}
    assert {m.annotations["Warmup"].elements["iterations"] for m in jf.classes[0].methods} == {3}
    assert len(calls) == 400 + 1  # one lookup per use, plus W's use of F: each evaluated only the first time


@pytest.mark.parametrize("expression", ["(" * 3000 + "1" + ")" * 3000, "+".join(["1"] * 5000),
                                        "- " * 3000 + "1", "(int) " * 3000 + "1"])
def test_deep_expressions_are_unresolved_not_a_crash(expression):
    jf = parse_java("B.java", f"{HEADER}public class B {{\n  @Benchmark @Fork({expression}) public int b() "
                              "{ return 1; }\n}\n".encode())
    value = jf.classes[0].methods[0].annotations["Fork"].elements["value"]
    assert isinstance(value, Unresolved) and "nested more than" in value.text and len(value.text) < 300


def test_expressions_up_to_the_limit_are_evaluated():
    depth = MAX_NESTING - 2
    jf = parse_java("B.java", f"{HEADER}public class B {{\n  @Benchmark @Fork({'(' * depth}3{')' * depth}) "
                              "public int b() { return 1; }\n}\n".encode())
    assert jf.classes[0].methods[0].annotations["Fork"].elements["value"] == 3


def _nested(depth: int) -> str:
    return HEADER + "".join(f"class C{i} {{\n" for i in range(depth)) + \
        "  @Benchmark public int b() { return 1; }\n" + "}\n" * depth


def test_deeply_nested_classes_are_read_to_the_limit_and_reported_beyond():
    jf = parse_java("B.java", _nested(3000).encode())
    assert len(jf.classes) == MAX_NESTING
    (diag,) = [d for d in jf.diagnostics if "nested more than" in d.message]
    assert diag.location.line == MAX_NESTING + 3 and "C100 and the types inside it" in diag.message
    ok = parse_java("B.java", _nested(MAX_NESTING).encode())
    assert len(ok.classes) == MAX_NESTING and not ok.diagnostics


def test_parameters_of_a_class_are_worked_out_once_not_per_benchmark(tmp_path, monkeypatch):
    n = 300
    body = "\n".join(f"  @Benchmark public void b{i}() {{ }}" for i in range(n))
    (tmp_path / "B.java").write_text(f"{HEADER}@State(Scope.Benchmark)\npublic class B {{\n"
                                     f"  @Param({{\"1\", \"2\"}}) int size;\n  @Setup public void up(S s) {{ }}\n{body}\n}}\n"
                                     "@State(Scope.Benchmark) class S { @Param({\"a\", \"b\", \"c\"}) String kind; }\n")
    worked_out = []
    original = resolve._ClassFacts._work_out

    def counting(host, resolver):
        worked_out.append(host.qualified_name)
        return original(host, resolver)

    monkeypatch.setattr(resolve._ClassFacts, "_work_out", staticmethod(counting))
    report = audit_project(tmp_path)
    assert len(report.benchmarks) == n and {b.config.combinations for b in report.benchmarks} == {6}
    assert sorted(worked_out) == ["p.B", "p.S"]


def test_a_long_chain_of_setup_states_is_followed_without_recursion(tmp_path):
    n = 3000
    states = "\n".join(f"@State(Scope.Benchmark) class S{i} {{ @Param({{\"1\"}}) int p{i}; "
                       f"@Setup public void up(S{i + 1} next) {{ }} }}" for i in range(n))
    (tmp_path / "B.java").write_text(f"{HEADER}{states}\n@State(Scope.Benchmark) class S{n} {{ }}\n"
                                     "public class B { @Benchmark public int b(S0 s) { return 1; } }\n")
    (bench,) = audit_project(tmp_path).benchmarks
    assert len(bench.config.params) == n


@pytest.mark.parametrize("source", [_chain(60), _nested(3000),
                                    f"{HEADER}public class B {{\n  @Benchmark @Fork({'+'.join(['1'] * 5000)}) "
                                    "public int b() { return 1; }\n}\n"], ids=["chain", "nesting", "plus"])
def test_cli_audit_of_hostile_sources_exits_0_with_warnings(tmp_path, source):
    (tmp_path / "B.java").write_text(source)
    out, err = io.StringIO(), io.StringIO()
    status = main(["audit", str(tmp_path), "--json"], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    assert "Traceback" not in err.getvalue() and out.getvalue().startswith("{")


def test_the_benchmark_script_exists():
    assert (Path(__file__).resolve().parents[3] / "benchmarks" / "audit_scaling.py").is_file()


def test_a_long_linear_chain_of_constants_is_evaluated_without_recursion():
    consts = "\n".join(["  static final int N0 = 1;"] + [f"  static final int N{i} = N{i - 1} + 1;" for i in range(1, 3000)])
    jf = parse_java("B.java", f"{HEADER}public class B {{\n{consts}\n  @Benchmark @Fork(N2999) public int b() "
                              "{ return 1; }\n}\n".encode())
    assert jf.classes[0].methods[0].annotations["Fork"].elements["value"] == 3000


def test_circular_constants_stay_unresolved():
    jf = parse_java("B.java", f"{HEADER}public class B {{\n  static final int A = B + 1;\n  static final int B = A + 1;\n"
                              "  @Benchmark @Fork(A) public int b() { return 1; }\n}\n".encode())
    assert isinstance(jf.classes[0].methods[0].annotations["Fork"].elements["value"], Unresolved)
