"""The commands a team runs against a shared PostgreSQL store, for real: `run` at two commits, a measuring
`compare`, `history`, `compare --against history`, and two `benchwarden run` processes writing at once — on the
throwaway server the tests start themselves (tests/support/postgres.py), never mocked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.store import open_store

pytestmark = [pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
FILTER = r"CountWords\.time_count_hash$"
SHORT = ("--forks", "2", "--warmup", "1", "--iterations", "3", "--iteration-time", "20ms")
GIT_ENV = {"GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}


def bw(root: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV, "BENCHWARDEN_MACHINE": "e2e-pg"}
    env.pop("WORDSTAT_SLOW", None)
    done = subprocess.run([sys.executable, "-m", "benchwarden", *argv], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    if check:
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def test_a_team_store_on_postgresql(pg_cluster, tmp_path):
    url = pg_cluster.url(pg_cluster.create_database())
    root = tmp_path / "wordstat"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    (root / ".gitignore").write_text(".benchwarden/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    bw(root, "run", "--store", url, "--suite", "wordstat", "--filter", FILTER, *SHORT, "--quiet")
    (root / "README.md").write_text("Edited.\n")
    git(root, "commit", "-q", "-am", "second")

    # two runs at once from two processes (two CI jobs sharing the store)
    env = {**os.environ, "BENCHWARDEN_MACHINE": "e2e-pg"}
    argv = [sys.executable, "-m", "benchwarden", "run", "--store", url, "--suite", "wordstat", "--filter", FILTER,
            *SHORT, "--quiet"]
    jobs = [subprocess.Popen([*argv, "--label", f"job {i}"], cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for i in (1, 2)]
    for job in jobs:
        out, err = job.communicate(timeout=600)
        assert job.returncode == 0, err
    with open_store(url) as store:
        runs = store.stored_runs()
        assert len(runs) == 3 and sorted(r.meta.label or "" for r in runs)[-2:] == ["job 1", "job 2"]
        for run in runs:
            data = store.load_run(run.id)
            [result] = data.results
            assert len(result.measurement_matrix()) == 2 and all(len(f) == 3 for f in result.measurement_matrix())

    done = bw(root, "compare", "--variant-env", "WORDSTAT_SLOW=medium", "--store", url, "--suite", "wordstat",
              "--filter", FILTER,
              "--min-forks", "2", "--max-forks", "3", *SHORT[2:], "--quiet", "--json", check=False)
    assert done.returncode in (0, 1), done.stderr  # a verdict either way; the point is the store
    comparison = json.loads(done.stdout)
    assert comparison["benchmarks"][0]["verdict"] in ("slower", "inconclusive", "unchanged", "faster")
    again = bw(root, "compare", "--runs", str(comparison["base"]["run_id"]), str(comparison["candidate"]["run_id"]),
               "--store", url, "--json", check=False)
    assert json.loads(again.stdout)["benchmarks"][0]["verdict"] == comparison["benchmarks"][0]["verdict"]

    history = json.loads(bw(root, "history", "--store", url, "--json").stdout)
    [series] = history["series"]
    assert series["machine_key"] == "e2e-pg" and series["commits"] == 2
    # the second commit: both jobs' forks and the compare base's (the commit's own code); the variant's are left out
    base_forks = comparison["benchmarks"][0]["forks"]["base"]
    assert [p["forks"] for p in series["points"]] == [2, 4 + base_forks]
    assert any("compare variants" in n for n in series["notes"])
    against = bw(root, "compare", "--against", "history", "--store", url, "--json", check=False)
    assert against.returncode in (0, 1) and json.loads(against.stdout)["source"] == "history"
