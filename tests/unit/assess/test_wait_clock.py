"""``[assess] wait_clock``: which clock each injector hands its helper, and which suites may use the CPU clock.

What the clock does inside each helper (a call that sleeps is repaid on the wall clock, not on the CPU clock) is
tested on the real helpers: tests/unit/assess/test_python_injection.py and tests/e2e/test_assess_helpers.py (the Java
agent); how precisely, in benchmarks/wait_clock.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.assess.inject import INJECT_ENV, GoInjector, PythonInjector, check_wait_clock, injector_for
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import ConfigError


def suite(root: Path, kind: str, metric: str) -> Suite:
    return Suite(SuiteContext(name="lib", kind=kind, root=root), RunSettings(metric=metric))


def test_the_cpu_clock_is_for_suites_measured_in_cpu_time_and_not_for_go(tmp_path):
    assert check_wait_clock("wall", suite(tmp_path, "python", "time")) == "wall"
    assert check_wait_clock("cpu", suite(tmp_path, "python", "cpu")) == "cpu"
    assert check_wait_clock("cpu", suite(tmp_path, "jmh", "cpu")) == "cpu"
    with pytest.raises(ConfigError, match="suite 'lib' measures time"):
        check_wait_clock("cpu", suite(tmp_path, "python", "time"))
    with pytest.raises(ConfigError, match="expected one of wall, cpu"):
        check_wait_clock("cycles", suite(tmp_path, "python", "cpu"))
    with pytest.raises(ConfigError, match="not available for Go suites"):
        check_wait_clock("cpu", suite(tmp_path, "go", "cpu"))
    assert check_wait_clock("wall", suite(tmp_path, "go", "cpu")) == "wall"
    with pytest.raises(ConfigError, match="wall clock only"):
        GoInjector(clock="cpu")


def test_the_python_hook_gets_the_clock_in_its_spec_and_the_wall_clock_adds_nothing(tmp_path):
    plain = suite(tmp_path, "python", "cpu")
    cpu = json.loads(PythonInjector(clock="cpu").slowed(plain, ["lib:f"], 0.1, tmp_path / "c").suite.context.env[INJECT_ENV])
    assert cpu["clock"] == "cpu" and cpu["target"] == "lib:f"
    wall = json.loads(injector_for("python").slowed(plain, ["lib:f"], 0.1, tmp_path / "w").suite.context.env[INJECT_ENV])
    assert "clock" not in wall
