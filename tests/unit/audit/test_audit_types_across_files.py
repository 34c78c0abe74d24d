"""Types resolved across files as Java does (JCTools: an enum @Param nested in another file counted as one
combination; state classes nested in a superclass "not in the project" for the subclasses inheriting the
benchmark)."""

from __future__ import annotations

from pathlib import Path

from benchwarden.audit.project import audit_project

JMH = "import org.openjdk.jmh.annotations.*;\n"


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "src" / "p" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"package p;\n{text}")
    return root


def _benchmarks(root: Path) -> dict[str, tuple[int, list[str]]]:
    report = audit_project(root, jmh_version="1.37")
    assert not report.diagnostics, [str(d) for d in report.diagnostics]
    return {b.config.name.removeprefix("p."): (b.config.combinations, [p.name for p in b.config.params])
            for b in report.benchmarks}


def test_enum_param_nested_in_a_class_of_another_file(tmp_path):
    root = _project(tmp_path, {
        "Factory.java": "public class Factory { public enum Kind { A, B, C, D, E } }\n",
        "Bench.java": f"{JMH}@State(Scope.Benchmark) public class Bench {{ @Param Factory.Kind kind;\n"
                      "  @Benchmark public int b() { return 1; } }\n"})
    assert _benchmarks(root) == {"Bench.b": (5, ["kind"])}


def test_enum_param_imported_from_its_outer_class(tmp_path):
    root = _project(tmp_path, {
        "Factory.java": "public class Factory { public enum Kind { A, B, C } }\n",
        "Bench.java": f"import p.Factory.Kind;\n{JMH}@State(Scope.Benchmark) public class Bench {{ @Param Kind kind;\n"
                      "  @Benchmark public int b() { return 1; } }\n"})
    assert _benchmarks(root) == {"Bench.b": (3, ["kind"])}


def test_enum_declared_in_a_file_of_another_name(tmp_path):
    root = _project(tmp_path, {
        "Helpers.java": "class Helpers { }\nenum Color { RED, GREEN }\n",
        "Bench.java": f"{JMH}@State(Scope.Benchmark) public class Bench {{ @Param Color color;\n"
                      "  @Benchmark public int b() { return 1; } }\n"})
    assert _benchmarks(root) == {"Bench.b": (2, ["color"])}


def test_inherited_benchmark_takes_state_classes_nested_in_its_declaring_class(tmp_path):
    root = _project(tmp_path, {
        "Base.java": f"{JMH}@State(Scope.Group) public class Base {{\n"
                     "  @State(Scope.Thread) public static class Counters { @Param({\"1\", \"2\"}) int n; }\n"
                     "  @Benchmark public void offer(Counters c) { } }\n",
        "Sub.java": f"{JMH}public class Sub extends Base {{ }}\n"})
    assert _benchmarks(root) == {"Base.offer": (2, ["n"]), "Sub.offer": (2, ["n"])}


def test_a_subclass_names_a_state_class_nested_in_its_superclass(tmp_path):
    root = _project(tmp_path, {
        "Base.java": f"{JMH}public abstract class Base {{\n"
                     "  @State(Scope.Thread) public static class Counters { @Param({\"1\", \"2\", \"3\"}) int n; } }\n",
        "Sub.java": f"{JMH}public class Sub extends Base {{ @Benchmark public void m(Counters c) {{ }} }}\n"})
    assert _benchmarks(root) == {"Sub.m": (3, ["n"])}


def test_a_file_without_jmh_is_parsed_only_when_a_name_needs_it(tmp_path):
    root = _project(tmp_path, {
        "Unrelated.java": "class Unrelated { }\n",
        "Factory.java": "public class Factory { public enum Kind { A, B } }\n",
        "Bench.java": f"{JMH}@State(Scope.Benchmark) public class Bench {{ @Param Factory.Kind kind;\n"
                      "  @Benchmark public int b() { return 1; } }\n"})
    assert audit_project(root).files_parsed == 2  # Bench and Factory, not Unrelated
