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


@pytest.mark.parametrize("line, fragment", [
    ('ignore = ["*"]', "would ignore every change"),
    ('ignore = [""]', "must not be empty"),
    ('ignore = "notes/*"', "tuple"),
    ('ignored = ["notes/*"]', "unknown key"),
])
def test_the_affected_table_refuses_patterns_that_hide_every_change(tmp_path, line, fragment):
    from benchwarden.codelevel.settings import AffectedSettings

    path = _write(tmp_path, '[affected]\nignore = ["notes/*", "*.ipynb"]\n')
    assert load_config(path).section("affected", AffectedSettings).ignore == ("notes/*", "*.ipynb")
    path = _write(tmp_path, f"[affected]\n{line}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path).section("affected", AffectedSettings)
    assert f"{path.resolve()}: affected.{line.split(' ')[0]}" in str(info.value) and fragment in str(info.value)


# Every duration and number is validated: nan, inf, zero, negative, absurd or mistyped values are errors that
# name the file and the key, never a run that fails later (nan stored a run `show` could not display; inf left
# a run `running` after an OverflowError; `timeout = 0` failed every fork).
@pytest.mark.parametrize("line, key, fragment", [
    ("iteration_time = nan", "iteration_time", "finite"),
    ("iteration_time = inf", "iteration_time", "finite"),
    ("iteration_time = -inf", "iteration_time", "finite"),
    ("iteration_time = 0", "iteration_time", "greater than zero"),
    ('iteration_time = "0ms"', "iteration_time", "greater than zero"),
    ("iteration_time = -1", "iteration_time", "finite duration >= 0"),
    ('iteration_time = "-1s"', "iteration_time", "duration"),
    ('iteration_time = "1e400s"', "iteration_time", "duration"),
    ('iteration_time = "1000000h"', "iteration_time", "at most 30 days"),
    ("iteration_time = true", "iteration_time", "duration"),
    ("timeout = 0", "timeout", "greater than zero"),
    ("timeout = nan", "timeout", "finite"),
    ('iteration_timeout = "0s"', "iteration_timeout", "greater than zero"),
    ("iteration_timeout = inf", "iteration_timeout", "finite"),
    ("iterations = -3", "iterations", "greater than or equal to 1"),
    ("iterations = true", "iterations", "valid integer"),
    ("iterations = 2.5", "iterations", "valid integer"),
    ("iterations = 10000000000000000000", "iterations", "less than or equal to 1000000"),
    ("forks = { min = 1, max = 1.5 }", "forks.max", "valid integer"),
    ("forks = 2.5", "forks", "expected a whole number or { min = A, max = B }, got 2.5"),
    ('forks = "3"', "forks", "expected a whole number or { min = A, max = B }, got '3'"),
    ("forks = -1", "forks.min", "greater than or equal to 0"),
    ("warmup = { min = -1, max = 2 }", "warmup.min", "greater than or equal to 0"),
    ("criteria = { cv = { threshold = nan } }", "criteria", "finite"),
    ("criteria = { cv = { threshold = inf } }", "criteria", "finite"),
    ("criteria = { kld = { threshold = -0.5 } }", "criteria", "probability"),
    ("criteria = { rciw = { confidence = nan } }", "criteria", "finite"),
    ("criteria = { rciw = { resamples = 1000000000 } }", "criteria", "rciw.resamples"),
    ("criteria = { cv = { window = 100000000 } }", "criteria", "cv.window"),
])
@pytest.mark.parametrize("table", ["defaults", "suites.x", 'suites.x.overrides."Bench"'])
def test_bad_numbers_are_errors_naming_file_and_key(tmp_path, table, line, key, fragment):
    suite = '[suites.x]\nkind = "jmh"\n'
    text = f"[defaults]\n{line}\n{suite}" if table == "defaults" else f"{suite}[{table}]\n{line}\n"
    if table == "suites.x":
        text = f'[suites.x]\nkind = "jmh"\n{line}\n'
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    where = table.replace('"', "")
    assert message.startswith(f"{path.resolve()}: {where}.{key}"), message
    assert fragment in message, message


@pytest.mark.parametrize("line", ['iteration_time = "1day"', 'timeout = "30min"', "iteration_time = 0.05",
                                  "iterations = 1", "criteria = { cv = { threshold = 0 } }"])
def test_sensible_edge_values_are_accepted(tmp_path, line):
    load_config(_write(tmp_path, f'[defaults]\n{line}\n[suites.x]\nkind = "jmh"\n'))


@pytest.mark.parametrize("section, line, fragment", [
    ("check", "reuse = nan", "finite"),
    ("check", 'reuse = "-1h"', "duration"),
    ("check", "alpha = nan", "alpha"),
    ("check", "margin = inf", "margin"),
    ("assess", "slowdown = inf", "finite"),
    ("assess", "slowdown = nan", "finite"),
    ("assess", "budget = 0", "greater than zero"),
    ("assess", "budget = inf", "finite"),
    ("assess", "unstable_cv = inf", "finite"),
    ("compare", "confidence = nan", "confidence"),
    ("compare", "min_change = inf", "fraction"),
    ("compare", 'thresholds = { "x" = nan }', "fraction"),
])
def test_command_sections_reject_non_finite_numbers(tmp_path, section, line, fragment):
    from benchwarden.assess.methods import AssessSettings
    from benchwarden.compare.settings import CompareSettings
    from benchwarden.spl.settings import CheckModel

    model = {"check": CheckModel, "assess": AssessSettings, "compare": CompareSettings}[section]
    path = _write(tmp_path, f"[{section}]\n{line}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path).section(section, model)
    message = str(info.value)
    assert message.startswith(f"{path.resolve()}: {section}.{line.split()[0]}"), message
    assert fragment in message, message


def test_check_reuse_zero_means_never():
    from benchwarden.spl.settings import CheckModel

    assert CheckModel.model_validate({"reuse": 0}).reuse == 0.0


def test_store_location_reads_only_the_store_table_and_agrees_with_load_config(tmp_path):
    from benchwarden.locations import store_location

    path = _write(tmp_path, GOOD)
    assert store_location(path) == load_config(path).store_url == str((tmp_path / "data/results.db").resolve())
    # a problem elsewhere in the file does not stop commands that only need the store
    broken = _write(tmp_path, GOOD + "\n[suites.bad]\nkind = \"nope\"\n")
    assert store_location(broken) == str((tmp_path / "data/results.db").resolve())
    with pytest.raises(ConfigError):
        load_config(broken)
    _write(tmp_path, "[suites.x]\nkind = \"command\"\ncommands = { a = \"true\" }\n")
    assert store_location(path) == load_config(path).store_url == str(tmp_path / ".benchwarden" / "results.db")


@pytest.mark.parametrize("table, key", [("[store]\nurl = 3\n", "store.url"), ("[store]\nurl = \"\"\n", "store.url"),
                                        ("[store]\npath = \"x.db\"\n", "store.path"), ("store = 1\n", "store")])
def test_bad_store_table_names_the_key(tmp_path, table, key):
    from benchwarden.locations import store_location

    path = _write(tmp_path, table)
    for read in (store_location, load_config):
        with pytest.raises(ConfigError) as info:
            read(path)
        assert info.value.key == key, (read, str(info.value))


def test_params_table_becomes_string_values_per_name(tmp_path):
    path = _write(tmp_path, '[suites.j]\nkind = "jmh"\nparams = { size = [10, 100], flag = true, name = "x" }\n')
    assert load_config(path).suites["j"].context.params == {"size": ("10", "100"), "flag": ("true",), "name": ("x",)}
    for bad in ('params = { size = [] }', 'params = { "a,b" = 1 }', 'params = { size = [1.5, nan] }'):
        with pytest.raises(ConfigError) as info:
            load_config(_write(tmp_path, f'[suites.j]\nkind = "jmh"\n{bad}\n'))
        assert "suites.j.params" in str(info.value), bad


def test_param_overrides_from_config_and_command_line_reach_the_listing(tmp_path, monkeypatch):
    """The python example through the real CLI: the table selects, -p wins over it, a typo is an error."""
    import io
    import json
    import shutil

    from benchwarden.cli import main

    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "python", tmp_path / "py",
                    ignore=shutil.ignore_patterns("__pycache__", ".benchwarden"))
    (tmp_path / "py" / "benchwarden.toml").write_text(
        '[suites.py]\nkind = "python"\nbenchmarks = "benchmarks"\npythonpath = ["."]\nparams = { size = 100 }\n')
    monkeypatch.chdir(tmp_path / "py")

    def listed(*argv):
        out, err = io.StringIO(), io.StringIO()
        status = main(["list", "--json", *argv], stdout=out, stderr=err)
        return status, (json.loads(out.getvalue())["benchmarks"] if out.getvalue() else None), err.getvalue()

    status, benchmarks, err = listed()
    assert status == 0, err
    sized = [b["benchmark"] for b in benchmarks if "size=" in b["benchmark"]]
    assert sized and all(k.endswith("[size=100]") for k in sized), sized
    _, benchmarks, _ = listed("-p", "size=1000")
    assert all("size=100]" not in b["benchmark"] for b in benchmarks) and any("size=1000]" in b["benchmark"] for b in benchmarks)
    status, _, err = listed("-p", "sise=1000")
    assert status == 2 and "no benchmark has a parameter named 'sise'" in err


# RunSettings.from_dict reads a stored run's snapshot (or an imported one): checked like the config file
# (an imported run with warmup_max = null made `show` fail with a TypeError deep in the stopping report).
@pytest.mark.parametrize("change, fragment", [
    ({"warmup_max": None}, "warmup_max"), ({"iterations": 0}, "iterations"), ({"forks_max": 2.5}, "forks_max"),
    ({"iteration_time_s": float("nan")}, "iteration_time_s"), ({"timeout_s": -1}, "timeout_s"),
    ({"iteration_time_s": "1s"}, "iteration_time_s"), ({"warmup_min": 9, "warmup_max": 3}, "warmup_min"),
    ({"stop": "magic"}, "stop"), ({"criteria": [{"name": []}]}, "criteria"),
    ({"criteria": [{"name": "cv", "threshold": None}]}, "criteria"), ({"criteria": "cv"}, "criteria"),
    ({"overrides": [{"pattern": "((", "settings": {}}]}, "overrides"),
    ({"overrides": [{"pattern": "x", "settings": {"iterations": -1}}]}, "overrides"), ({"metric": 3}, "metric"),
])
def test_settings_snapshots_are_checked(change, fragment):
    from benchwarden.config import RunSettings

    with pytest.raises(ValueError, match=fragment):
        RunSettings.from_dict({**RunSettings().to_dict(), **change})


def test_settings_snapshots_round_trip(tmp_path):
    from benchwarden.config import RunSettings

    cfg = load_config(_write(tmp_path, GOOD.replace("[suites.p]", '[suites.j.overrides."x"]\niterations = 7\n'
                                                                 "[suites.p]")))
    settings = cfg.suites["j"].settings
    assert RunSettings.from_dict(settings.to_dict()) == settings
    old = RunSettings.from_dict({})  # a snapshot of an older version: the defaults, and the CV those versions used
    assert [c.name for c in old.criteria] == ["cv"] and old.warmup_max == RunSettings().warmup_max


def test_a_whole_number_is_a_range_of_one_value(tmp_path):
    path = _write(tmp_path, '[defaults]\nforks = 3\nwarmup = 0\n[suites.x]\nkind = "jmh"\n')
    settings = load_config(path).suites["x"].settings
    assert (settings.forks_min, settings.forks_max, settings.warmup_min, settings.warmup_max) == (3, 3, 0, 0)


def test_a_junit_suite_builds_its_tests_unless_told_otherwise(tmp_path):
    """Unit tests need compiling: a junit suite without ``build`` gets Maven's test-compile; other kinds stay
    unbuilt (None is what "already built" means to the adapters), and a configured build is kept."""
    cfg = load_config(_write(tmp_path, '[suites.u]\nkind = "junit"\n\n[suites.v]\nkind = "junit"\nbuild = "make t"\n\n'
                                       '[suites.g]\nkind = "go"\n'))
    assert cfg.suites["u"].context.build == ("mvn", "-q", "-B", "test-compile")
    assert cfg.suites["v"].context.build == ("make", "t")
    assert cfg.suites["g"].context.build is None
