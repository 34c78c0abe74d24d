"""`--cluster` values: local:N, scheduler addresses, and the usage errors for everything else."""

from __future__ import annotations

import pytest

from benchwarden.cluster.address import ClusterAddress, parse_cluster
from benchwarden.errors import UsageError


@pytest.mark.parametrize("text, expected", [
    ("local:2", ClusterAddress(local_workers=2)),
    ("local:16", ClusterAddress(local_workers=16)),
    ("tcp://10.0.0.5:8786", ClusterAddress(scheduler="tcp://10.0.0.5:8786")),
    ("10.0.0.5:8786", ClusterAddress(scheduler="tcp://10.0.0.5:8786")),
    ("scheduler.lab:8786", ClusterAddress(scheduler="tcp://scheduler.lab:8786")),
    ("tls://[::1]:8786", ClusterAddress(scheduler="tls://[::1]:8786")),
    (" tcp://127.0.0.1:1 ", ClusterAddress(scheduler="tcp://127.0.0.1:1")),
])
def test_accepted_addresses(text, expected):
    assert parse_cluster(text) == expected


@pytest.mark.parametrize("text, message", [
    ("local:0", r"local:N with N a number of workers >= 1"),
    ("local:", r"local:N"),
    ("local:two", r"local:N"),
    ("local", r"local:N"),
    ("", r"expected a scheduler address HOST:PORT"),
    ("10.0.0.5", r"expected a scheduler address HOST:PORT"),
    ("tcp://10.0.0.5:70000", r"expected a scheduler address"),
    ("http://10.0.0.5:8786", r"unknown protocol 'http'"),
    ("tcp://a b:1", r"expected a scheduler address"),
])
def test_bad_addresses_are_usage_errors_naming_the_value(text, message):
    with pytest.raises(UsageError, match=message):
        parse_cluster(text)


def test_resource_name_is_checked_and_kept():
    assert parse_cluster("local:1", resource="gpu-box").resource == "gpu-box"
    with pytest.raises(UsageError, match=r"resource name 'a=1'"):
        parse_cluster("local:1", resource="a=1")


def test_describe_round_trips():
    for text in ("local:3", "tcp://10.0.0.5:8786"):
        assert parse_cluster(parse_cluster(text).describe()) == parse_cluster(text)
