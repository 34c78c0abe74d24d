"""--apply: derived dynamic bounds (worked values) and safe writing of the suite table."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from benchwarden.audit.apply import apply_suite, derive_bounds, representative_shape
from benchwarden.audit.cost import RunShape, default_shape
from benchwarden.audit.defaults import CURRENT_DEFAULTS, LEGACY_DEFAULTS
from benchwarden.audit.project import audit_project
from benchwarden.config import load_config
from benchwarden.errors import ConfigError

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


def bounds(shape):
    b = derive_bounds(shape)
    return (b.warmup_min, b.warmup_max, b.iterations, b.forks_min, b.forks_max)


@pytest.mark.parametrize("shape, expected", [
    (default_shape(CURRENT_DEFAULTS), (5, 50, 10, 2, 5)),  # 5 x 10 s warmup -> 50; the study's bounds
    (default_shape(LEGACY_DEFAULTS), (5, 20, 10, 2, 10)),  # 20 x 1 s; measurement capped at 10
    (RunShape(1, 0, 3, 1.0, 3, 1.0), (5, 5, 5, 2, 2)),  # tiny budget raised to the minimums, 1 fork -> 2
    (RunShape(3, 0, 5, 0.1, 5, 0.1), (5, 5, 5, 2, 3)),  # 0.5 s warmup -> ceil(0.5) = 1 -> 5
    (RunShape(2, 0, 10, 2.0, 4, 2.0), (5, 20, 8, 2, 2)),  # 10 x 2 s -> 20; 4 x 2 s -> 8
])
def test_derive_bounds(shape, expected):
    assert bounds(shape) == expected


@pytest.fixture()
def project(tmp_path):
    dest = tmp_path / "proj"
    shutil.copytree(DATA / "annotations", dest)
    return dest


def test_representative_shape_is_weighted_by_combinations(project):
    report = audit_project(project)
    # ParamsBench.withState (216) + own (18) dominate with 2 x (5x10s + 5x10s)
    assert representative_shape(report) == RunShape(2, 0, 5, 10.0, 5, 10.0)


def test_apply_writes_a_valid_suite_and_never_clobbers(project, tmp_path):
    report = audit_project(project)
    config = tmp_path / "benchwarden.toml"
    config.write_text('[defaults]\niterations = 10\n')
    name, table = apply_suite(report, project, config, "fixture", stop_policy=None)
    data = tomllib.loads(config.read_text())
    assert data["defaults"] == {"iterations": 10}, "existing content is kept"
    suite = data["suites"]["fixture"]
    assert suite == {"kind": "jmh", "path": "proj", "build": "mvn -q -B package -DskipTests",
                     "artifact": "target/benchmarks.jar", "iteration_time": "1s",
                     "warmup": {"min": 5, "max": 50}, "iterations": 10, "forks": {"min": 2, "max": 2},
                     "stop": "static"}
    assert "no dynamic stop policy yet" in table
    loaded = load_config(config)
    assert loaded.suites["fixture"].settings.warmup_max == 50
    before = config.read_text()
    with pytest.raises(ConfigError, match=r"\[suites.fixture\] table already exists"):
        apply_suite(report, project, config, "fixture", stop_policy=None)
    assert config.read_text() == before
    apply_suite(report, project, config, "second", stop_policy=None)
    assert set(tomllib.loads(config.read_text())["suites"]) == {"fixture", "second"}


def test_apply_creates_the_file_and_refuses_invalid_toml(project, tmp_path):
    report = audit_project(project)
    config = tmp_path / "new.toml"
    name, _ = apply_suite(report, project, config)
    assert name == "proj-jmh" and "[suites.proj-jmh]" in config.read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text("[suites\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        apply_suite(report, project, bad)
    assert bad.read_text() == "[suites\n"


def test_apply_without_benchmarks_is_an_error(tmp_path):
    from benchwarden.errors import BenchwardenError
    report = audit_project(tmp_path)
    with pytest.raises(BenchwardenError, match="no timed JMH benchmark"):
        apply_suite(report, tmp_path, tmp_path / "benchwarden.toml")
