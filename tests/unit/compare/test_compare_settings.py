"""The [compare] table: values, percentages, per-benchmark thresholds, errors naming file and key."""

from __future__ import annotations

import pytest

from benchwarden.compare.settings import CompareSettings, parse_fraction
from benchwarden.config import load_config
from benchwarden.errors import ConfigError


@pytest.mark.parametrize("value, expected", [(0.02, 0.02), ("2%", 0.02), ("0.05", 0.05), (" 12.5% ", 0.125), (0, 0.0)])
def test_fractions(value, expected):
    assert parse_fraction(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["abc", "150%", -0.1, True, "1"])
def test_bad_fractions(value):
    with pytest.raises(ValueError, match="fraction"):
        parse_fraction(value)


def test_defaults_and_up_front_warnings():
    settings = CompareSettings()
    assert (settings.min_change, settings.confidence, settings.equivalence_confidence) == (0.03, 0.995, 0.95)
    assert (settings.min_forks, settings.max_forks) == (4, 20)
    assert CompareSettings(max_forks=4, min_forks=2).warnings()  # an outlying fork could never be left out
    assert not settings.warnings()


@pytest.mark.parametrize("key", ["noise_floor", "n_resamples"])
def test_removed_keys_are_refused_with_the_reason(tmp_path, key):
    config = _config(tmp_path, f"[compare]\n{key} = true\n" if key == "noise_floor" else f"[compare]\n{key} = 2000\n")
    with pytest.raises(ConfigError, match=f"{key} was removed"):
        config.section("compare", CompareSettings)


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
