"""The standalone asv worker, run as a real subprocess against the fixture suites in tests/data/asv/.

Also its pure helpers (calibration, asv's parameter rules), imported from the script itself.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.adapters import asv_worker
from benchwarden.adapters.asv import WORKER_PATH

DATA = Path(__file__).resolve().parents[2] / "data" / "asv"
BASIC = DATA / "basic"
FAULTY = DATA / "faulty"


def run_worker(suite: Path, *args: str, env: dict[str, str] | None = None, timeout_s: float = 60.0):
    """Run the worker under this interpreter; returns (protocol messages, stderr, exit status)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run([sys.executable, str(WORKER_PATH), *args], cwd=suite, env=full_env,
                          capture_output=True, text=True, timeout=timeout_s)
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    return messages, done.stderr, done.returncode


def run_one(suite: Path, module: str, qualname: str, params: list[str] | None = None, iterations: int = 2,
            iteration_time_s: float = 0.02, env: dict[str, str] | None = None):
    return run_worker(suite, "run", "--benchmark-dir", "benchmarks", "--module", module, "--qualname", qualname,
                      "--params", json.dumps(params or []), "--iteration-time-s", str(iteration_time_s),
                      "--max-iterations", str(iterations), env=env)


@pytest.fixture(scope="module")
def basic_listing():
    messages, _, rc = run_worker(BASIC, "list", "--benchmark-dir", "benchmarks")
    assert rc == 0
    assert len(messages) == 1 and messages[0]["v"] == 1
    return messages[0]


def entry(listing, name):
    matches = [b for b in listing["benchmarks"] if b["name"] == name]
    assert len(matches) == 1, f"{name} listed {len(matches)} times"
    return matches[0]


# --------------------------------------------------------------------------- listing


def test_list_finds_functions_methods_camelcase_and_nested_modules(basic_listing):
    names = [b["name"] for b in basic_listing["benchmarks"]]
    assert names == sorted([
        "attrs.Cached.time_uses_cache", "attrs.time_pretty", "custom.name_of_benchmark",
        "nested.deeper.leaf.Leaf.time_leaf", "params.Single.time_pow", "params.Sizes.time_sum",
        "params.Skipping.time_mode", "simple.TimeRange", "simple.time_sum",
    ])


def test_list_does_not_repeat_imported_classes_and_reports_unsupported_kinds(basic_listing):
    names = {b["name"] for b in basic_listing["benchmarks"]}
    assert "simple.Sizes.time_sum" not in names  # simple.py imports Sizes from params.py
    assert basic_listing["unsupported"] == ["simple.mem_list", "simple.track_value"]


def test_list_params_follow_asv_rules(basic_listing):
    sizes = entry(basic_listing, "params.Sizes.time_sum")
    assert sizes["param_names"] == ["n", "tag"]
    assert sizes["param_values"] == [["10", "100"], ["'a'", "'b'"]]  # repr: strings keep their quotes
    single = entry(basic_listing, "params.Single.time_pow")
    assert single["param_names"] == ["param1"]  # asv's default name for a flat params list
    assert single["param_values"] == [["1", "2", "3"]]
    assert entry(basic_listing, "simple.time_sum")["param_values"] == []


def test_list_reports_attributes(basic_listing):
    cached = entry(basic_listing, "attrs.Cached.time_uses_cache")
    assert (cached["number"], cached["timeout_s"]) == (7, 30.0)
    assert entry(basic_listing, "attrs.time_pretty")["pretty_name"] == "A pretty benchmark"
    renamed = entry(basic_listing, "custom.name_of_benchmark")
    assert (renamed["module"], renamed["qualname"]) == ("benchmarks.attrs", "time_renamed")


def test_list_reports_an_unimportable_module_with_its_traceback():
    messages, _, rc = run_worker(DATA / "broken", "list", "--benchmark-dir", "benchmarks")
    assert rc == 1
    (msg,) = messages
    assert "benchmarks.bad_import" in msg["error"] and "ModuleNotFoundError" in msg["error"]
    assert "bad_import.py" in msg["traceback"]


def test_missing_benchmark_directory_is_a_usage_error(tmp_path):
    messages, _, rc = run_worker(tmp_path, "list", "--benchmark-dir", "nope")
    assert rc == 2
    assert "does not exist" in messages[0]["error"]


# --------------------------------------------------------------------------- running


def test_run_streams_one_line_per_iteration_with_a_calibrated_batch():
    target_s = 0.03
    messages, _, rc = run_one(BASIC, "benchmarks.params", "Sizes.time_sum", ["100", "'b'"], iterations=3,
                              iteration_time_s=target_s)
    assert rc == 0
    assert [m["iteration"] for m in messages] == [1, 2, 3]
    batches = {m["ops"] for m in messages}
    assert len(batches) == 1 and batches.pop() > 100  # sum of 100 ints takes ~1 us: many calls per batch
    for m in messages:
        assert m["ns_per_op"] == pytest.approx(m["elapsed_ns"] / m["ops"])
        # calibrated to ~30 ms. The bounds are wide because calibration runs while the interpreter is cold:
        # on a loaded 2-core machine a batch calibrated slow then ran ~9x faster (3.3 ms) in a CI dry run.
        assert 0.05 * target_s * 1e9 < m["elapsed_ns"] < 20 * target_s * 1e9


def test_setup_and_teardown_run_outermost_first_with_the_parameters_before_every_iteration(tmp_path):
    log = tmp_path / "log.txt"
    messages, _, rc = run_one(BASIC, "benchmarks.params", "Sizes.time_sum", ["10", "'a'"], iterations=2,
                              env={"BW_TEST_LOG": str(log)})
    assert rc == 0 and len(messages) == 2
    setup = ["module-setup 10 a", "class-setup 10 a"]
    teardown = ["class-teardown 10 a", "module-teardown 10 a"]
    # first setup (calibration), then teardown + setup before each of the 2 iterations, final teardown
    assert log.read_text().splitlines() == setup + (teardown + setup) * 2 + teardown


def test_not_implemented_error_in_setup_skips_the_combination():
    messages, _, rc = run_one(BASIC, "benchmarks.params", "Skipping.time_mode", ["'unsupported'"])
    assert rc == 0
    assert messages == [{"v": 1, "skip": "mode 'unsupported' is not available here"}]
    ok, _, rc = run_one(BASIC, "benchmarks.params", "Skipping.time_mode", ["'fast'"])
    assert rc == 0 and [m["iteration"] for m in ok] == [1, 2]


def test_setup_cache_runs_once_and_number_fixes_the_batch(tmp_path):
    log = tmp_path / "log.txt"
    messages, _, rc = run_one(BASIC, "benchmarks.attrs", "Cached.time_uses_cache", iterations=3,
                              env={"BW_TEST_LOG": str(log)})
    assert rc == 0
    assert [m["ops"] for m in messages] == [7, 7, 7]
    assert log.read_text().splitlines() == ["setup-cache"]


def test_user_output_on_stdout_goes_to_stderr_not_into_the_protocol():
    messages, stderr, rc = run_one(FAULTY, "benchmarks.faults", "time_prints_garbage", iterations=2)
    assert rc == 0
    assert [m["iteration"] for m in messages] == [1, 2]  # json.loads of every stdout line succeeded
    assert "garbage printed at import time" in stderr
    assert "this is not JSON {" in stderr and "raw bytes to fd 1" in stderr
    assert '"iteration":99' in stderr  # the fake protocol line the benchmark printed


def test_a_raising_benchmark_is_reported_with_the_users_traceback_only():
    messages, _, rc = run_one(FAULTY, "benchmarks.faults", "time_raises")
    assert rc == 1
    (msg,) = messages
    assert msg["error"] == "ValueError: boom from the benchmark"
    assert "faults.py" in msg["traceback"] and "asv_worker.py" not in msg["traceback"]


def test_sys_exit_in_a_benchmark_is_an_error_not_a_silent_exit():
    messages, _, rc = run_one(FAULTY, "benchmarks.faults", "time_exits")
    assert rc == 1
    assert messages[0]["error"] == "SystemExit: 3"


def test_a_hanging_benchmark_reports_nothing_and_keeps_running_until_killed():
    proc = subprocess.Popen(
        [sys.executable, str(WORKER_PATH), "run", "--benchmark-dir", "benchmarks", "--module", "benchmarks.faults",
         "--qualname", "time_hangs", "--iteration-time-s", "0.02", "--max-iterations", "2"],
        cwd=FAULTY, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=1.0)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=10)
    assert out == b""  # no iteration, no error: detecting the hang is the adapter's job


@pytest.mark.parametrize(("params", "expected"), [
    (["1000", "'a'"], "parameter 'n' has no value 1000 (values: 10, 100)"),
    (["10"], "expected 2 parameter values, got 1"),
])
def test_unknown_parameter_values_are_rejected_with_the_valid_ones(params, expected):
    messages, _, rc = run_one(BASIC, "benchmarks.params", "Sizes.time_sum", params)
    assert rc == 2
    assert expected in messages[0]["error"]


def test_unknown_benchmark_is_rejected():
    messages, _, rc = run_one(BASIC, "benchmarks.params", "Nope.time_x")
    assert rc == 2
    assert "has no attribute 'Nope'" in messages[0]["error"]


def test_worker_imports_only_the_standard_library():
    """It runs under the user's interpreter, where benchwarden and its dependencies may be missing."""
    tree = ast.parse(WORKER_PATH.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}


# --------------------------------------------------------------------------- pure helpers


def test_calibration_scales_the_batch_to_the_target_time():
    cost_ns = 250.0
    calls = []

    def time_batch_ns(batch):
        calls.append(batch)
        return batch * cost_ns

    batch = asv_worker.calibrate_batch(time_batch_ns, target_ns=50e6)
    assert batch == pytest.approx(50e6 / cost_ns, rel=1e-6)
    assert calls[0] == 1 and calls == sorted(calls)
    # calibration itself stays cheap: its batches sum to well under the target
    assert sum(calls) * cost_ns < 0.5 * 50e6


def test_calibration_runs_a_slow_function_once_per_batch():
    assert asv_worker.calibrate_batch(lambda batch: batch * 2e9, target_ns=0.2e9) == 1


def test_calibration_survives_a_zero_clock_reading():
    assert asv_worker.calibrate_batch(lambda batch: max(1, batch // 1000), target_ns=1e6) >= 1


@pytest.mark.parametrize(("params", "names", "expected"), [
    ([1, 2], None, (["param1"], [[1, 2]])),
    ([[1, 2], ["a"]], ["n", "s"], (["n", "s"], [[1, 2], ["a"]])),
    ((("x", "y"),), ["only"], (["only"], [["x", "y"]])),
    ([], None, ([], [])),
])
def test_params_normalisation_follows_asv(params, names, expected):
    assert asv_worker.normalise_params("b", params, names) == expected


@pytest.mark.parametrize(("params", "names", "message"), [
    ([[1], [2]], ["a"], "param_names has 1 names but params has 2"),
    ([1, 1.0], None, None),  # repr differs: 1 vs 1.0, allowed
    (["a", "a"], None, "not unique"),
    ("abc", None, "params must be a list"),
])
def test_params_normalisation_rejects_inconsistent_declarations(params, names, message):
    if message is None:
        asv_worker.normalise_params("b", params, names)
        return
    with pytest.raises(asv_worker.WorkerError, match=message):
        asv_worker.normalise_params("b", params, names)


def test_param_repr_removes_memory_addresses():
    class Thing:
        pass

    shown = asv_worker.param_repr(Thing())
    assert " at 0x" not in shown and shown.endswith("Thing object>")
    assert asv_worker.param_repr("hash") == "'hash'" and asv_worker.param_repr(100) == "100"



def test_a_huge_exception_message_keeps_the_protocol_line_short_and_whole(tmp_path):
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "loud.py").write_text("def time_raises():\n    raise ValueError('x' * 20_000_000 + 'the end')\n")
    messages, _, rc = run_one(tmp_path, "benchmarks.loud", "time_raises")
    assert rc == 1
    (msg,) = [m for m in messages if "error" in m]  # one protocol line, still valid JSON
    assert msg["error"].startswith("ValueError: xxx") and msg["error"].endswith("the end")
    assert len(msg["error"]) < 5000 and len(msg["traceback"]) < 17000 and "characters ..." in msg["error"]
