"""Module-level benchmarks, CamelCase naming, unsupported kinds, an imported class."""
from .params import Sizes  # noqa: F401 - imported, must not be listed under this module too


def time_sum():
    sum(range(50))


def TimeRange():
    for _ in range(20):
        pass


def track_value():
    return 42


def mem_list():
    return [0] * 100


def helper_not_a_benchmark():
    return None
