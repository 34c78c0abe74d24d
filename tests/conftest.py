"""Fixtures shared by every test folder."""

import os
import shutil
import subprocess

import pytest

from tests.support.postgres import pg_cluster  # noqa: F401 - a session fixture, found by name

#: In CI every toolchain (java, mvn, go, chromium, git, PostgreSQL) must be there: a skip would hide that a
#: whole family of end-to-end tests never ran, so under ``CI=true`` every skip is reported as a failure.
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _keep_go_build_cache() -> None:
    """Pin Go's build cache (``GOCACHE``) to where it is before any test moves ``XDG_CACHE_HOME``.

    Many end-to-end tests point ``XDG_CACHE_HOME`` at a temporary directory so that benchwarden's revision
    worktrees start empty; Go keeps its build cache under ``XDG_CACHE_HOME`` by default, so each of those tests
    also rebuilt Go's standard library: 18 s of a 2-core machine for the example's first ``go test -c``, 0.3 s
    with the cache (measured 2026-11-28).  Go's cache is content-addressed and shared safely between builds,
    so keeping it changes nothing a test checks; benchwarden's own cache stays per test.
    """
    if "GOCACHE" in os.environ or shutil.which("go") is None:
        return
    done = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True)
    if done.returncode == 0 and done.stdout.strip():
        os.environ["GOCACHE"] = done.stdout.strip()


_keep_go_build_cache()

# Output that goes to a file is as wide as the CLI's log width unless COLUMNS says otherwise; several tests read
# that output, so a COLUMNS from the caller's shell (or pytest-xdist's workers) must not narrow it. Tests that
# want a width set it themselves.
os.environ.pop("COLUMNS", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI={os.environ['CI']}), where every toolchain must be present: {reason}"
