"""Java extraction with tree-sitter: annotation values, constants, names, comments, damaged code."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.audit.javasource import SourceLocation, SymbolRef, Unresolved, parse_java

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


def parse(source: str, path: str = "X.java"):
    return parse_java(path, source.encode())


def cls(jf, name):
    return next(c for c in jf.classes if c.qualified_name.endswith(name))


def test_annotation_forms_are_evaluated():
    jf = parse_java("ForkForms.java", (DATA / "annotations/src/main/java/fixture/ForkForms.java").read_bytes())
    c = cls(jf, "ForkForms")
    assert c.annotations["Fork"].elements == {"value": 3}
    assert c.annotations["Warmup"].elements == {"time": 2}
    m = next(m for m in c.methods if m.name == "methodWins")
    assert m.annotations["Fork"].elements == {"value": 2, "warmups": 1, "jvmArgsAppend": ("-Xmx1g", "-Dx=1")}
    assert m.annotations["Warmup"].elements == {"iterations": 4, "time": 200, "batchSize": 2,
                                                "timeUnit": SymbolRef("TimeUnit.MILLISECONDS")}
    assert m.annotations["BenchmarkMode"].elements["value"] == (SymbolRef("Mode.AverageTime"),
                                                                SymbolRef("Mode.SampleTime"))
    assert m.annotations["Threads"].elements == {"value": 4}
    fq = next(m for m in c.methods if m.name == "fullyQualified")
    assert fq.annotations["Fork"].elements == {"value": 7}, "fully-qualified names map to the simple name"
    assert fq.annotations["BenchmarkMode"].elements["value"].simple == "SingleShotTime"
    assert fq.parameters[0].type_name == "Blackhole" and fq.returns_void


def test_constants_resolve_within_the_file_and_stay_symbolic_otherwise():
    jf = parse_java("Constants.java", (DATA / "annotations/src/main/java/fixture/Constants.java").read_bytes())
    c = cls(jf, "fixture.Constants")
    resolved = next(m for m in c.methods if m.name == "resolved")
    assert resolved.annotations["Fork"].elements["value"] == 3
    assert resolved.annotations["Warmup"].elements["iterations"] == 7  # N * 2 + 1
    assert resolved.annotations["Measurement"].elements == {"iterations": 9, "time": 2}  # Limits.ITERATIONS, (N - 1)
    version = next(f for f in c.fields if f.name == "version")
    assert version.annotations["Param"].elements["value"] == ("v1", "v2")  # PREFIX + "1"
    unresolved = next(m for m in c.methods if m.name == "unresolved")
    assert unresolved.annotations["Fork"].elements["value"] == SymbolRef("ExternalSettings.FORKS")


@pytest.mark.parametrize("expr, expected", [
    ("1_000", 1000), ("0x10", 16), ("010", 8), ("0b101", 5), ("10L", 10), ("-3", -3), ("(2 + 3) * 4", 20),
    ("7 / 2", 3), ("-7 / 2", -3), ("7 % 3", 1), ("\"a\" + 1", "a1"), ("\"tab\\tx\"", "tab\tx"), ("true", True),
    ("(int) 2.9", 2), ("(int) -2.9", -2), ("(double) 3", 3.0),
])
def test_constant_expressions(expr, expected):
    jf = parse(f"class A {{ @Fork({expr}) void m() {{}} }}")
    assert jf.classes[0].methods[0].annotations["Fork"].elements["value"] == expected


def test_non_constant_expression_is_unresolved_not_a_crash():
    jf = parse("class A { @Fork(x > 2 ? 1 : 2) void m() {} }")
    assert isinstance(jf.classes[0].methods[0].annotations["Fork"].elements["value"], Unresolved)


def test_circular_constants_do_not_loop():
    jf = parse("class A { static final int X = Y; static final int Y = X; @Fork(X) void m() {} }")
    assert isinstance(jf.classes[0].methods[0].annotations["Fork"].elements["value"], (Unresolved, SymbolRef))


def test_nested_classes_generics_and_locations():
    jf = parse_java("Outer.java", (DATA / "annotations/src/main/java/fixture/Outer.java").read_bytes())
    names = [c.qualified_name for c in jf.classes]
    assert names == ["fixture.Outer", "fixture.Outer.Inner", "fixture.Outer.Inner.Deeper", "fixture.Outer.NoFork"]
    inner = cls(jf, "Outer.Inner")
    assert inner.outer == "fixture.Outer"
    generic = inner.methods[0]
    assert generic.return_type == "Map<String, List<Integer>>" and not generic.returns_void
    assert generic.location == SourceLocation("Outer.java", 15)


def test_superclass_generics_are_stripped_and_abstract_detected():
    jf = parse_java("Inheritance.java", (DATA / "annotations/src/main/java/fixture/Inheritance.java").read_bytes())
    base = cls(jf, "Inheritance.Base")
    assert base.is_abstract and base.superclass is None
    assert cls(jf, "Inheritance.Plain").superclass == "Base"
    assert not cls(jf, "Inheritance.Plain").is_abstract


def test_commented_out_benchmarks_are_found_by_parsing_comments():
    jf = parse_java("Commented.java", (DATA / "annotations/src/main/java/fixture/Commented.java").read_bytes())
    found = {(c.method, c.location.line) for c in jf.commented_benchmarks}
    # line comments, a block comment, and a live method whose @Benchmark was commented out;
    # the javadoc and the line comment that only *mention* @Benchmark do not count
    assert found == {("oldLineCommented", 18), ("oldBlockCommented", 24), ("switchedOff", 30)}


def test_syntax_errors_become_diagnostics_and_the_rest_is_read():
    jf = parse_java("Broken.java", (DATA / "malformed/src/fixture/Broken.java").read_bytes())
    assert [m.name for m in cls(jf, "Broken").methods][:2] == ["stillFound", "missingSemicolon"]
    assert jf.diagnostics and all("syntax error" in d.message for d in jf.diagnostics)
    assert jf.diagnostics[0].location.line == 16


def test_truncated_class_is_recovered_with_a_warning():
    jf = parse_java("Truncated.java", (DATA / "malformed/src/fixture/Truncated.java").read_bytes())
    c = cls(jf, "Truncated")
    assert [m.name for m in c.methods] == ["complete"]
    assert c.annotations["Fork"].elements == {"value": 2}
    assert any("damaged" in d.message for d in jf.diagnostics)


@pytest.mark.parametrize("name", ["Empty.java", "Latin1.java", "Odd.java"])
def test_unusual_files_parse_without_crashing(name):
    jf = parse_java(name, (DATA / "malformed/src/fixture" / name).read_bytes())
    assert isinstance(jf.classes, tuple)


def test_records_enums_interfaces():
    jf = parse_java("Odd.java", (DATA / "malformed/src/fixture/Odd.java").read_bytes())
    kinds = {c.name: c.kind for c in jf.classes}
    assert kinds == {"Odd": "class", "Point": "record", "Op": "enum", "WithBenchmark": "interface", "Holder": "class"}
    assert cls(jf, "Odd.Op").enum_constants == ("ADD",)
