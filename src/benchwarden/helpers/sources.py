"""Which files are the sources of each helper (Java agent, Go rewriter, JUnit launcher, JMH CPU-time profiler): one
answer for the build cache and the wheel.

The same selection decides what the cache digest covers (:mod:`.helpers`) and what ``setup.py`` copies into the
wheel under ``benchwarden/helpers_src/`` — so a helper built from the installed copy and one built from a source
checkout have the same digest and share one cache entry, and nothing the build reads can be left out of the wheel.

Standard library only: ``setup.py`` loads this file by path while building the wheel, when benchwarden's
dependencies are not installed.
"""

from __future__ import annotations

from pathlib import Path

#: Where the helpers' sources are, relative to a source root (the repository, ``$BENCHWARDEN_HELPERS``, or the
#: ``helpers_src`` folder of the installed package, which mirrors the repository's layout).
AGENT_DIR = Path("java") / "agent"
REWRITER_DIR = Path("go") / "rewriter"
JUNIT_DIR = Path("java") / "junit-launcher"
JMH_PROFILER_DIR = Path("java") / "jmh-profiler"

#: The folder inside the installed ``benchwarden`` package that holds the shipped sources.
SHIPPED_DIR = "helpers_src"


def maven_sources(project_dir: Path) -> list[Path]:
    """A Maven helper's project (the agent, the JUnit launcher): ``pom.xml`` and every file under ``src/main`` (Java
    sources and resources). Its tests (``src/test``) and build output (``target``) are not part of it."""
    main = project_dir / "src" / "main"
    return [project_dir / "pom.xml", *sorted(p for p in main.rglob("*") if p.is_file())]


agent_sources = maven_sources
junit_sources = maven_sources


def jmh_profiler_sources(profiler_dir: Path) -> list[Path]:
    """The JMH profiler: its Java sources only (no build file: benchwarden compiles them with ``javac`` against the
    suite's own benchmarks jar, which holds JMH)."""
    return sorted((profiler_dir / "src" / "main" / "java").rglob("*.java"))


def rewriter_sources(rewriter_dir: Path) -> list[Path]:
    """The rewriter's Go module: ``go.mod``, ``go.sum`` if present, and its non-test ``*.go`` files (one package;
    ``testdata`` and ``*_test.go`` are for its own tests)."""
    module = [rewriter_dir / "go.mod", *([rewriter_dir / "go.sum"] if (rewriter_dir / "go.sum").is_file() else [])]
    return [*module, *sorted(p for p in rewriter_dir.glob("*.go") if not p.name.endswith("_test.go"))]


def helper_sources(root: Path) -> list[Path]:
    """Every source file of every helper under a source root (what the wheel ships)."""
    return [*agent_sources(root / AGENT_DIR), *rewriter_sources(root / REWRITER_DIR), *junit_sources(root / JUNIT_DIR),
            *jmh_profiler_sources(root / JMH_PROFILER_DIR)]
