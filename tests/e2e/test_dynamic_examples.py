"""Dynamic stopping end to end on the example JMH and Go suites: real harness processes, the real CLI.

Scaled down from the study (1-s iterations, warmup 5–50, forks 2–5) to keep the file well under two
minutes: 50 ms (Go) and 100 ms (JMH) iterations, warmup 5–30, 5 measurement iterations, forks 2–4, with
the default criteria (level with its scout fork, precision).  Asserted: the scout fork runs the warmup
bound, no fork passes a bound, every bound reached is said; the deliberately noisy one never stops as
"stable" without a warning (see check_stopping for why the assertions hold under heavy load too); the
output shows the time saved against the budgets.
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
    """Invariants that hold on a quiet and on a heavily loaded machine alike.

    On a quiet machine the steady benchmarks' later forks end warmup on a level well before the bound and
    they stop after 2-3 forks; under heavy load (load average 10-16 on 2 cores, seen while writing this) the
    level itself wanders, the scout finds no steady state, and the benchmark stops at forks.min with that
    warning.  Either is right; what must never happen is a fork past the bounds, a silent bound, or a later
    fork ending warmup before the scout's finding.
    """
    by_key = {b["benchmark"]: b for b in stopping["benchmarks"]}
    static_iterations = 4 * (30 + 5)
    for key in [*stable_keys, noisy_key]:
        b = by_key[key]
        trail = ([(f["warmup_iterations"], f["warmup_reason"], f["remeasured"]) for f in b["forks"]],
                 b["fork_reason"])
        assert b["policy"] == "dynamic" and b["static_iterations"] == static_iterations
        scout, *others = b["forks"]
        assert scout["warmup_reason"] == "scout" and scout["warmup_iterations"] == 30, (key, trail)
        assert all(f["warmup_iterations"] <= 30 and f["measurement_iterations"] == 5 for f in b["forks"]), trail
        assert 2 <= len(b["forks"]) <= 4 and b["iterations"] <= static_iterations, (key, trail)
        if b["fork_reason"] == "unsettled":  # no steady state: forks.min, and said so
            assert len(b["forks"]) == 2 and any("steady state" in w for w in b["warnings"]), (key, trail)
        elif b["fork_reason"] == "maximum-reached":
            assert len(b["forks"]) == 4 and any("within 4 forks" in w for w in b["warnings"]), (key, trail)
        else:
            assert b["fork_reason"] == "stable", (key, trail)
        assert b["saved_vs_static"] == pytest.approx(1 - b["iterations"] / static_iterations)
    # the noisy one's forks disagree (or its level wanders): it never stops as "stable" without a warning
    noisy = by_key[noisy_key]
    assert noisy["fork_reason"] in ("maximum-reached", "unsettled") and noisy["warnings"], \
        (noisy["fork_reason"], noisy["warnings"], noisy.get("decisions"),
         [{k: v for k, v in f.items() if k != "values"} for f in noisy["forks"]])  # all of it, if it ever happens
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
    assert "⚠ wordstat:BenchmarkNoisy:" in out


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
    assert "against the reference budget — JMH 1.37 defaults" in out and "after fork 2" in out
