"""`history` and `backfill` end to end on a real git history of the Go example, measured by `benchwarden run`.

The test builds the history itself: the example as commit 0, eleven more commits that edit the README, and at
commit 6 the slow tokenizer switched on in the code (``chooseTokenizer(os.Getenv("WORDSTAT_SLOW") + "large")``,
2-3x slower on ``BenchmarkTokenize[size=1000]``).  Measured either by a real `benchwarden run` after each commit
or afterwards by `backfill` in cached worktrees (one benchmark, 1 fork of 2 iterations), `history` must place the
change point in ``commit 5..commit 6``, the largest change with p < 0.001.

All in instruction counts (docs/metrics.md): these tests check the pipeline (commits measured, series built,
change points placed and reported), and a deterministic metric is the one no machine load can move. In CPU time
they failed about once in five loaded CI runs (issue #20): a CPU-bound neighbour slows this VM's whole processes
for seconds at a time, CPU time included, and the first commit after the switch measured up to 1.65x above the
later slow commits (a freshly built binary's first forks); how `history` fares on CPU time under load is measured
by `benchmarks/history_live.py` (docs/history.md), not asserted here.
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
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not on PATH (instruction counts)"),
]

REPO = Path(__file__).resolve().parents[2]
BENCHMARK = "wordstat:BenchmarkTokenize[size=1000]"
FAST = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW"))'
VARIANT = 'var tokenizer = chooseTokenizer(os.Getenv("WORDSTAT_SLOW") + "{name}")'
COMMITS, SWITCH = 12, 6
FILTER = r"^BenchmarkTokenize\[size=1000\]$"
# instruction counts: exact, no warmup; one fork per commit (history's unit is the run: docs/history.md), two
# iterations (the metric's least)
SHORT = ("--forks", "1", "--iterations", "2")
GIT_ENV = {"GIT_AUTHOR_NAME": "bw", "GIT_AUTHOR_EMAIL": "bw@example.org", "GIT_COMMITTER_NAME": "bw",
           "GIT_COMMITTER_EMAIL": "bw@example.org"}


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def git(root: Path, *args: str) -> str:
    import os

    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout.strip()


def build_history(root: Path, measure=None, *, steps=None, metric: str = "instructions",
                  commits: int = COMMITS) -> list[str]:
    """The example as commit 0, README edits, at each commit of ``steps`` (default: the large slowdown at commit 6)
    the named tokenizer switched on in the code; ``measure()`` after each commit."""
    steps = {SWITCH: "large"} if steps is None else steps
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    (root / ".gitignore").write_text(".benchwarden/\n")
    toml = root / "benchwarden.toml"  # the metric: instruction counts unless a test says otherwise
    toml.write_text(toml.read_text().replace("[defaults]\n", f'[defaults]\nmetric = "{metric}"\n', 1))
    source = root / "wordstat.go"
    original = source.read_text()
    assert FAST in original
    git(root, "init", "-q", "-b", "main")
    shas = []
    for i in range(commits):
        if i in steps:
            source.write_text(original.replace(FAST, VARIANT.format(name=steps[i])))
        elif i:
            with (root / "README.md").open("a") as readme:
                readme.write(f"\nEdit {i}.\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {i}")
        shas.append(git(root, "rev-parse", "HEAD"))
        if measure is not None:
            measure()
    return shas


def quick_compare(config: Path, min_pairs: int | None = 2) -> None:
    """`history --confirm` and `bisect` measure with compare's session and the config's settings: 2 iterations
    (the metric's least) and, unless None, 2 pairs at least (the exact rule settles a change in counts there,
    docs/metrics.md), not the example's 5 iterations under valgrind."""
    text = config.read_text().replace("iterations = 5 ", "iterations = 2 ")
    config.write_text(text + (f"\n[compare]\nmin_forks = {min_pairs}\n" if min_pairs else ""))


def the_slowdown(config: str, shas: list[str], measured: list[str]) -> dict:
    """`history --json`'s series of the benchmark; asserts the largest change point is commit 5..commit 6."""
    code, out, err = bw("history", "--config", config, "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    assert (series["benchmark"], series["machine_key"], series["ordered_by"], series["metric"]) == \
        (BENCHMARK, "e2e-history", "commit", "instructions")
    assert [p["commit"] for p in series["points"]] == measured
    changes = series["change_points"]
    slowdown = max(changes, key=lambda c: c["ratio"], default=None)
    means = [round(p["mean_ns"]) for p in series["points"]]
    assert slowdown is not None, f"no change point found in {means}"
    assert (slowdown["before"], slowdown["after"], slowdown["subject"]) == \
        (shas[SWITCH - 1], shas[SWITCH], f"commit {SWITCH}"), \
        (means, changes)
    assert slowdown["ratio"] > 1.5 and slowdown["low"] > 1 and slowdown["p_value"] < 0.001
    assert all(c["ratio"] < slowdown["ratio"] for c in changes if c is not slowdown)
    return {**slowdown, "means": means}


def test_history_finds_the_commit_that_switched_on_the_slow_tokenizer(tmp_path, monkeypatch):
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    root = tmp_path / "wordstat"
    config = str(root / "benchwarden.toml")

    def measure():
        code, out, err = bw("run", "--config", config, "--filter", FILTER, *SHORT)
        assert code == 0, err

    started = time.monotonic()
    shas = build_history(root, measure)
    measuring_s = time.monotonic() - started
    slowdown = the_slowdown(config, shas, shas)
    code, out, err = bw("history", "--config", config)
    assert code == 0, err
    assert f"{shas[SWITCH - 1][:8]}..{shas[SWITCH][:8]}" in out and "slower" in out
    print(f"run: {COMMITS} commits measured in {measuring_s:.1f} s; change {slowdown['ratio']:.2f}x "
          f"[{slowdown['low']:.2f}, {slowdown['high']:.2f}]; means {slowdown['means']}")


def test_backfill_measures_a_range_in_worktrees_and_a_second_backfill_skips_it(tmp_path, monkeypatch):
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the revision worktrees
    root = tmp_path / "wordstat"
    config = str(root / "benchwarden.toml")
    shas = build_history(root)
    started = time.monotonic()
    code, out, err = bw("backfill", f"{shas[0]}..main", "--config", config, "--filter", FILTER, *SHORT, "--quiet",
                        "--json")
    assert code == 0, err
    measuring_s = time.monotonic() - started
    done = json.loads(out)["commits"]
    assert [(c["commit"], c["state"], c["benchmarks"]) for c in done] == [(sha, "measured", 1) for sha in shas[1:]]
    assert git(root, "status", "--porcelain") == ""  # the work tree was never touched
    slowdown = the_slowdown(config, shas, shas[1:])  # A..B: A is not measured

    code, out, err = bw("backfill", f"{shas[0]}..main", "--config", config, "--filter", FILTER, *SHORT, "--quiet",
                        "--every", "2", "--json")
    assert code == 0, err
    assert [(c["commit"], c["state"]) for c in json.loads(out)["commits"]] == \
        [(sha, "skipped") for sha in shas[1::2]]  # every 2nd counting back from main: 11, 9, ..., 1
    print(f"backfill: {COMMITS - 1} commits checked out, built and measured in {measuring_s:.1f} s; change "
          f"{slowdown['ratio']:.2f}x; means {slowdown['means']}")


def test_a_ten_percent_change_partly_undone_is_found_twice_in_instruction_counts(tmp_path, monkeypatch):
    """Issue #15's case: 14 commits, about +10 % at commit 6 ("medium"), partly undone at commit 10 ("small",
    about +4 %), backfilled in instruction counts (deterministic: the noise no machine load can add)."""
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "wordstat"
    config = str(root / "benchwarden.toml")
    shas = build_history(root, steps={6: "medium", 10: "small"}, metric="instructions", commits=14)
    quick_compare(Path(config))
    started = time.monotonic()
    code, out, err = bw("backfill", f"{shas[0]}..main", "--config", config, "--filter", FILTER, *SHORT, "--quiet")
    assert code == 0, err
    measuring_s = time.monotonic() - started
    code, out, err = bw("history", "--config", config, "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    assert series["metric"] == "instructions" and [p["commit"] for p in series["points"]] == shas[1:]
    found = [(c["before"], c["after"], c["ratio"]) for c in series["change_points"]]
    assert [(before, after) for before, after, _ in found] == [(shas[5], shas[6]), (shas[9], shas[10])], found
    up, down = found[0][2], found[1][2]
    assert up > 1.05 and down < 1 and up * down > 1.02  # partly undone: still above the first level

    started = time.monotonic()  # each change point re-measured: compare of its two commits, this benchmark only
    code, out, err = bw("history", "--config", config, "--confirm", "--json")
    assert code == 0, err
    confirm_s = time.monotonic() - started
    [series] = json.loads(out)["series"]
    states = [(c["confirmation"]["state"], c["confirmation"]["verdict"]) for c in series["change_points"]]
    assert states == [("confirmed", "slower"), ("confirmed", "faster")], series["change_points"]

    print(f"instructions: 13 commits backfilled in {measuring_s:.0f} s; changes x{up:.3f} then x{down:.3f}; "
          f"both confirmed by compare in {confirm_s:.0f} s")


def test_bisect_finds_the_commit_in_log2_n_plus_2_sound_comparisons(tmp_path, monkeypatch):
    """The same 14 commits (about +10 % at commit 6, partly undone at commit 10), nothing measured beforehand:
    `bisect` of commit 0..13 must name commit 6, each step a compare session (instruction counts, 2 pairs: the
    exact rule settles counts there, docs/metrics.md), in at most ⌈log2 13⌉ + 2 = 6 comparisons."""
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "wordstat"
    config = root / "benchwarden.toml"
    shas = build_history(root, steps={6: "medium", 10: "small"}, metric="instructions", commits=14)
    quick_compare(config)
    started = time.monotonic()
    code, out, err = bw("bisect", shas[0], shas[-1], "--benchmark", BENCHMARK, "--config", str(config), "--quiet")
    assert code == 0, err
    bisect_s = time.monotonic() - started
    assert f"first slower commit: {shas[6]} commit 6" in out, (out, err)
    steps = [line for line in err.splitlines() if line.startswith(("premise:", "halving:", "second look:"))]
    verdicts = [line.split("→ ")[1].split()[0] for line in err.splitlines() if "→ " in line]
    assert 1 <= len(steps) <= 6 and len(verdicts) == len(steps), err
    assert steps[0].startswith(f"premise: {shas[0][:10]} against {shas[-1][:10]}") and verdicts[0] == "slower"
    assert all(v in ("slower", "unchanged", "faster") for v in verdicts), err  # every step decided
    assert "(bound ⌈log2 13⌉ + 2 = 6)" in out
    print(f"bisect: commit 6 of 13 found in {len(steps)} comparisons, {bisect_s:.0f} s wall; {out.strip()}")


def test_confirm_refutes_a_change_point_that_the_code_did_not_make(tmp_path, monkeypatch):
    """A false change point, injected the way real ones are born by accident: commits 4-6 backfilled while the
    environment switched the slower tokenizer on (``WORDSTAT_SLOW=medium``, about +10 %), the code unchanged.
    `history` must see the step (it is in the data); `--confirm` re-measures commits 3 and 4 in a clean
    environment and must refute it."""
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    monkeypatch.setenv("BENCHWARDEN_MACHINE", "e2e-history")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "wordstat"
    config = str(root / "benchwarden.toml")
    shas = build_history(root, steps={}, metric="instructions", commits=7)
    quick_compare(Path(config), min_pairs=None)  # "unchanged" within ±3 % takes compare's usual pairs
    quick = ("--config", config, "--filter", FILTER, *SHORT, "--quiet")
    code, out, err = bw("backfill", f"{shas[0]}..{shas[3]}", *quick)
    assert code == 0, err
    monkeypatch.setenv("WORDSTAT_SLOW", "medium")
    code, out, err = bw("backfill", f"{shas[3]}..main", *quick)
    assert code == 0, err
    monkeypatch.delenv("WORDSTAT_SLOW")
    code, out, err = bw("history", "--config", config, "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    assert [(c["before"], c["after"]) for c in series["change_points"]] == [(shas[3], shas[4])], series
    assert series["change_points"][0]["ratio"] > 1.05
    code, out, err = bw("history", "--config", config, "--confirm", "--json")
    assert code == 0, err
    [series] = json.loads(out)["series"]
    confirmation = series["change_points"][0]["confirmation"]
    assert (confirmation["state"], confirmation["verdict"]) == ("refuted", "unchanged"), confirmation
    assert confirmation["low"] > 1 / 1.03 and confirmation["high"] < 1.03

