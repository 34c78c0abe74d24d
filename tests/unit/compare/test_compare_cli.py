"""`benchwarden compare` through the CLI with an in-process harness kind: exit statuses, outputs, errors."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main

CONFIG = """
[defaults]
iteration_time = "10ms"
warmup = { min = 1, max = 1 }
iterations = 4

[suites.s]
kind = "fake"

[compare]
max_forks = 6
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.unit.compare.fake_versions:CliVersionedAdapter")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "project"
    root.mkdir()
    (root / "benchwarden.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["compare", *argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_a_slowdown_variant_fails_the_gate_and_writes_every_output(project):
    status, out, err = _run("--variant-env", "FAKE_FACTOR=1.2", "--seed", "1", "--markdown", "pr.md",
                            "--junit", "junit.xml", "--html", "report.html")
    assert status == 1, err
    assert "slower" in out and "s:steady" in out and "report: report.html" in out
    assert "look at 4 pairs" in err  # progress on stderr
    assert (project / "pr.md").read_text().startswith("### 🔴 benchwarden compare: 2 slower")
    assert 'failures="2"' in (project / "junit.xml").read_text()
    assert (project / "report.html").read_text().count("<svg") == 5


def test_an_aa_variant_passes_and_the_default_report_path_is_printed(project):
    status, out, err = _run("--variant-env", "FAKE_FACTOR=1.0", "--seed", "2", "-q")
    assert status == 0, err
    assert "report: " in out
    path = out.rsplit("report: ", 1)[1].strip()
    assert path.endswith(".benchwarden/reports/compare-1-2.html")
    assert (project / ".benchwarden" / "reports" / "compare-1-2.html").is_file()
    assert err == ""  # -q: no progress


def test_json_on_stdout_only_and_stored_runs_reanalysed(project):
    status, out, _ = _run("--variant-env", "FAKE_FACTOR=1.2", "--seed", "3", "--json")
    data = json.loads(out)
    assert status == 1 and data["gate"] == "regression" and data["base"]["run_id"] == 1
    assert [b["verdict"] for b in data["benchmarks"]] == ["slower", "slower"]
    status, out, _ = _run("--runs", "1", "2", "--json")
    again = json.loads(out)
    assert status == 1 and again["source"] == "runs"
    assert [b["ci"] for b in again["benchmarks"]] == [b["ci"] for b in data["benchmarks"]]
    status, out, _ = _run("--runs", "latest~1", "latest")
    assert status == 1 and "slower" in out


def test_two_ordinary_runs_are_compared_as_a_fixed_sample(project):
    for _ in range(2):
        assert main(["run", "--forks", "5", "-q"], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    status, out, err = _run("--runs", "1", "2")
    assert status == 0, err
    assert "fixed sample" in out


def test_revisions_in_a_git_repository(project):
    for args in (["init", "-q"], ["add", "benchwarden.toml"],
                 ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "c"]):
        subprocess.run(["git", *args], cwd=project, check=True)
    status, out, err = _run("HEAD", "HEAD", "--seed", "4", "-q")
    assert status == 0, err
    assert "base HEAD (" in out
    status, out, err = _run("HEAD", "--variant-env", "FAKE_FACTOR=1.3", "--seed", "5", "-q")
    assert status == 1, err
    status, _, err = _run("no-such-ref", "-q")
    assert status == 2 and "unknown revision 'no-such-ref'" in err


@pytest.mark.parametrize("argv, message", [
    ([], "nothing to compare: give BASE"),
    (["--runs", "1"], "--runs needs BASE and CANDIDATE"),
    (["--runs", "--artifacts", "a", "b"], "--artifacts: --runs analyses two stored runs"),
    (["--variant-env", "NOEQUALS"], "--variant-env expects NAME=VALUE"),
    (["--variant-jvm-arg", "-Dx=1"], "JVM arguments apply to jmh and junit suites only"),
    (["--variant-env", "A=1", "--min-change", "lots"], "--min-change"),
    (["--artifacts", "a.jar", "b.jar"], "needs a jmh suite"),
    (["--runs", "7", "8"], "run 7 not found"),
])
def test_usage_errors_exit_2_with_a_message(project, argv, message):
    status, _, err = _run(*argv)
    assert status == 2
    assert message in err


def _explain(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["explain", *argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_explain_finds_a_stored_comparison_and_refuses_what_it_cannot_measure_again(project):
    """`benchwarden explain` re-analyses a stored comparison and would profile its changed benchmarks again; the
    fake harness has no profiler, so the runs are found and judged and the profiling is refused with exit 2
    (profiling itself is tested on real processes in tests/e2e/test_compare_explain.py)."""
    assert _run("--variant-env", "FAKE_FACTOR=1.0", "--seed", "2", "-q")[0] == 0  # runs 1, 2: an A/A
    status, out, err = _explain("2")  # the candidate's base is found
    assert status == 0, err
    assert "runs 1 (base), 2 (candidate)" in out and "nothing to explain" in out
    assert "explain-1-2.html" in out and "Traceback" not in err
    assert _run("--variant-env", "FAKE_FACTOR=1.3", "--seed", "5", "-q")[0] == 1  # runs 3, 4: slower
    for argv in ([], ["latest"], ["3"], ["3", "4"], ["latest~1", "latest"]):
        status, _, err = _explain(*argv)
        assert status == 2 and "explain profiles" in err and "of kind fake" in err, (argv, err)
    # the comparison's own threshold, not the config's: at --min-change 60 % the 1.3x variant is no change to
    # explain (with the config's 3 % it would be "slower", and refused as above)
    assert _run("--variant-env", "FAKE_FACTOR=1.3", "--min-change", "60%", "--seed", "5", "-q")[0] == 0
    status, out, err = _explain("latest")
    assert status == 0 and "nothing to explain" in out, err
    assert _run("--runs", "5", "6")[0] == 1  # `compare --runs` re-judges with the config's 3 %
    assert main(["run", "--forks", "2", "-q"], stdout=io.StringIO(), stderr=io.StringIO()) == 0  # run 7: plain
    for argv, message in ((["7"], "run 7 was not stored by compare"),
                          (["4", "7"], "run 7 was not stored by compare"),
                          (["2", "1"], "runs 2 and 1 are not the base and the candidate of one comparison"),
                          (["1", "4"], "runs 1 and 4 are not the base and the candidate of one comparison"),
                          (["1", "2", "3"], "one stored comparison: a run of it, or its two runs; got 3"),
                          (["9"], "run 9 not found")):
        status, _, err = _explain(*argv)
        assert status == 2 and message in err and "Traceback" not in err, (argv, err)
