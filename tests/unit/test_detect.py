"""`benchwarden init`: suite detection on the bundled examples, and the written config loads and validates."""

from __future__ import annotations

import io
import shutil
import tomllib
from pathlib import Path

from benchwarden.cli import main
from benchwarden.config import load_config
from benchwarden.detect import detect_suites, render_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _copy_examples(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("target", ".benchwarden", "benchwarden.toml",
                                                                  "__pycache__"))
    return root


def test_detects_each_kind_in_the_examples(tmp_path):
    root = _copy_examples(tmp_path)
    found = {(s.kind, s.path): s for s in detect_suites(root)}
    assert ("jmh", "jmh") in found and ("go", "go") in found and ("python", "python") in found
    jmh = found[("jmh", "jmh")]
    assert jmh.build == "mvn -q -B package -DskipTests" and jmh.artifact == "target/benchmarks.jar"
    assert found[("go", "go")].options["packages"] == ["."]
    assert found[("python", "python")].options["benchmarks"] == "benchmarks"  # from asv.conf.json
    assert len({s.name for s in found.values()}) == len(found)  # unique names


def test_detects_a_prebuilt_benchmarks_jar(tmp_path):
    import zipfile

    (tmp_path / "lib").mkdir()
    with zipfile.ZipFile(tmp_path / "lib" / "benches.jar", "w") as zf:
        zf.writestr("META-INF/BenchmarkList", "")
    with zipfile.ZipFile(tmp_path / "lib" / "other.jar", "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "")
    (suite,) = detect_suites(tmp_path)
    assert (suite.kind, suite.path, suite.artifact, suite.build) == ("jmh", "lib", "benches.jar", None)


def test_written_config_is_valid_and_commented(tmp_path):
    root = _copy_examples(tmp_path)
    text = render_config(detect_suites(root))
    assert text.count("#") > 10  # commented
    tomllib.loads(text)
    (root / "benchwarden.toml").write_text(text)
    config = load_config(root / "benchwarden.toml")
    assert {s.kind for s in config.suites.values()} == {"jmh", "go", "python"}
    assert config.suites["jmh-jmh"].context.root == (root / "jmh").resolve()


def test_init_command_writes_and_refuses_to_overwrite(tmp_path, monkeypatch):
    root = _copy_examples(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root)], stdout=out, stderr=err) == 0
    assert (root / "benchwarden.toml").exists() and "suites found" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["init", str(root)], stdout=out, stderr=err) == 2
    assert "already exists" in err.getvalue() and "--force" in err.getvalue()


def test_empty_repository_gets_a_starting_point(tmp_path):
    text = render_config(detect_suites(tmp_path))
    assert "No suite was detected" in text
    tomllib.loads(text)
