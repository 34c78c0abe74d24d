"""`benchwarden compare` on the example suites with real JMH, Go and Python processes.

For each example: the switchable slowdown (WORDSTAT_SLOW=1 / -Dwordstat.slow=true, 1.7-3x on the
tokenizer) is flagged slower, and an A/A comparison (one commit against itself, or the same working
tree twice) reports no regression.  Kept short: one benchmark (tokenize over 1000 words, the most
stable one the slowdown affects), 100 ms iterations (200 ms for JMH), at most 6 fork pairs for A/A.  Each test works
in a temporary copy of the example; the store and reports live there.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from benchwarden.cli import main
from tests.support.git import commit_all
from tests.support.jmh import private_jmh_lock
from tests.support.live import measured_twice, pair_log_ratios

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
COMMON = ["--iterations", "5", "--json", "-q"]

# folder, benchmark filter, tool, warmup iterations per fork, iteration time (the JIT needs more warmup
# than Go or CPython: 10 x 200 ms, still 25x less than JMH's default; the example's fixed, pre-touched
# heap keeps heap growth out of the measurement, see docs/performance.md)
EXAMPLES = {
    "jmh": ("jmh", r"TokenizeBench\.tokenize\[size=1000\]", "java", "10", "200ms"),
    "go": ("go", r"BenchmarkTokenize\[size=1000\]", "go", "2", "100ms"),
    "python": ("python", r"time_tokenize\[size=1000\]", "python3", "2", "100ms"),
}


def _example(tmp_path: Path, name: str) -> Path:
    folder, _, tool, _, _ = EXAMPLES[name]
    if shutil.which(tool) is None:
        pytest.skip(f"'{tool}' is not on PATH")
    if name == "jmh" and shutil.which("mvn") is None:
        pytest.skip("'mvn' is not on PATH")
    root = tmp_path / folder
    # the JMH copy keeps target/ (with timestamps) so Maven finds the jar up to date
    shutil.copytree(REPO / "examples" / folder, root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    if name == "jmh":
        private_jmh_lock(root, tmp_path)
    return root


def _compare(root: Path, name: str, *argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
                   "--filter", EXAMPLES[name][1], "--warmup", EXAMPLES[name][3], "--iteration-time", EXAMPLES[name][4],
                   *argv, *COMMON],
                  stdout=out, stderr=err)
    assert out.getvalue(), err.getvalue()
    return status, json.loads(out.getvalue()), err.getvalue()


@pytest.mark.parametrize("name, variant", [
    ("jmh", ["--variant-jvm-arg", "-Dwordstat.slow=true"]),
    ("go", ["--variant-env", "WORDSTAT_SLOW=1"]),
    ("python", ["--variant-env", "WORDSTAT_SLOW=1"]),
])
def test_switchable_slowdown_is_flagged_slower(tmp_path, name, variant):
    root = _example(tmp_path, name)
    # the default budget (20 pairs): on a loaded 2-core machine a 1.7x slowdown can need more than 8
    status, data, err = _compare(root, name, *variant, "--seed", "1")
    (result,) = data["benchmarks"]
    assert result["verdict"] == "slower", (result, err)
    assert status == 1 and data["gate"] == "regression"
    assert result["ratio"] > 1.10 and result["ci"][0] > 1.0
    assert Path(data["report"]).is_file()


@pytest.mark.parametrize("name", ["jmh", "go", "python"])
def test_aa_comparison_reports_no_regression(tmp_path, name, monkeypatch):
    root = _example(tmp_path, name)
    if name == "jmh":  # the same working tree twice: one Maven build, shared
        refs = ["WORKTREE", "WORKTREE"]
    else:  # one commit against itself: a cached worktree of that commit, built once
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        commit_all(root)
        refs = ["HEAD", "HEAD"]
    # a false "slower"/"faster" is the rule's nominal 0.5 % each: measured again once (tests/support/live.py)
    (status, data, err), wrong = measured_twice(
        lambda attempt: _compare(root, name, *refs, "--max-forks", "6", "--seed", str(2 + 10 * (attempt - 1))),
        _aa_claim)
    assert wrong is None, wrong
    (result,) = data["benchmarks"]
    assert status == 0 and data["gate"] == "pass"
    assert 4 <= result["forks"]["base"] <= 6


def _aa_claim(outcome: tuple[int, dict, str]) -> str | None:
    """What is wrong with an A/A comparison's outcome: a claimed change, with its pairs; None if nothing."""
    _, data, _ = outcome
    (result,) = data["benchmarks"]
    if result["verdict"] in ("unchanged", "inconclusive"):
        return None
    return (f"A/A said {result['verdict']}: ratio {result['ratio']}, interval {result['ci']}, outliers "
            f"{result['outliers']}, pairs {pair_log_ratios(result)}, warnings {result['warnings']}")


@pytest.mark.parametrize("name", ["go", "python"])
def test_a_ten_percent_change_is_never_called_unchanged_or_faster(tmp_path, name):
    # WORDSTAT_SLOW=medium: about +10 % on tokenize (benchmarks/example_changes.py measures it). On a quiet
    # machine it comes out "slower" within the default 20 pairs; on a loaded one it may need more and say
    # "inconclusive" with the change it could have detected -- but it must never be called unchanged or faster.
    root = _example(tmp_path, name)
    status, data, err = _compare(root, name, "--variant-env", "WORDSTAT_SLOW=medium", "--seed", "3")
    (result,) = data["benchmarks"]
    assert result["verdict"] in ("slower", "inconclusive"), (result, err)
    assert result["mde"] is not None  # an inconclusive point estimate may lie below 1 (0.94 once under load)
    if result["verdict"] == "inconclusive":
        assert result["forks"]["base"] == 20 and any("could be detected" in w for w in result["warnings"])
    else:
        assert status == 1 and result["ci"][0] > 1.0 and result["ratio"] > 1.0


def test_simultaneous_pairs_run_side_by_side_and_an_aa_stays_quiet(tmp_path):
    root = _example(tmp_path, "python")
    (status, data, err), wrong = measured_twice(
        lambda attempt: _compare(root, "python", "WORKTREE", "WORKTREE", "--pairing", "simultaneous", "--max-forks",
                                 "6", "--seed", str(4 + 10 * (attempt - 1))),
        _aa_claim)
    assert wrong is None, wrong
    (result,) = data["benchmarks"]
    assert set(result["order"]) == {"b+c"}
    assert status == 0 and data["gate"] == "pass"
    # measured biased for Python (docs/compare.md, Limitations): every output says so
    assert any(w.startswith("simultaneous pairs on a Python suite") for w in result["warnings"]), result["warnings"]
