"""`benchwarden history` on a real store (SQLite and PostgreSQL) and a real git repository of empty commits (seeded runs)."""

from __future__ import annotations

import io
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from benchwarden.cli import main
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.report import plots
from benchwarden.store import open_store

MACHINE_A = {"name": "ci-a", "cpu": "AMD EPYC", "cores": "2"}
MACHINE_B = {"name": "ci-b", "cpu": "Intel Xeon", "cores": "8"}
PARSE = Benchmark(BenchmarkId("suite", "parse"), mode="go", unit="ns/op")
TOKENS = Benchmark(BenchmarkId("suite", "tokens"), mode="go", unit="ns/op")


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, list[str]]:
    """30 empty commits on main, subjects "commit 0".."commit 29", committed with dates in reverse order
    (history order must come from parents, not dates)."""
    root = tmp_path_factory.mktemp("repo")
    git(root, "init", "-q", "-b", "main")
    shas = []
    for i in range(30):
        date = f"{2_000_000_000 - i * 60} +0000"
        subprocess.run(["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", f"commit {i}"], check=True,
                       env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                            "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin",
                            "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
        shas.append(git(root, "rev-parse", "HEAD"))
    git(root, "tag", "v1", shas[20])
    return root, shas


def fork(rng, index: int, level_ns: float) -> ForkResult:
    values = level_ns * np.exp(rng.normal(0, 0.01) + rng.normal(0, 0.003, 5))
    return ForkResult(index=index, status=ForkStatus.COMPLETE, warmup=(),
                      measurement=tuple(IterationResult(value_ns=float(v), raw_value=float(v)) for v in values),
                      started_at=0.0, finished_at=1.0)


def run(commit: str, created_at: float, machine: dict, levels: dict[Benchmark, float], seed: int,
        dirty: bool = False) -> RunData:
    rng = np.random.default_rng(seed)
    meta = RunMeta(created_at=created_at, tool_version="0.1.0", commit=commit, dirty=dirty, machine=machine,
                   toolchain={"go": "go1.26"}, config={})
    results = tuple(BenchmarkResult(b, tuple(fork(rng, k, level) for k in (1, 2, 3))) for b, level in levels.items())
    return RunData(meta=meta, results=results, status=RunStatus.COMPLETE)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path, repo) -> str:
    """parse: 1000 ns/op, 12 % slower from commit 15 on (machine A); tokens: flat. Runs imported in shuffled
    order; machine B measured commits 10..29 at twice the level, with no change.  On SQLite and on a throwaway
    PostgreSQL server (tests/support/postgres.py)."""
    _, shas = repo
    if request.param == "sqlite":
        path = str(tmp_path / "results.db")
    else:
        cluster = request.getfixturevalue("pg_cluster")
        path = cluster.url(cluster.create_database())
    order = np.random.default_rng(0).permutation(30)
    with open_store(path) as s:
        for n, i in enumerate(order):
            level = 1000.0 * (1.12 if i >= 15 else 1.0)
            s.import_run(run(shas[i], 1_700_000_000 + n, MACHINE_A, {PARSE: level, TOKENS: 500.0}, seed=int(i)))
        for i in range(10, 30):
            s.import_run(run(shas[i], 1_700_100_000 + i, MACHINE_B, {PARSE: 2000.0}, seed=100 + i))
        s.import_run(run(shas[29], 1_700_200_000, MACHINE_A, {PARSE: 5000.0}, seed=7, dirty=True))
    return path


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(args), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_json_finds_the_step_at_its_commit_per_machine(store, repo):
    root, shas = repo
    code, out, err = cli("history", "--store", str(store), "--repo", str(root), "--json")
    assert code == 0, err
    doc = json.loads(out)
    series = {(s["benchmark"], s["machine_key"]): s for s in doc["series"]}
    assert sorted(series) == [("suite:parse", "ci-a"), ("suite:parse", "ci-b"), ("suite:tokens", "ci-a")]
    parse = series["suite:parse", "ci-a"]
    assert parse["ordered_by"] == "commit" and parse["commits"] == 30 and parse["forks"] == 90
    assert [p["commit"] for p in parse["points"]] == shas  # parent order, although dates run backwards
    [change] = parse["change_points"]
    assert (change["before"], change["after"], change["subject"]) == (shas[14], shas[15], "commit 15")
    assert change["low"] < 1.12 < change["high"] and change["p_value"] < 1e-6
    assert (change["commits_before"], change["commits_after"], change["outlier_commits"]) == (15, 15, 0)
    assert parse["level_ns"]["low"] < 1120 < parse["level_ns"]["high"]
    assert "1 run(s) of a dirty work tree left out" in parse["notes"]
    assert series["suite:parse", "ci-b"]["change_points"] == []  # twice the level on B, never mixed with A
    assert series["suite:tokens", "ci-a"]["change_points"] == []
    assert 0.005 < parse["noise"]["run_to_run"] < 0.02


def test_the_commits_table_is_filled_from_git(store, repo):
    root, shas = repo
    assert cli("history", "--store", str(store), "--repo", str(root), "--json")[0] == 0
    with open_store(store) as s:
        known = s.commits(shas)
    assert [known[sha].generation for sha in shas] == list(range(1, 31))
    assert known[shas[20]].refs == ("v1",) and known[shas[29]].refs == ("main",)
    assert known[shas[3]].parents == (shas[2],) and known[shas[3]].subject == "commit 3"


def test_terminal_tables_fit_80_columns_and_markdown_is_written(store, repo, tmp_path, monkeypatch):
    root, shas = repo
    monkeypatch.setenv("COLUMNS", "80")
    markdown = tmp_path / "history.md"
    code, out, err = cli("history", "--store", str(store), "--repo", str(root), "--markdown", str(markdown))
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    assert f"{shas[14][:8]}..{shas[15][:8]}" in out and "slower" in out
    text = markdown.read_text()
    assert "| suite:parse | ci-a | 30 |" in text
    assert f"| suite:parse | {shas[14][:8]}..{shas[15][:8]} | slower | 1.1" in text


def test_benchmarks_and_machines_select_series(store, repo):
    root, _ = repo
    code, out, _ = cli("history", "tokens", "--store", str(store), "--repo", str(root), "--json")
    assert code == 0 and [s["benchmark"] for s in json.loads(out)["series"]] == ["suite:tokens"]
    code, out, _ = cli("history", "suite:parse", "--machine", "ci-b", "--store", str(store), "--repo", str(root),
                       "--json")
    assert code == 0 and [(s["benchmark"], s["machine_key"]) for s in json.loads(out)["series"]] == \
        [("suite:parse", "ci-b")]


@pytest.mark.parametrize("args, message", [
    (["nosuch"], "no stored runs of nosuch"),
    (["--suite", "other"], "--suite other: no stored runs of that suite"),
    (["--machine", "ci-z"], "--machine ci-z: no series on that machine (machines: ci-a, ci-b)"),
    (["--alpha", "0.5"], "0.5 is not in the range"),
    (["--alpha", "nan"], "not a finite number"),
    (["--iterations", "3"], "No such option '--iterations'"),
])
def test_bad_input_is_a_usage_error(store, repo, args, message):
    root, _ = repo
    code, _, err = cli("history", *args, "--store", str(store), "--repo", str(root))
    assert code == 2 and message in err


def test_without_git_the_series_is_ordered_by_run_time_and_says_so(tmp_path, repo):
    _, shas = repo
    path = tmp_path / "results.db"
    with open_store(path) as s:
        for i in range(12):
            s.import_run(run(shas[i], 1_700_000_000 + i, MACHINE_A, {PARSE: 1000.0 * (1.3 if i >= 6 else 1)}, i))
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    code, out, err = cli("history", "--store", str(path), "--repo", str(elsewhere), "--json")
    assert code == 0, err
    doc = json.loads(out)
    [series] = doc["series"]
    assert series["ordered_by"] == "run time"
    assert "ordered by run time" in series["notes"][0] and "not a git work tree" in doc["notes"][0]
    assert [c["after"] for c in series["change_points"]] == [shas[6]]
    assert math.isclose(series["change_points"][0]["ratio"], 1.3, rel_tol=0.03)


def test_an_empty_store_says_so(tmp_path, repo):
    root, _ = repo
    code, out, _ = cli("history", "--store", str(tmp_path / "empty.db"), "--repo", str(root))
    assert code == 0 and "no stored runs with a commit" in out


def test_a_series_of_one_commit_has_no_interval_and_valid_json(tmp_path, repo, monkeypatch):
    root, shas = repo
    path = tmp_path / "results.db"
    with open_store(path) as s:
        s.import_run(run(shas[0], 1_700_000_000, MACHINE_A, {PARSE: 1000.0}, seed=1))
    code, out, err = cli("history", "--store", str(path), "--repo", str(root), "--json")
    assert code == 0, err

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    [series] = json.loads(out, parse_constant=refuse)["series"]
    assert series["level_ns"]["low"] is None and series["change_points"] == []
    assert "1 run(s): at least 4 are needed to look for a change" in series["notes"]
    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = cli("history", "--store", str(path), "--repo", str(root))
    assert code == 0, err
    assert "n/a" in out and "no change points" in out


def test_the_html_plot_labels_its_axis_with_the_series_unit(tmp_path, repo, monkeypatch):
    """An instruction-count series is plotted in instr/op, not ns/op (found in a trial on gin's history)."""
    root, shas = repo
    counted = Benchmark(BenchmarkId("suite", "route"), mode="go", unit="instr/op", metric="instructions")
    path = tmp_path / "results.db"
    with open_store(path) as s:
        for i in range(5):
            s.import_run(run(shas[i], 1_700_000_000 + i, MACHINE_A, {counted: 444.0, PARSE: 1000.0}, seed=i))
    labels = []
    real = plots.figure_to_svg

    def keep_label(fig):
        labels.append(fig.axes[0].get_ylabel())
        return real(fig)

    monkeypatch.setattr(plots, "figure_to_svg", keep_label)
    code, _, err = cli("history", "--store", str(path), "--repo", str(root), "--html", str(tmp_path / "h.html"))
    assert code == 0, err
    assert sorted(labels) == ["instructions (instr/op)", "time (ns/op)"]


@pytest.mark.parametrize("claimed, verdict, low, high, state", [
    ((1.10, 1.30, 1.2), "slower", 1.15, 1.25, "confirmed"),
    ((0.80, 0.90, 0.85), "faster", 0.8, 0.9, "confirmed"),
    ((1.10, 1.30, 1.2), "unchanged", 0.99, 1.01, "refuted"),
    ((1.10, 1.30, 1.2), "faster", 0.9, 0.95, "refuted"),
    ((2.00, 3.00, 2.5), "inconclusive", 0.97, 1.04, "refuted"),  # both cannot be right
    ((1.10, 1.30, 1.2), "inconclusive", 1.01, 1.12, "inconclusive"),
    ((1.10, 1.30, 1.2), "error", None, None, "inconclusive"),
])
def test_what_re_measuring_says_about_a_change_point(claimed, verdict, low, high, state):
    from benchwarden.compare.verdict import Verdict
    from benchwarden.history.confirm import judge
    from benchwarden.stats.results import Interval

    interval = Interval(claimed[0], claimed[1], claimed[2], 0.999, "t-log pooled", 0)
    assert judge(interval, Verdict(verdict), low, high) == state


def test_confirm_needs_a_configuration(store, repo, tmp_path, monkeypatch):
    root, _ = repo
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("history", "--confirm", "--store", str(store), "--repo", str(root))
    assert code == 2 and "benchwarden.toml" in err
