"""Under CI=true a skipped test (a missing toolchain) is a failure: tests/conftest.py's report hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _inner(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    test = tmp_path / "test_needs_a_tool.py"
    test.write_text("import pytest\n\ndef test_needs_a_tool():\n    pytest.skip(\"'nosuchtool' is not on PATH\")\n")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
                           "--rootdir", str(tmp_path), "-c", os.devnull, str(test)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_skip_fails_in_ci(tmp_path, ci):
    done = _inner(tmp_path, ci)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "every toolchain must be present" in done.stdout
    assert "'nosuchtool' is not on PATH" in done.stdout


def test_a_skip_stays_a_skip_outside_ci(tmp_path):
    done = _inner(tmp_path, None)
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout + done.stderr
