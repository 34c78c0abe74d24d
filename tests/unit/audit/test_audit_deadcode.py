"""Dead values: flagged only where a side-effect-free computation's result is dropped (precision first).

The old rule ("void and no Blackhole") flagged 38 of OpenJDK JMH's 110 benchmarks and 23 of JCTools' 64,
essentially all intentional; docs/audit.md ("On real suites") has the counts before and after.
"""

from __future__ import annotations

import pytest

from benchwarden.audit.javasource import parse_java

CLASS = """package p;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;
@State(Scope.Thread)
public class B {{
  double x = 2; String s = "abc"; Integer boxed = 3; int[] arr = new int[4]; java.util.List<Integer> list;
  java.util.Queue<Integer> q;
  private int compute(int d) {{ for (int c = 0; c < 10; c++) {{ d = d * d / 42; }} return d; }}
  private int touches(int d) {{ arr[0] = d; return d; }}
  private int counts() {{ x++; return 1; }}
  private int allocates() {{ return new Object().hashCode(); }}
  private void empty() {{ }}
  @CompilerControl(CompilerControl.Mode.DONT_INLINE) private int opaque(int d) {{ return d; }}
  @CompilerControl(CompilerControl.Mode.INLINE) private int inlined(int d) {{ return d + 1; }}
  private int recursive(int d) {{ return d <= 0 ? 0 : recursive(d - 1); }}
  @Benchmark public {ret} m(Blackhole bh) {{
    {body}
  }}
}}
"""


def dead(body: str, ret: str = "void") -> list[tuple[str, str]]:
    jf = parse_java("B.java", CLASS.format(body=body, ret=ret).encode())
    (method,) = [m for m in jf.classes[0].methods if m.name == "m"]
    assert all(d.location.line == 17 for d in method.dead_results)  # the line of the body
    return [(d.kind, d.text) for d in method.dead_results]


@pytest.mark.parametrize("body, expected", [
    ("Math.log(x);", [("discarded", "Math.log(x)")]),
    ("java.lang.Math.sqrt(x * 2 + 1);", [("discarded", "java.lang.Math.sqrt(x * 2 + 1)")]),
    ("compute(3);", [("discarded", "compute(3)")]),  # JMHSample_08: the class's own side-effect-free method
    ("this.compute((int) x);", [("discarded", "this.compute((int) x)")]),
    ("inlined(1);", [("discarded", "inlined(1)")]),
    ("s.trim().toUpperCase().length();", [("discarded", "s.trim().toUpperCase().length()")]),
    ('"literal".hashCode();', [("discarded", '"literal".hashCode()')]),
    ("boxed.intValue();", [("discarded", "boxed.intValue()")]),
    ("Integer.toBinaryString(arr[1]);", [("discarded", "Integer.toBinaryString(arr[1])")]),
    ("double r = Math.log(x) + arr[0];", [("unused-local", "r")]),
    ("int r = x > 1 ? compute(1) : 2;", [("unused-local", "r")]),
    ("Math.log(x); Math.exp(x);", [("discarded", "Math.log(x)"), ("discarded", "Math.exp(x)")]),
])
def test_dead_values(body, expected):
    assert dead(body) == expected


@pytest.mark.parametrize("body", [
    "",  # an empty baseline: nothing to eliminate
    "x++;", "arr[0] = 1;", "boxed = 4;",  # side effects on state
    "list.add(1);", "q.offer(1);", "q.poll();",  # calls of unknown (side-effecting) methods
    "Blackhole.consumeCPU(10);", "bh.consume(Math.log(x));",
    "touches(1);", "counts();", "allocates();", "empty();",  # own methods with side effects, or void
    "opaque(1);",  # DONT_INLINE: the call stays
    "recursive(5);",  # recursion is not known to be pure: not flagged
    "double r = Math.log(x); x = r;",  # the local is used
    "double r = Math.log(x); bh.consume(r);",
    "Object o = new Object();",  # allocation (constructors may do anything)
    "int r = q.size();",  # unknown method
    "String t = String.valueOf(x); s = t;",
    "for (int i = 0; i < 10; i++) { x += i; }",
])
def test_side_effects_and_used_values_are_not_flagged(body):
    assert dead(body) == []


def test_a_returned_value_is_used_but_an_earlier_one_may_be_dead():
    assert dead("return Math.log(x);", ret="double") == []
    assert dead("Math.log(x); return Math.log(x * 2);", ret="double") == [("discarded", "Math.log(x)")]  # JMHSample_09


def test_only_benchmark_methods_are_analysed():
    jf = parse_java("B.java", CLASS.format(body="", ret="void").encode())
    assert all(m.dead_results == () for m in jf.classes[0].methods)
    helper = parse_java("H.java", b"class H { int f() { Math.log(1); return 1; } }")
    assert helper.classes[0].methods[0].dead_results == ()
