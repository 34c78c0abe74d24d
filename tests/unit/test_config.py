"""benchwarden.toml: discovery, resolution, and errors that name file, key and expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.config import find_config, load_config
from benchwarden.errors import ConfigError


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "benchwarden.toml"
    p.write_text(text)
    return p


GOOD = """
[store]
url = "data/results.db"

[defaults]
iteration_time = "200ms"
warmup = { min = 1, max = 4 }
iterations = 3
forks = { min = 1, max = 2 }

[suites.j]
kind = "jmh"
build = "mvn -q package -DskipTests"
artifact = "target/benchmarks.jar"
jvm_args = ["-Xmx256m"]
forks = { min = 2, max = 3 }

[suites.p]
kind = "python"
benchmarks = "benchmarks"
pythonpath = ["."]
env = { A = "1" }
"""


def test_resolves_defaults_overrides_and_paths(tmp_path):
    cfg = load_config(_write(tmp_path, GOOD))
    assert cfg.store_url == str((tmp_path / "data/results.db").resolve())
    j, p = cfg.suites["j"], cfg.suites["p"]
    assert j.context.build == ("mvn", "-q", "package", "-DskipTests")
    assert j.context.jvm_args == ("-Xmx256m",) and j.context.root == tmp_path.resolve()
    assert (j.settings.forks_min, j.settings.forks_max) == (2, 3)  # suite override
    assert (p.settings.forks_min, p.settings.forks_max) == (1, 2)  # defaults
    assert j.settings.iteration_time_s == pytest.approx(0.2) and j.settings.warmup_max == 4
    assert p.context.options == {"benchmarks": "benchmarks", "pythonpath": ["."]}
    assert p.context.env == {"A": "1"}
    assert [s.name for s in cfg.select(["p"])] == ["p"]
    with pytest.raises(ConfigError, match="no suite named 'zzz'"):
        cfg.select(["zzz"])


def test_found_from_a_subdirectory(tmp_path):
    path = _write(tmp_path, GOOD)
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert find_config(sub) == path


def test_missing_config_says_how_to_create_one(tmp_path):
    with pytest.raises(ConfigError, match="benchwarden init"):
        find_config(tmp_path)


@pytest.mark.parametrize("text, key, fragment", [
    ('[suites.x]\nkind = "cobol"\n', "suites.x.kind", "unknown suite kind 'cobol'"),
    ('[suites.x]\nkind = "jmh"\nforks = { min = 3, max = 2 }\n', "suites.x.forks", "must not exceed max"),
    ('[suites.x]\nkind = "jmh"\niteration_time = "fast"\n', "suites.x.iteration_time", "duration"),
    ('[suites.x]\nkind = "jmh"\niterations = 0\n', "suites.x.iterations", "greater than or equal to 1"),
    ('[suites.x]\nkind = "go"\nartefact = "x"\n', "suites.x", "unknown key(s) artefact"),
    ('[suites.x]\npath = "."\n', "suites.x.kind", "required key is missing"),
    ('[suites.x]\nkind = "jmh"\nfilter = "(("\n', "suites.x.filter", "regular expression"),
    ('[defaults]\nstop = "magic"\n', "defaults.stop", "unknown stop policy"),
    ('[bogus]\na = 1\n', "bogus", "unknown key"),
    ('[suites.x]\nkind = "jmh"\npath = "nowhere"\n', "suites.x.path", "does not exist"),
])
def test_errors_name_file_key_and_expectation(tmp_path, text, key, fragment):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path.resolve())), message
    assert f": {key}: " in message, message
    assert fragment in message, message


def test_toml_syntax_error_points_at_line(tmp_path):
    path = _write(tmp_path, "[suites.x]\nkind = \n")
    with pytest.raises(ConfigError, match=r"not valid TOML: .*line 2"):
        load_config(path)


def test_command_sections_are_validated_by_their_owner(tmp_path):
    from pydantic import BaseModel, ConfigDict

    class CompareSettings(BaseModel):
        model_config = ConfigDict(extra="forbid")
        min_change: float = 0.02

    path = _write(tmp_path, "[compare]\nmin_change = 0.05\n")
    assert load_config(path).section("compare", CompareSettings).min_change == 0.05
    path = _write(tmp_path, "[compare]\nmin_change = \"big\"\n")
    with pytest.raises(ConfigError) as info:
        load_config(path).section("compare", CompareSettings)
    assert f"{path.resolve()}: compare.min_change: " in str(info.value)
