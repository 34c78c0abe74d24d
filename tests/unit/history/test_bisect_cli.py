"""`benchwarden bisect` refuses what it cannot search, with exit 2 and the reason, before measuring anything."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from benchwarden.cli import main

TOML = '[suites.one]\nkind = "command"\ncommands = { noop = "true" }\n[suites.two]\nkind = "command"\n' \
    'commands = { noop = "true" }\n'


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.fixture()
def repo(tmp_path) -> Path:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin"}
    (tmp_path / "benchwarden.toml").write_text(TOML)
    subprocess.run(["git", "-C", str(tmp_path), "init", "-q", "-b", "main"], check=True, env=env)
    for i in range(3):
        subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", f"c{i}"], check=True,
                       env=env)
    return tmp_path


@pytest.mark.parametrize("argv,message", [
    (("HEAD~2", "HEAD", "--benchmark", "noop"), "give it as SUITE:KEY"),
    (("HEAD~2", "HEAD", "--benchmark", "three:noop"), "no suite 'three'"),
    (("HEAD", "HEAD", "--benchmark", "one:noop"), "HEAD..HEAD: no commit after HEAD"),
    (("nosuch", "HEAD", "--benchmark", "one:noop"), "unknown revision 'nosuch'"),
    (("HEAD~2", "HEAD", "--benchmark", "one:noop", "--min-change", "lots"), "--min-change"),
    (("HEAD~2", "HEAD", "--benchmark", "one:noop", "--filter", "x"), "No such option '--filter'"),
])
def test_bad_input_is_exit_2_with_the_reason(repo, argv, message):
    code, out, err = bw("bisect", *argv, "--config", str(repo / "benchwarden.toml"),
                        "--store", f"sqlite:///{repo / 'store.db'}")
    assert code == 2, (out, err)
    assert message in err, err
    assert "Traceback" not in err and out == ""


def test_json_reports_the_commit_its_evidence_and_every_step(repo, monkeypatch):
    """The command's own wiring (range, resolution, JSON) with compare sessions replaced by verdicts from a known
    truth: the last commit is the slow one (the e2e test measures real sessions)."""
    import json

    from benchwarden.compare.result import BenchmarkComparison, Comparison, SideInfo
    from benchwarden.compare.verdict import Verdict
    from benchwarden.history import remeasure as module
    from benchwarden.model import Direction

    shas = subprocess.run(["git", "-C", str(repo), "rev-list", "--reverse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.split()
    calls = []

    def fake(benchmark, suites, root, base, candidate, store, settings, *, label, listener=None):
        calls.append((benchmark, base, candidate, label))
        slower = candidate == shas[2] and base != shas[2]
        result = BenchmarkComparison("one", "noop", "command", "ns/op", Direction.LOWER_IS_BETTER,
                                     Verdict.SLOWER if slower else Verdict.UNCHANGED, ratio=1.2 if slower else 1.0,
                                     ci_low=1.1 if slower else 0.99, ci_high=1.3 if slower else 1.01)
        comparison = Comparison("revisions", SideInfo("base", base, run_id=7), SideInfo("candidate", candidate,
                                run_id=8), {}, benchmarks=(result,), machine_time_s=2.5)
        return module.Remeasured(comparison, result)

    monkeypatch.setattr(module, "remeasure", fake)
    code, out, err = bw("bisect", "HEAD~2", "HEAD", "--benchmark", "one:noop", "--config",
                        str(repo / "benchwarden.toml"), "--store", f"sqlite:///{repo / 'store.db'}", "--json", "-q")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["state"], doc["first_bad"], doc["parent"], doc["subject"], doc["commits"]) == \
        ("found", shas[2], shas[1], "c2", 2)
    assert [(s["purpose"], s["base"], s["candidate"], s["verdict"]) for s in doc["steps"]] == \
        [("premise", shas[0], shas[2], "slower"), ("halving", shas[0], shas[1], "unchanged")]
    assert doc["evidence"]["ratio"] == 1.2 and doc["machine_time_s"] == 5.0 and doc["steps"][0]["runs"] == [7, 8]
    assert [c[0] for c in calls] == ["one:noop", "one:noop"] and calls[0][3] == "bisect"
