"""Progress on stderr: a live line that fits the terminal, one line per finished fork anywhere else.

Before: `run` printed nothing when stderr was not a terminal (11.5 minutes of silence in a CI log),
`run --json` printed no progress at all, and at 80 columns the live line read "fork… elap… ETA ≤ 2…".
"""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.cells import cell_len
from rich.console import Console

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main
from benchwarden.cli.progress import ForkLines, LiveLine, run_progress
from benchwarden.model import Benchmark, BenchmarkId

CONFIG = """
[defaults]
iteration_time = "10ms"
warmup = { min = 1, max = 1 }
iterations = 3
forks = { min = 2, max = 2 }

[suites.demo]
kind = "fake"
"""

FORK_LINE = re.compile(r"^\[(\d)/2\] demo:\S+ fork (\d)/2: 3 iterations after 1 warmup, mean [\d.]+ ns/op, \S+ · "
                       r"elapsed \S+ · ETA ≤ \S+$")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()  # not terminals, as in CI
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_not_a_terminal_gets_one_line_per_finished_fork_on_stderr(project):
    status, out, err = bw("run")
    assert status == 0, err
    lines = err.splitlines()
    assert lines[0].startswith("run 1: 2 benchmark(s); at most ")
    forks = [FORK_LINE.match(line) for line in lines[1:]]
    assert all(forks), lines
    assert [(m.group(1), m.group(2)) for m in forks] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert "fork 1/2" not in out  # the table on stdout, progress on stderr


def test_json_mode_keeps_stdout_pure_and_reports_progress_on_stderr(project):
    status, out, err = bw("run", "--json")
    assert status == 0, err
    assert json.loads(out)["status"] == "complete"
    assert sum(1 for line in err.splitlines() if FORK_LINE.match(line)) == 4


def test_quiet_prints_no_progress(project):
    status, _, err = bw("run", "--quiet")
    assert status == 0 and err == ""


def _live(width: int) -> LiveLine:
    clock = iter(range(0, 10_000, 7)).__next__
    live = LiveLine(Console(file=io.StringIO(), width=width), clock=clock)
    bench = Benchmark(BenchmarkId("jmh", "org.openjdk.jmh.benchmarks.RoundTripLatencyBench.roundTripLatency",
                                  (("size", "1024"), ("mode", "blocking"))), mode="avgt", unit="ns/op")
    live.run_started(12, 38, 3_600.0)
    live.benchmark_started(bench, 7, 38, 5)
    live.fork_started(bench, 2, 5)
    from benchwarden.model import IterationResult, Phase

    live.iteration_done(bench, 2, Phase.MEASUREMENT, 7, IterationResult(1.0, 1.0))
    return live


@pytest.mark.parametrize("width", [40, 60, 80, 120, 200])
def test_live_line_fits_the_width_and_keeps_every_field_it_shows_whole(width):
    line = _live(width).line(width)
    assert cell_len(line) <= width, line
    assert line.startswith("[7/38] ") and "ETA ≤ " in line
    if width >= 80:
        assert "fork 2/5 · measure 7 · " in line and "…" in line or width >= 120
    if width >= 200:
        assert "jmh:org.openjdk.jmh.benchmarks.RoundTripLatencyBench.roundTripLatency[size=1024,mode=blocking]" in line
    for field in ("fork", "measure", "ETA"):
        assert f"{field}…" not in line  # never the "fork… elap…" of issue #14


def test_the_listener_matches_the_stream():
    assert isinstance(run_progress(Console(file=io.StringIO(), force_terminal=True)), LiveLine)
    assert isinstance(run_progress(Console(file=io.StringIO())), ForkLines)
    assert not isinstance(run_progress(Console(file=io.StringIO()), quiet=True), (LiveLine, ForkLines))
