"""The linters are part of the test suite: ruff (defects, import order) and mypy (the package ships py.typed).

Both are pinned in the dev extra and configured in pyproject.toml; an upgrade is a deliberate commit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(module: str, *args: str, timeout_s: float = 900.0) -> subprocess.CompletedProcess[str]:
    try:
        __import__(module)
    except ImportError:  # pragma: no cover - the dev extra installs both
        pytest.fail(f"{module} is not installed: install the dev extra (pip install -e '.[dev]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout_s)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing():
    cache = ROOT / ".mypy_cache"  # incremental: seconds when little changed, about a minute from scratch
    done = _run("mypy", "--cache-dir", str(cache))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_the_pinned_versions_are_the_ones_running():
    import tomllib

    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    pins = dict(p.split("==") for p in dev if "==" in p)
    import mypy.version

    assert mypy.version.__version__ == pins["mypy"]
    ruff_version = _run("ruff", "--version").stdout.split()[-1]
    assert ruff_version == pins["ruff"]
