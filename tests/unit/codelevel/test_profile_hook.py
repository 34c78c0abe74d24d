"""The asv worker's profile hook (BENCHWARDEN_PROFILE), run by the real worker on a small asv suite.

Structure, not timing: which call paths exist, how often they were called per benchmark call, and that the
times add up (self = inclusive minus the children's inclusive, exactly, per node). What the probe costs and how
accurate it is by call duration is measured by benchmarks/explain_probe.py, not asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.adapters.asv import WORKER_PATH
from benchwarden.codelevel.profiles import CallTree, ProfileUnreadable, parse_call_tree, read_call_tree

LIB = '''
import json


def busy(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def parse(n):
    return busy(n)


def index(n):
    return sorted(range(n, 0, -1))[0] + busy(n)


def encode(value):
    return "x"


def fact(k):
    return 1 if k <= 1 else k * fact(k - 1)


def api(n):
    parse(n)
    index(n)
    json.dumps({"x": object()}, default=encode)  # the standard library calls back into a profiled function
    return fact(3)
'''

BENCH = '''
import lib


def setup():
    lib.parse(10)  # setup is not part of the benchmark's calls


def time_api():
    lib.api(2000)
'''

ROOT = "benchmarks.bench_lib:time_api"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "benchmarks" / "bench_lib.py").write_text(BENCH)
    return tmp_path


def run(suite: Path, out: Path, inject: dict | None = None, profile: str | None = None,
        number: int = 50) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHWARDEN_")}
    env["PYTHONPATH"] = str(suite)
    env["BENCHWARDEN_PROFILE"] = profile if profile is not None else json.dumps(
        {"v": 1, "modules": ["lib"], "out": str(out)})
    if inject:
        env["BENCHWARDEN_INJECT"] = json.dumps(inject)
    return subprocess.run([sys.executable, str(WORKER_PATH), "run", "--benchmark-dir", str(suite / "benchmarks"),
                           "--module", "benchmarks.bench_lib", "--qualname", "time_api", "--iteration-time-s", "0.1",
                           "--max-iterations", "2", "--number", str(number)],
                          cwd=suite, env=env, capture_output=True, text=True, timeout=120)


def profile(suite: Path, out: Path, **kwargs) -> CallTree:
    done = run(suite, out, **kwargs)
    assert done.returncode == 0, done.stdout + done.stderr
    return read_call_tree(out)


API = (ROOT, "lib:api")


def test_the_call_tree_of_the_benchmark_calls_only(suite, tmp_path):
    tree = profile(suite, tmp_path / "out")
    assert tree.root == ROOT and tree.ops == 100  # 2 iterations of 50 calls, no calibration with --number
    assert set(tree.nodes) == {
        (ROOT,), API, (*API, "lib:parse"), (*API, "lib:parse", "lib:busy"), (*API, "lib:index"),
        (*API, "lib:index", "lib:busy"), (*API, "lib:encode"),  # called from json (not profiled): api's child
        (*API, "lib:fact"), (*API, "lib:fact", "lib:fact"), (*API, "lib:fact", "lib:fact", "lib:fact")}
    for path, node in tree.nodes.items():
        assert node.calls == 100, path  # once per benchmark call: setup's lib.parse is not counted
        children = [n for p, n in tree.nodes.items() if p[:-1] == path]
        assert node.self_ns == node.inclusive_ns - sum(c.inclusive_ns for c in children), path
        assert 0 <= node.self_ns <= node.inclusive_ns
    assert tree.traced_call_ns > 0 and tree.untraced_call_ns >= 0


def test_the_slowdown_is_the_slowed_functions_own_time(suite, tmp_path):
    spec = {"v": 1, "mode": "slowdown", "target": "lib:index", "factor": 3.0}
    tree = profile(suite, tmp_path / "out", inject=spec)
    index = tree.nodes[(*API, "lib:index")]
    assert (*API, "lib:index", "lib:index") not in tree.nodes  # the wrapped call is not a node of its own
    assert index.calls == 100
    # the wait (3 x index's time) is index's own time, not its caller's: api's own time stays far below it
    assert tree.nodes[API].self_ns < 0.5 * index.self_ns


def test_a_malformed_profile_request_is_a_clear_error(suite, tmp_path):
    done = run(suite, tmp_path / "out", profile='{"v": 1, "modules": "lib"}')
    assert done.returncode == 2
    assert "BENCHWARDEN_PROFILE: 'modules' must be a list" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_parse_rejects_what_is_not_a_profile():
    good = {"v": 1, "root": "b:f", "nodes": [[-1, "b:f", 3, 30.0, 10.0], [0, "m:g", 6, 20.0, 20.0]]}
    tree = parse_call_tree(good, "x")
    assert tree.ops == 3 and tree.per_op(("b:f", "m:g"), "calls") == 2
    assert tree.per_op(("b:f", "m:absent"), "self_ns") == 0.0
    for bad, why in (({**good, "v": 2}, "version-1"),
                     ({**good, "nodes": [[0, "m:g", 1, 1, 1]]}, "bad name or parent"),
                     ({**good, "nodes": [[-1, "b:f", 1, 1, 1], [-1, "m:g", 1, 1, 1]]}, "only it, is the root"),
                     ({**good, "root": "b:other"}, "not the root"),
                     ({**good, "nodes": [[-1, "b:f", 0, 0, 0]]}, "never called"),
                     ({**good, "nodes": [[-1, "b:f", 1]]}, "not a profile")):
        with pytest.raises(ProfileUnreadable, match=why):
            parse_call_tree(bad, "where.json")


def test_read_needs_exactly_one_profile(tmp_path):
    with pytest.raises(ProfileUnreadable, match="found 0"):
        read_call_tree(tmp_path)
    (tmp_path / "profile-1.json").write_text("{not json")
    with pytest.raises(ProfileUnreadable, match="profile-1.json"):
        read_call_tree(tmp_path)
