"""Dynamic stopping end to end on the example JMH and Go suites: real harness processes, the real CLI.

Scaled down from the study (1-s iterations, warmup 5–50, forks 2–5) to keep the file well under two
minutes: 50 ms (Go) and 100 ms (JMH) iterations, warmup 5–30, 5 measurement iterations, forks 2–4, and a
CV threshold of 0.03 instead of 0.01 (this shared 2-core machine is far noisier than the study's bare
metal: iteration-to-iteration CVs of 10–30 % for the steady benchmarks were measured while other test
suites ran).  Asserted: the steady benchmarks end warmup on stability and stop well before the bounds;
the deliberately noisy one costs the most and reaches a bound (warmup or forks) with the warning, or
ends its warmups late (see check_stopping); the output shows
the time saved against the budgets.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from benchwarden.cli import main

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]

SETTINGS = """
warmup = { min = 5, max = 30 }
iterations = 5
forks = { min = 2, max = 4 }
stop = "dynamic"
criteria = { cv = { threshold = 0.03 } }
"""


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def copy_example(kind: str, dest: Path, suite_table: str, iteration_time: str) -> Path:
    root = dest / kind
    shutil.copytree(REPO / "examples" / kind, root, ignore=shutil.ignore_patterns(".benchwarden", "target"))
    (root / "benchwarden.toml").write_text(f"[store]\nurl = \"results.db\"\n\n{suite_table}"
                                           f"iteration_time = \"{iteration_time}\"{SETTINGS}")
    return root


def check_stopping(stopping: dict, stable_keys: list[str], noisy_key: str, iteration_s: float) -> None:
    by_key = {b["benchmark"]: b for b in stopping["benchmarks"]}
    static_iterations = 4 * (30 + 5)
    for key in stable_keys:
        b = by_key[key]
        assert b["policy"] == "dynamic" and b["static_iterations"] == static_iterations
        trail = [(f["warmup_iterations"], f["warmup_reason"]) for f in b["forks"]]
        stable = [f for f in b["forks"] if f["warmup_reason"] == "stable" and f["warmup_iterations"] < 30]
        assert 2 * len(stable) >= len(b["forks"]), (key, trail)
        assert b["iterations"] <= 0.75 * static_iterations, (key, trail)
        assert b["saved_vs_static"] == pytest.approx(1 - b["iterations"] / static_iterations)
    # the noisy one cannot be made stable cheaply: it reaches a bound (warmup or forks) with the warning, or
    # its warmups end late — the CV criterion judges whether the cumulative CV still moves, not how large it
    # is, so a CV of 50 % can settle after ~20 iterations (seen once in CI: warmups 21-24, 4 forks "stable")
    noisy = by_key[noisy_key]
    trail = ([(f["warmup_iterations"], f["warmup_reason"]) for f in noisy["forks"]], noisy["fork_reason"])
    warmup_bound = [f for f in noisy["forks"] if f["warmup_reason"] == "maximum-reached"]
    fork_bound = noisy["fork_reason"] == "maximum-reached"
    late = all(f["warmup_iterations"] >= 15 for f in noisy["forks"])
    assert warmup_bound or fork_bound or late, trail
    assert noisy["iterations"] > max(by_key[k]["iterations"] for k in stable_keys), trail
    for fork in warmup_bound:
        assert fork["warmup_iterations"] == 30 and "did not become stable within 30 iterations (cv spread" in fork["warning"]
    if fork_bound:
        assert len(noisy["forks"]) == 4 and any("did not become stable within 4 forks (cv spread" in w
                                                for w in noisy["warnings"])
    if warmup_bound or fork_bound:
        assert noisy["warnings"]
    totals = stopping["totals"]
    assert 0.0 < totals["saved_vs_static"] < 1.0
    assert totals["static_s"] == pytest.approx(len(stopping["benchmarks"]) * static_iterations * iteration_s)


@pytest.mark.skipif(shutil.which("go") is None, reason="the Go toolchain ('go') is not on PATH")
def test_go_example(tmp_path):
    root = copy_example("go", tmp_path, '[suites.wordstat]\nkind = "go"\npackages = ["./..."]\n'
                                        'filter = \'Tokenize\\[size=100\\]|CountWordsHash|Noisy\'\n', "50ms")
    status, out, err = bw("run", "--config", str(root / "benchwarden.toml"), "--json")
    assert status == 0, err + out
    check_stopping(json.loads(out)["stopping"], ["BenchmarkTokenize[size=100]", "BenchmarkCountWordsHash"],
                   "BenchmarkNoisy", 0.05)
    status, out, err = bw("show", "--config", str(root / "benchwarden.toml"))
    assert status == 0, err
    assert "saved vs static" in out and "static budget of this configuration" in out
    assert "⚠ wordstat:BenchmarkNoisy:" in out and "did not become stable within" in out


@pytest.mark.skipif(shutil.which("java") is None or shutil.which("mvn") is None,
                    reason="the JMH example needs 'java' and 'mvn' on PATH")
def test_jmh_example(tmp_path):
    root = copy_example("jmh", tmp_path, '[suites.wordstat]\nkind = "jmh"\nbuild = "mvn -q -B package -DskipTests"\n'
                                         'artifact = "target/benchmarks.jar"\njvm_args = ["-Xmx256m"]\n'
                                         'filter = "countHash|noisy"\n', "100ms")
    status, out, err = bw("run", "--config", str(root / "benchwarden.toml"), "--json")
    assert status == 0, err + out
    stopping = json.loads(out)["stopping"]
    check_stopping(stopping, ["wordstat.bench.CountWordsBench.countHash"], "wordstat.bench.NoisyBench.noisy", 0.1)
    # JMH suites are also measured against JMH's own defaults for the jar's version (1.37: 5 x (5 + 5) x 10 s)
    reference = stopping["benchmarks"][0]["reference"]
    assert reference["seconds"] == 500.0 and "JMH 1.37 defaults" in reference["label"]
    assert stopping["totals"]["saved_vs_reference"] > 0.9
    status, out, err = bw("show", "--config", str(root / "benchwarden.toml"), "--details")
    assert status == 0, err
    assert "against JMH 1.37 defaults" in out and "after fork 2" in out
