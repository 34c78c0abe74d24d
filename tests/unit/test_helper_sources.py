"""Where the helpers' sources are found (environment, installed package, checkout), and that the cache digest
depends only on their content: a copy laid out as the wheel lays it out shares the checkout's build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchwarden.helpers import build as helpers
from benchwarden.helpers.sources import AGENT_DIR, REWRITER_DIR, agent_sources, helper_sources, rewriter_sources

REPO = Path(__file__).resolve().parents[2]


def copy_sources(dest: Path) -> Path:
    """What setup.py does for the wheel: the selected files under the same relative paths."""
    for source in helper_sources(REPO):
        target = dest / source.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return dest


def test_selection_is_the_build_inputs_and_leaves_tests_out():
    agent = [p.relative_to(REPO / AGENT_DIR).as_posix() for p in agent_sources(REPO / AGENT_DIR)]
    assert agent[0] == "pom.xml" and "src/main/java/io/benchwarden/agent/Agent.java" in agent
    assert not any(p.startswith("src/test") or p.startswith("target") for p in agent)
    rewriter = [p.name for p in rewriter_sources(REPO / REWRITER_DIR)]
    assert rewriter[0] == "go.mod" and "main.go" in rewriter
    assert not any(name.endswith("_test.go") for name in rewriter)
    assert not any("testdata" in p.parts for p in rewriter_sources(REPO / REWRITER_DIR))


def test_a_copy_has_the_checkouts_digest_and_an_edit_changes_it(tmp_path):
    copy = copy_sources(tmp_path / "copy")
    for sub, select in ((AGENT_DIR, agent_sources), (REWRITER_DIR, rewriter_sources)):
        assert (helpers.source_digest(copy / sub, select(copy / sub))
                == helpers.source_digest(REPO / sub, select(REPO / sub)))
    (copy / REWRITER_DIR / "main.go").write_text((copy / REWRITER_DIR / "main.go").read_text() + "\n// edited\n")
    assert (helpers.source_digest(copy / REWRITER_DIR, rewriter_sources(copy / REWRITER_DIR))
            != helpers.source_digest(REPO / REWRITER_DIR, rewriter_sources(REPO / REWRITER_DIR)))


def test_the_environment_wins_and_a_wrong_value_is_named(tmp_path, monkeypatch):
    copy = copy_sources(tmp_path / "copy")
    monkeypatch.setenv(helpers.HELPERS_ENV, str(copy))
    assert helpers.source_root() == copy
    monkeypatch.setenv(helpers.HELPERS_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(helpers.HelperMissing, match=f"{helpers.HELPERS_ENV}=.*nowhere.*java/agent/pom.xml"):
        helpers.source_root()


def test_the_installed_copy_comes_before_the_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv(helpers.HELPERS_ENV, raising=False)
    assert helpers.source_root() == REPO  # an editable install: the package has no helpers_src
    shipped = copy_sources(tmp_path / "helpers_src")
    monkeypatch.setattr(helpers, "_installed_root", lambda: shipped)
    assert helpers.source_root() == shipped


def test_without_any_copy_the_message_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv(helpers.HELPERS_ENV, raising=False)
    monkeypatch.setattr(helpers, "__file__", str(tmp_path / "site-packages" / "benchwarden" / "assess" / "helpers.py"))
    with pytest.raises(helpers.HelperMissing, match="reinstall benchwarden from its wheel"):
        helpers.source_root()
