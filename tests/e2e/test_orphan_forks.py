"""`kill -9` of benchwarden mid-fork: the hung fork keeps running (its own session); `run --resume` ends it.

A real `benchwarden run` process on a command suite whose benchmark hangs the first time it runs (and starts a
child of its own); SIGKILL reaches only benchwarden.  The resumed run must end the leftover fork and its child
before running, say so, and finish the run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.processes import eventually, is_alive

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")]

STUCK = """
import os, subprocess, sys, time
if os.path.exists("first.pid"):
    sys.exit(0)  # the resumed run: done at once
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open("first.pid.tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
os.rename("first.pid.tmp", "first.pid")
time.sleep(600)  # hung
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "stuck.py").write_text(STUCK)
    (tmp_path / "benchwarden.toml").write_text(f"""
[suites.hang]
kind = "command"
commands = {{ stuck = ["{sys.executable}", "stuck.py"] }}
iteration_time = "10ms"
warmup = {{ min = 0, max = 0 }}
iterations = 1
forks = {{ min = 1, max = 1 }}
stop = "static"
timeout = "1h"
iteration_timeout = "1h"
""")
    yield tmp_path
    pids = (tmp_path / "first.pid").read_text().split() if (tmp_path / "first.pid").exists() else []
    for pid in pids:  # never leave a sleeper behind, whatever happened
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def _bw(project: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchwarden", "run", "--store", str(project / "r.db"), *args],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def test_resume_ends_a_fork_left_running_by_kill_9(project):
    first = _bw(project, "--quiet")
    assert eventually(lambda: (project / "first.pid").exists() or first.poll() is not None, timeout_s=180), \
        "the benchmark never started"
    assert first.poll() is None, first.stdout.read().decode(errors="replace")
    fork_pid, child_pid = (int(p) for p in (project / "first.pid").read_text().split())
    os.kill(first.pid, signal.SIGKILL)  # benchwarden only: `kill -9 <pid>`
    first.communicate(timeout=60)
    time.sleep(1.0)
    assert is_alive(fork_pid) and is_alive(child_pid), "precondition: the fork outlives a killed benchwarden"

    resumed = _bw(project, "--resume")
    out = resumed.communicate(timeout=600)[0].decode(errors="replace")
    assert resumed.returncode == 0, out
    assert "hang:stuck fork 1 was still running: ended" in out, out
    assert eventually(lambda: not is_alive(fork_pid) and not is_alive(child_pid), timeout_s=10)
    assert "run 1: complete" in out, out
