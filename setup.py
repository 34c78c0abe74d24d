"""Copies the helpers' sources (Java agent, Go rewriter, JUnit launcher, JMH profiler) into the wheel; the rest is in
pyproject.toml.

The helpers live in their own top-level folders (``java/agent``, ``go/rewriter``, ``java/junit-launcher``: built and
tested with their own tools; ``java/jmh-profiler``: compiled by benchwarden against each suite's JMH, tested by its
e2e tests), outside the ``src/benchwarden`` package, so package-data globs cannot reach them. This build step copies
exactly the files that :mod:`benchwarden.helpers.sources` names — the same selection the build cache's
digest covers — to ``benchwarden/helpers_src/{java/agent,go/rewriter,java/junit-launcher,java/jmh-profiler}`` in the
wheel, where ``benchwarden.helpers.build.source_root()`` finds them. An editable install needs no copy: it finds the
checkout.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _selection():
    # loaded by path: importing the benchwarden package would need its dependencies, absent at build time
    spec = importlib.util.spec_from_file_location("_helper_sources", ROOT / "src/benchwarden/helpers/sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithHelperSources(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        selection = _selection()
        target = Path(self.build_lib) / "benchwarden" / selection.SHIPPED_DIR
        for source in selection.helper_sources(ROOT):
            if not source.is_file():
                raise SystemExit(f"setup.py: helper source {source} is missing; build from a full source tree")
            copy = target / source.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)


setup(cmdclass={"build_py": BuildPyWithHelperSources})
