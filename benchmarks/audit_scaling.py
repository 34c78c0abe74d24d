"""How `benchwarden audit` scales: with chained constants, with the number of benchmarks, with nesting.

Synthetic projects, generated in a temporary directory:

1. **Chained constants**: ``static final int N0 = 1; N1 = N0 + N0; ... Nk = N(k-1) + N(k-1);`` and
   ``@Fork(Nk)``.  Evaluated naively this is 2^k evaluations; memoised, k.
2. **Benchmarks in one class**: n ``@Benchmark`` methods and a ``@Param`` field in one ``@State`` class
   (n = 1,500, 3,000, 6,000), and the same n spread over n/10 files.  Linear means the time per benchmark stays
   flat as n grows.
3. **Hostile nesting** (must finish, with a warning): 3,000 nested parentheses, a 5,000-term ``+`` chain,
   3,000 nested classes.

Reference, measured in the same run: tree-sitter alone parsing the same sources into syntax trees (the audit
cannot be faster than reading them).  Reported: CPU seconds of ``audit_project`` (extraction, resolution, cost, findings) and of
rendering the terminal tables, and the ratio of the audit to the parse.
Usage: ``.venv/bin/python benchmarks/audit_scaling.py [--sizes 1500,3000,6000] [--chain 16,20,40]``.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import tree_sitter_java
from rich.console import Console
from tree_sitter import Language, Parser

from benchwarden.audit.project import audit_project
from benchwarden.audit.render import build_tables, to_rich

HEADER = "package p;\nimport org.openjdk.jmh.annotations.*;\n"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "src" / "p" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def chained(root: Path, k: int) -> Path:
    consts = "\n".join(["  static final int N0 = 1;"] + [f"  static final int N{i} = N{i - 1} + N{i - 1};"
                                                          for i in range(1, k + 1)])
    return _write(root, {"B.java": f"{HEADER}public class B {{\n{consts}\n"
                                   f"  @Benchmark @Fork(N{k}) public int b() {{ return 1; }}\n}}\n"})


def one_class(root: Path, n: int) -> Path:
    body = "\n".join(f"  @Benchmark public void b{i}() {{ }}" for i in range(n))
    return _write(root, {"B.java": f"{HEADER}@State(Scope.Benchmark)\npublic class B {{\n"
                                   f"  @Param({{\"1\", \"2\"}}) int size;\n  @Setup public void up() {{ }}\n{body}\n}}\n"})


def many_files(root: Path, n: int, per_file: int = 10) -> Path:
    files = {}
    for c in range(n // per_file):
        body = "\n".join(f"  @Benchmark public int b{i}() {{ return {i}; }}" for i in range(per_file))
        files[f"B{c}.java"] = (f"{HEADER}@State(Scope.Benchmark)\npublic class B{c} {{\n"
                               f"  @Param({{\"1\", \"2\"}}) int size;\n{body}\n}}\n")
    return _write(root, files)


HOSTILE = {
    "3,000 nested parentheses": lambda root: _write(root, {"B.java": f"{HEADER}public class B {{\n  @Benchmark @Fork("
                                                         + "(" * 3000 + "1" + ")" * 3000
                                                         + ") public int b() { return 1; }\n}\n"}),
    "5,000-term + chain": lambda root: _write(root, {"B.java": f"{HEADER}public class B {{\n  @Benchmark @Fork("
                                                   + "+".join(["1"] * 5000) + ") public int b() { return 1; }\n}\n"}),
    "3,000 nested classes": lambda root: _write(root, {"B.java": HEADER + "".join(f"class C{i} {{\n" for i in range(3000))
                                                     + "  @Benchmark public int b() { return 1; }\n" + "}\n" * 3000}),
}


def _cpu(fn) -> tuple[float, object]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def measure(root: Path) -> tuple[float, float, float, int]:
    """CPU seconds: tree-sitter parse of every file (reference), audit, terminal rendering; and #benchmarks."""
    sources = [p.read_bytes() for p in sorted(root.rglob("*.java"))]
    parser = Parser(Language(tree_sitter_java.language()))
    parse_s, _ = _cpu(lambda: [parser.parse(data) for data in sources])
    audit_s, report = _cpu(lambda: audit_project(root))
    console = Console(file=io.StringIO(), width=200)
    render_s, _ = _cpu(lambda: [console.print(to_rich(t)) for t in build_tables(report)])
    return parse_s, audit_s, render_s, len(report.benchmarks)  # type: ignore[attr-defined]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1500,3000,6000")
    ap.add_argument("--chain", default="16,20,40")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bw-audit-scaling-") as tmp:
        base = Path(tmp)
        print("chained constants (CPU s): depth, parse (reference), audit")
        for k in (int(x) for x in args.chain.split(",")):
            parse_s, audit_s, _, _ = measure(chained(base / f"chain{k}", k))
            print(f"  {k:3d}  {parse_s:7.3f}  {audit_s:8.3f}")
        print("benchmarks (CPU s): layout, n, parse (reference), audit, audit/parse, audit µs per benchmark, "
              "rendering, rendering µs per benchmark")
        for layout, build in (("one class", one_class), ("10 per file", many_files)):
            for n in (int(x) for x in args.sizes.split(",")):
                parse_s, audit_s, render_s, found = measure(build(base / f"{layout[:3]}{n}", n))
                assert found == n, (layout, n, found)
                print(f"  {layout:11s} {n:6d}  {parse_s:7.3f}  {audit_s:7.3f}  {audit_s / parse_s:5.1f}  "
                      f"{audit_s / n * 1e6:7.0f}  {render_s:7.3f}  {render_s / n * 1e6:7.0f}")
        print("hostile nesting (CPU s): finishes, with a warning")
        for i, (label, build) in enumerate(HOSTILE.items()):
            root = build(base / f"hostile{i}")
            try:
                audit_s, report = _cpu(lambda: audit_project(root))  # noqa: B023 - called at once
            except RecursionError as exc:  # what older versions did
                print(f"  {label:26s} failed: {type(exc).__name__}")
                continue
            warned = any("nested more than" in d.message for d in report.diagnostics)  # type: ignore[attr-defined]
            print(f"  {label:26s} {audit_s:6.3f}  warning: {'yes' if warned else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
