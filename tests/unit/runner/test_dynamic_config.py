"""Dynamic-stopping settings: config keys at every level, flags of `run`, and the transparency output."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchwarden.adapters import REGISTRY
from benchwarden.cli import main
from benchwarden.config import CRITERION_DEFAULTS, RunSettings, load_config
from benchwarden.errors import ConfigError


def _load(tmp_path: Path, text: str):
    path = tmp_path / "benchwarden.toml"
    path.write_text(text)
    return load_config(path)


def test_dynamic_with_the_studys_bounds_is_the_default(tmp_path):
    s = _load(tmp_path, '[suites.x]\nkind = "go"\n').suites["x"].settings
    assert s.stop == "dynamic"
    assert (s.warmup_min, s.warmup_max, s.iterations, s.forks_min, s.forks_max, s.iteration_time_s) == (5, 50, 10, 2, 5, 1.0)
    # benchwarden's criteria (docs/dynamic.md); the study's are options with the study's settings
    assert [(c.name, c.threshold, c.window, c.confidence, c.scout) for c in s.criteria] == [
        ("level", 0.1, 5, 0.95, True), ("precision", 0.05, 5, 0.9, False)]
    assert (CRITERION_DEFAULTS["cv"].threshold, CRITERION_DEFAULTS["cv"].window) == (0.01, 5)
    assert (CRITERION_DEFAULTS["rciw"].threshold, CRITERION_DEFAULTS["rciw"].confidence,
            CRITERION_DEFAULTS["rciw"].resamples) == (0.03, 0.99, 1000)
    assert CRITERION_DEFAULTS["kld"].threshold == 0.99


CONFIG = """
[defaults]
criteria = { kld = { threshold = 0.98, window = 4 } }

[suites.a]
kind = "go"
criteria = ["rciw", "kld"]              # kld keeps the defaults' 0.98 / 4

[suites.a.overrides."Noisy"]
forks = { min = 3, max = 8 }
criteria = { cv = { threshold = 0.05 } }

[suites.a.overrides."Noisy|Tokenize"]
iterations = 20

[suites.b]
kind = "go"
stop = "static"
"""


def test_criteria_per_suite_and_per_benchmark(tmp_path):
    cfg = _load(tmp_path, CONFIG)
    a = cfg.suites["a"].settings
    assert [(c.name, c.threshold, c.window) for c in a.criteria] == [("rciw", 0.03, 5), ("kld", 0.98, 4)]
    noisy = a.for_benchmark("BenchmarkNoisy")
    assert [(c.name, c.threshold) for c in noisy.criteria] == [("cv", 0.05)]
    assert (noisy.forks_min, noisy.forks_max, noisy.iterations) == (3, 8, 20)  # both overrides, in file order
    tokenize = a.for_benchmark("BenchmarkTokenize[size=100]")
    assert tokenize.criteria == a.criteria and tokenize.iterations == 20 and tokenize.forks_max == 5
    assert a.for_benchmark("BenchmarkTopK") == RunSettings.from_dict({**a.to_dict(), "overrides": []})
    assert cfg.suites["b"].settings.stop == "static"
    # what `run --resume` reads back from the run's snapshot is the same
    assert RunSettings.from_dict(a.to_dict()) == a


def test_a_snapshot_from_before_criteria_existed_still_loads():
    old = {"iteration_time_s": 0.2, "warmup_min": 2, "warmup_max": 3, "iterations": 5, "forks_min": 2,
           "forks_max": 2, "timeout_s": None, "iteration_timeout_s": None, "stop": "static"}
    s = RunSettings.from_dict(old)
    assert s.stop == "static" and s.criteria == (CRITERION_DEFAULTS["cv"],) and s.overrides == ()


@pytest.mark.parametrize("text, key, fragment", [
    ('[defaults]\ncriteria = ["cv", "mean"]\n', "defaults.criteria", "unknown criterion 'mean'"),
    ('[defaults]\ncriteria = []\n', "defaults.criteria", "at least one criterion"),
    ('[defaults]\ncriteria = { kld = { threshold = 1.5 } }\n', "defaults.criteria", "kld.threshold: expected a probability"),
    ('[defaults]\ncriteria = { cv = { threshold = -0.1 } }\n', "defaults.criteria", "cv.threshold"),
    ('[defaults]\ncriteria = { cv = { window = 1 } }\n', "defaults.criteria", "cv.window: expected an integer >= 2"),
    ('[defaults]\ncriteria = { rciw = { confidence = 1.2 } }\n', "defaults.criteria", "rciw.confidence"),
    ('[defaults]\ncriteria = { cv = { treshold = 0.1 } }\n', "defaults.criteria", "cv.treshold: unknown key"),
    ('[defaults]\ncriteria = "cv"\n', "defaults.criteria", "expected a list of criterion names"),
    ('[suites.x]\nkind = "go"\n[suites.x.overrides."(("]\niterations = 3\n', "suites.x.overrides", "regular expression"),
    ('[suites.x]\nkind = "go"\n[suites.x.overrides."a"]\nstop = "fast"\n', "suites.x.overrides.a.stop", "unknown stop policy"),
    ('[suites.x]\nkind = "go"\n[suites.x.overrides."a"]\nbuild = "make"\n', "suites.x.overrides.a.build", "unknown key"),
])
def test_bad_settings_name_file_and_key(tmp_path, text, key, fragment):
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    message = str(info.value)
    assert f": {key}" in message and fragment in message and "benchwarden.toml" in message


# --- run flags and transparency through the fake harness -----------------------------------------------------

PROJECT = """
[defaults]
iteration_time = "1ms"
warmup = { min = 5, max = 12 }
iterations = 4
forks = { min = 2, max = 4 }

[suites.demo]
kind = "fake"

[suites.demo.overrides."format"]
criteria = ["kld"]
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_adapter:DemoFakeAdapter")
    (tmp_path / "benchwarden.toml").write_text(PROJECT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_run_reports_how_each_benchmark_stopped(project):
    status, out, err = bw("run", "--json")
    assert status == 0, err
    stopping = json.loads(out)["stopping"]
    by_key = {b["benchmark"]: b for b in stopping["benchmarks"]}
    parse, fmt = by_key["parse[size=10]"], by_key["format"]
    assert parse["policy"] == "dynamic" and parse["criteria"] == ["level(p>0.1, scout)", "precision(±5% @90%)"]
    assert fmt["criteria"] == ["kld>=0.99"]
    for b in (parse, fmt):
        for fork in b["forks"]:
            # one checkpoint per warmup iteration, and one after each measurement (kept, or measured again)
            after = [c for c in fork["checkpoints"] if c["reason"] in ("measured", "level-changed")]
            assert after and after[-1]["reason"] == "measured"
            remeasured = len(after) - 1
            assert fork["remeasured"] == remeasured
            assert fork["warmup_iterations"] == len(fork["checkpoints"]) - len(after) + remeasured * 4
            assert fork["warmup_reason"] in ("stable", "maximum-reached", "scout")
        assert b["iterations"] == sum(f["warmup_iterations"] + f["measurement_iterations"] for f in b["forks"])
        assert b["static_iterations"] == 4 * (12 + 4)
        assert b["saved_vs_static"] == pytest.approx(1 - b["iterations"] / 64)
    # the scout fork runs warmup.max; the next fork ends warmup once the level is flat
    assert parse["forks"][0]["warmup_reason"] == "scout" and parse["forks"][0]["warmup_iterations"] == 12
    assert fmt["forks"][0]["warmup_reason"] == "stable" and fmt["forks"][0]["values"]["kld.mean"] >= 0.99
    totals = stopping["totals"]
    assert totals["static_s"] == pytest.approx(2 * 64 * 0.001)
    assert totals["reference_s"] is None  # no JMH suite: no reference budget

    status, out, err = bw("show", "--details")
    assert status == 0, err
    for text in ("stopping", "warmup per fork", "after fork 2", "end warmup", "static budget of this configuration"):
        assert text in out


def test_flags_override_the_config_everywhere(project):
    status, out, err = bw("run", "--json", "--criteria", "cv,kld", "--threshold", "kld=0.5", "--window", "3")
    assert status == 0, err
    for b in json.loads(out)["stopping"]["benchmarks"]:
        assert b["criteria"] == ["cv<=0.01", "kld>=0.5"]  # the "format" override lost to the flags
        first = b["forks"][0]["checkpoints"]
        assert [c["reason"] for c in first[:4]] == ["below-minimum"] * 4  # warmup.min 5 still holds
    status, out, err = bw("run", "--json", "--stop", "static")
    assert status == 0 and all(b["policy"] == "static" and len(b["forks"]) == 4
                               for b in json.loads(out)["stopping"]["benchmarks"])


@pytest.mark.parametrize("argv, fragment", [
    (["--criteria", "cv,mean"], "unknown criterion 'mean'"),
    (["--threshold", "rciw=0.05"], "criterion 'rciw' is not chosen"),
    (["--threshold", "cv"], "expected NAME=VALUE"),
    (["--criteria", "kld", "--threshold", "kld=2"], "kld.threshold"),
    (["--window", "1"], "level.window"),
    (["--stop", "fast"], "'fast' is not one of"),
])
def test_bad_flags_are_usage_errors(project, argv, fragment):
    status, out, err = bw("run", *argv)
    assert status == 2 and fragment in err and out == ""
