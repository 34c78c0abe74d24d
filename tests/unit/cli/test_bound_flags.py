"""The shared --forks/--warmup/--iterations/--iteration-time flags win over per-benchmark overrides in every
command that takes them (run, compare, check use one helper)."""

from benchwarden.cli.common import with_bound_flags
from benchwarden.config import load_config

TOML = """
[defaults]
warmup = { min = 5, max = 50 }
forks = { min = 2, max = 5 }
iterations = 10

[suites.s]
kind = "command"
commands = { a = "true" }

[suites.s.overrides."^slow"]
warmup = { min = 20, max = 60 }
iterations = 30
timeout = "9m"
"""


def _suite(tmp_path):
    path = tmp_path / "benchwarden.toml"
    path.write_text(TOML, encoding="utf-8")
    return load_config(path).suites["s"]


def test_flags_win_over_per_benchmark_overrides(tmp_path):
    suite = with_bound_flags(_suite(tmp_path), warmup=3, iteration_time=0.05)
    slow = suite.settings.for_benchmark("slow_one")
    assert (slow.warmup_min, slow.warmup_max, slow.iteration_time_s) == (3, 3, 0.05)
    assert slow.iterations == 30 and slow.timeout_s == 540  # keys the flags did not set keep their override
    other = suite.settings.for_benchmark("fast_one")
    assert (other.warmup_min, other.warmup_max, other.iterations, other.forks_min, other.forks_max) == (3, 3, 10, 2, 5)


def test_no_flags_change_nothing(tmp_path):
    suite = _suite(tmp_path)
    assert with_bound_flags(suite) == suite
    fixed = with_bound_flags(suite, forks=4, iterations=7).settings.for_benchmark("slow_one")
    assert (fixed.forks_min, fixed.forks_max, fixed.iterations, fixed.warmup_max) == (4, 4, 7, 60)
