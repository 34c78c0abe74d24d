"""K′ from a Python project's own tests: the sitecustomize written by the injector counts calls in pytest."""

from __future__ import annotations

import subprocess
import sys

from benchwarden.adapters.base import SuiteContext
from benchwarden.assess.inject import PythonInjector
from benchwarden.assess.methods import most_called
from benchwarden.config import RunSettings, Suite


def test_tracing_a_projects_pytest_run_counts_its_public_calls(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text(
        "def often(x):\n    return x + 1\n\ndef rarely(x):\n    return often(x)\n\ndef never():\n    pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mylib.py").write_text(
        "import mylib\n\ndef test_it():\n    for i in range(30):\n        assert mylib.often(i) == i + 1\n"
        "    assert mylib.rarely(1) == 2\n")
    ctx = SuiteContext(name="lib", kind="python", root=tmp_path,
                       options={"benchmarks": "benchmarks", "pythonpath": ["."], "python": sys.executable})
    suite = Suite(ctx, RunSettings())
    injector = PythonInjector()
    assert injector.default_packages(suite, []) == ["mylib"]  # benchmarks and tests are not the library
    tracing = injector.tracing(suite, ["mylib"], tmp_path / "work",
                               (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"))
    out = tmp_path / "work" / "tests-trace"
    test = tracing.test_run(out)
    done = subprocess.run(list(test.argv), cwd=test.cwd, env={**__import__("os").environ, **test.env},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    counts = tracing.read(out)
    assert counts == {"mylib:often": 31, "mylib:rarely": 1, "mylib:never": 0}
    assert most_called(counts, 2) == ["mylib:often", "mylib:rarely"]
