"""`benchwarden history` end to end on a real git history of the Go example, measured by `benchwarden run`.

The test builds the history itself: the example as commit 0, seven more commits that edit the README, and at
commit 4 the slow tokenizer switched on in the code (``chooseTokenizer(os.Getenv("WORDSTAT_SLOW") + "large")``,
2-3x slower on ``BenchmarkTokenize[size=1000]``).  After each commit, a real `benchwarden run` (one benchmark,
3 forks of 3 iterations of 20 ms, CPU time per op: docs/metrics.md's choice for shared machines; in wall time
one loaded commit of eight could move the change point by one) stores a run of that commit; `history` must then place the change point in
``commit 3..commit 4``.  On a shared, loaded machine a neighbour starting mid-test can move the measured level
for real, so another (smaller) change point is tolerated; the slowdown must be the largest one.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from benchwarden.cli import main

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("go") is None, reason="the Go toolchain ('go') is not on PATH"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH"),
]

REPO = Path(__file__).resolve().parents[2]
BENCHMARK = "wordstat:BenchmarkTokenize[size=1000]"
FAST = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW"))'
SLOW = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW") + "large")'
GIT_ENV = {"GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def git(root: Path, *args: str) -> str:
    import os

    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout.strip()


def test_history_finds_the_commit_that_switched_on_the_slow_tokenizer(tmp_path, monkeypatch):
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    root = tmp_path / "wordstat"
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    (root / ".gitignore").write_text(".benchwarden/\n")
    toml = root / "benchwarden.toml"  # CPU time: what a CPU-bound neighbour does to wall time is not a change
    toml.write_text(toml.read_text().replace("[defaults]\n", '[defaults]\nmetric = "cpu"\n', 1))
    source = root / "wordstat.go"
    assert FAST in source.read_text()
    git(root, "init", "-q", "-b", "main")
    config = str(root / "benchwarden.toml")
    shas = []
    started = time.monotonic()
    for i in range(8):
        if i == 4:
            source.write_text(source.read_text().replace(FAST, SLOW))
        elif i:
            with (root / "README.md").open("a") as readme:
                readme.write(f"\nEdit {i}.\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {i}")
        shas.append(git(root, "rev-parse", "HEAD"))
        code, out, err = bw("run", "--config", config, "--filter", r"^BenchmarkTokenize\[size=1000\]$",
                            "--forks", "3", "--warmup", "1", "--iterations", "3", "--iteration-time", "20ms")
        assert code == 0, err
    measuring_s = time.monotonic() - started

    code, out, err = bw("history", "--config", config, "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    assert (series["benchmark"], series["machine_key"], series["ordered_by"], series["metric"]) == \
        (BENCHMARK, "e2e-history", "commit", "cpu")
    assert [p["commit"] for p in series["points"]] == shas
    changes = series["change_points"]
    slowdown = max(changes, key=lambda c: c["ratio"], default=None)
    assert slowdown is not None, f"no change point found in {[p['mean_ns'] for p in series['points']]}"
    means = [round(p["mean_ns"]) for p in series["points"]]
    assert (slowdown["before"], slowdown["after"], slowdown["subject"]) == (shas[3], shas[4], "commit 4"), \
        (means, changes)
    assert slowdown["ratio"] > 1.5 and slowdown["low"] > 1 and slowdown["p_value"] < 0.001
    assert all(c["ratio"] < slowdown["ratio"] for c in changes if c is not slowdown)

    code, out, err = bw("history", "--config", config)
    assert code == 0, err
    assert f"{shas[3][:8]}..{shas[4][:8]}" in out and "slower" in out
    print(f"8 commits measured in {measuring_s:.1f} s; change {slowdown['ratio']:.2f}x "
          f"[{slowdown['low']:.2f}, {slowdown['high']:.2f}]; means {[round(p['mean_ns']) for p in series['points']]}")
