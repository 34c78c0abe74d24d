"""The [compare] table: values, percentages, per-benchmark thresholds, errors naming file and key."""

from __future__ import annotations

import pytest

from benchwarden.compare.settings import CompareSettings, min_pairs_for_rank_test, parse_fraction
from benchwarden.config import load_config
from benchwarden.errors import ConfigError


@pytest.mark.parametrize("value, expected", [(0.02, 0.02), ("2%", 0.02), ("0.05", 0.05), (" 12.5% ", 0.125), (0, 0.0)])
def test_fractions(value, expected):
    assert parse_fraction(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["abc", "150%", -0.1, True, "1"])
def test_bad_fractions(value):
    with pytest.raises(ValueError, match="fraction"):
        parse_fraction(value)


def test_rank_test_minimum_pairs():
    # exact two-sided Mann-Whitney minimum p = 2 / C(2n, n): 0.1 (n=3), 0.0286 (4), 0.0079 (5)
    assert min_pairs_for_rank_test(0.05) == 4
    assert min_pairs_for_rank_test(0.01) == 5
    assert CompareSettings(max_forks=3, min_forks=2).warnings()
    assert not CompareSettings().warnings()


def _config(tmp_path, body: str):
    (tmp_path / "benchwarden.toml").write_text(
        '[suites.s]\nkind = "command"\ncommands = { a = "true" }\n\n' + body, encoding="utf-8")
    return load_config(tmp_path / "benchwarden.toml")


def test_section_is_validated_with_percentages_and_patterns(tmp_path):
    config = _config(tmp_path, '[compare]\nmin_change = "3%"\nmax_forks = 6\nthresholds = { "Noisy" = "15%" }\n')
    settings = config.section("compare", CompareSettings)
    assert settings.min_change == pytest.approx(0.03)
    assert settings.min_change_for("wordstat.bench.NoisyBench.noisy") == pytest.approx(0.15)
    assert settings.min_change_for("wordstat.bench.TopKBench.topK") == pytest.approx(0.03)
    assert settings.design().max_pairs == 6


@pytest.mark.parametrize("body, key", [
    ('[compare]\nmin_change = "lots"\n', "compare.min_change"),
    ('[compare]\nmin_forks = 8\nmax_forks = 5\n', "compare"),
    ('[compare]\nspending = "haybittle"\n', "compare.spending"),
    ('[compare]\nthresholds = { "[" = 0.1 }\n', "compare.thresholds"),
    ('[compare]\nmax_fork = 5\n', "compare.max_fork"),
])
def test_bad_values_name_the_file_and_key(tmp_path, body, key):
    config = _config(tmp_path, body)
    with pytest.raises(ConfigError) as info:
        config.section("compare", CompareSettings)
    assert info.value.key == key
    assert str(tmp_path / "benchwarden.toml") in str(info.value)
