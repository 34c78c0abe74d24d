"""`benchwarden list`: what a --filter selects, the bounds that apply to each benchmark, and a time range."""

from __future__ import annotations

import io
import json

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main

CONFIG = """
[defaults]
iteration_time = "100ms"
warmup = { min = 1, max = 5 }
iterations = 10
forks = { min = 2, max = 4 }

[suites.demo]
kind = "fake"

[suites.demo.overrides."^format"]
forks = { min = 1, max = 1 }
stop = "static"
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_lists_bounds_and_time_range_per_benchmark_and_runs_nothing(project):
    status, out, err = bw("list", "--json")
    assert status == 0, err
    by_key = {b["benchmark"]: b for b in json.loads(out)["benchmarks"]}
    parse, fmt = by_key["parse[size=10]"], by_key["format"]
    assert parse["forks"] == {"min": 2, "max": 4} and parse["stop"] == "dynamic"
    # fewest: 2 forks x (1 + 10) x 0.1 s; most: 4 x (5 + 10) x 0.1 s
    assert parse["time_s"] == pytest.approx({"min": 2.2, "max": 6.0})
    assert fmt["forks"] == {"min": 1, "max": 1} and fmt["time_s"] == pytest.approx({"min": 1.5, "max": 1.5})
    assert not (project / ".benchwarden").exists()  # nothing stored, no store opened
    status, out, _ = bw("list")
    assert status == 0
    assert "2 benchmarks from 2 functions or methods in 1 suite; 3.7s–7.5s of iterations" in out


def test_filter_and_bound_flags_preview_a_run(project):
    status, out, _ = bw("list", "--filter", "parse", "--forks", "3", "--json")
    assert status == 0
    (only,) = json.loads(out)["benchmarks"]
    assert only["benchmark"] == "parse[size=10]" and only["forks"] == {"min": 3, "max": 3}
    status, out, _ = bw("list", "--filter", "nothing-matches")
    assert status == 0 and "no benchmark selected by --filter 'nothing-matches'" in out


def test_a_suite_that_cannot_be_listed_is_an_error(project, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.unit.cli.test_list:FailingAdapter")
    status, _, err = bw("list")
    assert status == 2 and "cannot build" in err


class FailingAdapter:
    def prepare(self, ctx):
        from benchwarden.errors import BuildFailed

        raise BuildFailed(ctx.name, "mvn package", 1, "cannot build: missing sibling module")

    def list_benchmarks(self, ctx):  # pragma: no cover - prepare fails first
        return []
