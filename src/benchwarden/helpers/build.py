"""The helpers — the Java agent, the Go rewriter, the JUnit launcher, the JMH CPU-time profiler — built by
benchwarden itself on first use and cached.

Their sources travel with the package: the wheel carries them under ``benchwarden/helpers_src/`` (copied there by
``setup.py``), a source checkout has them at the repository root (``java/agent``, ``go/rewriter``), and
``$BENCHWARDEN_HELPERS`` can point at another tree of that layout. Each build goes to
``$XDG_CACHE_HOME/benchwarden/helpers/<name>-<hash>/``, where the hash covers the relative path and content of every
source file (:mod:`.sources`), so an edited helper is rebuilt, an unchanged one never is, and an installed
copy reuses what a checkout built. The build reads the sources in place and writes only into the cache (the
installed package may be read-only). A file lock serialises concurrent first uses (two test processes, two suites).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.resources
import os
from pathlib import Path
from typing import Iterable

from benchwarden.adapters.process import require_tool, run_build
from benchwarden.errors import BenchwardenError
from benchwarden.helpers.sources import (
    AGENT_DIR,
    JMH_PROFILER_DIR,
    JUNIT_DIR,
    REWRITER_DIR,
    SHIPPED_DIR,
    agent_sources,
    jmh_profiler_sources,
    junit_sources,
    rewriter_sources,
)

HELPERS_ENV = "BENCHWARDEN_HELPERS"
AGENT_JAR = "benchwarden-agent.jar"
JUNIT_JAR = "benchwarden-junit.jar"
REWRITER_BIN = "rewrite"
JMH_PROFILER_CLASS = "io.benchwarden.jmh.CpuTimeProfiler"


class HelperMissing(BenchwardenError):
    """The helper's sources are not where benchwarden looks for them."""


def _has_sources(root: Path) -> bool:
    return ((root / AGENT_DIR / "pom.xml").is_file() and (root / REWRITER_DIR / "go.mod").is_file()
            and (root / JUNIT_DIR / "pom.xml").is_file() and bool(jmh_profiler_sources(root / JMH_PROFILER_DIR)))


def _installed_root() -> Path | None:
    """``benchwarden/helpers_src`` of the installed package, if it is a real folder (Maven and Go need files)."""
    shipped = importlib.resources.files("benchwarden") / SHIPPED_DIR
    return shipped if isinstance(shipped, Path) and _has_sources(shipped) else None


def source_root() -> Path:
    """Directory holding ``java/agent`` and ``go/rewriter``: ``$BENCHWARDEN_HELPERS`` if set, else the copy shipped
    in the installed package, else the source checkout's root (an editable install)."""
    configured = os.environ.get(HELPERS_ENV)
    if configured:
        root = Path(configured)
        if not _has_sources(root):
            raise HelperMissing(f"{HELPERS_ENV}={configured}: the sources of benchwarden's helpers are not there "
                                f"(expected {AGENT_DIR / 'pom.xml'}, {REWRITER_DIR / 'go.mod'}, "
                                f"{JUNIT_DIR / 'pom.xml'} and {JMH_PROFILER_DIR / 'src'})")
        return root
    installed = _installed_root()
    if installed is not None:
        return installed
    checkout = Path(__file__).resolve().parents[3]
    if not _has_sources(checkout):
        raise HelperMissing(f"the sources of benchwarden's helpers are neither in the installed "
                            f"package (benchwarden/{SHIPPED_DIR}) nor in a source checkout ({checkout}); reinstall "
                            f"benchwarden from its wheel, or set {HELPERS_ENV} to a benchwarden source checkout")
    return checkout


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "benchwarden" / "helpers"


def source_digest(root: Path, files: Iterable[Path]) -> str:
    """sha256 over the relative paths and contents of ``files`` (sorted), first 16 hex digits."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(str(path.relative_to(root)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _build_once(name: str, digest: str, product: str, build) -> Path:
    out_dir = cache_dir() / f"{name}-{digest}"
    target = out_dir / product
    if target.is_file():
        return target
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not target.is_file():  # another process may have built it while we waited
                build(out_dir)
                if not target.is_file():
                    raise HelperMissing(f"building {name} did not produce {target}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def _maven_helper(name: str, helper_dir: Path, sources: list[Path], jar: str, user: str, what: str) -> Path:
    """A Maven helper's jar, built once per source digest (``-DskipTests``: its tests run in benchwarden's test
    suite, not on every user's first use); ``user`` names the command that needs it in errors."""
    def build(out_dir: Path) -> None:
        mvn = require_tool("mvn", user, f"Maven builds benchwarden's {what} on first use")
        run_build([mvn, "-q", "-B", "package", "-DskipTests", f"-Dbenchwarden.buildDir={out_dir}"], helper_dir,
                  f"{user} ({what})", timeout_s=900)

    return _build_once(name, source_digest(helper_dir, sources), jar, build)


def agent_jar() -> Path:
    """Path of the self-contained agent jar, built with Maven on first use."""
    agent_dir = source_root() / AGENT_DIR
    return _maven_helper("agent", agent_dir, agent_sources(agent_dir), AGENT_JAR, "assess", "Java agent")


def rewriter_binary() -> Path:
    """Path of the Go source tool (``assess``'s rewriter, the ``gounit`` adapter's test lister and driver writer),
    built with ``go build`` on first use."""
    rewriter_dir = source_root() / REWRITER_DIR
    digest = source_digest(rewriter_dir, rewriter_sources(rewriter_dir))

    def build(out_dir: Path) -> None:
        go = require_tool("go", "go helper", "Go builds benchwarden's Go source tool on first use")
        out_dir.mkdir(parents=True, exist_ok=True)
        run_build([go, "build", "-o", str(out_dir / REWRITER_BIN), "."], rewriter_dir, "benchwarden's Go source tool",
                  timeout_s=600)

    return _build_once("rewriter", digest, REWRITER_BIN, build)


def junit_launcher_jar() -> Path:
    """Path of the JUnit launcher jar (benchwarden's classes only: JUnit comes from the project's test classpath),
    built with Maven on first use."""
    junit_dir = source_root() / JUNIT_DIR
    return _maven_helper("junit", junit_dir, junit_sources(junit_dir), JUNIT_JAR, "junit", "JUnit launcher")


def jmh_profiler_classes(javac: str, jmh_jar: Path, jmh_version: str, env: dict[str, str] | None = None) -> Path:
    """Class folder holding :data:`JMH_PROFILER_CLASS` (``metric = "cpu"`` for JMH suites), compiled with ``javac``
    against ``jmh_jar`` — the suite's benchmarks jar, which holds JMH — once per source digest and JMH version
    (``--release 8``: it loads in any JVM the suite may run on). ``jmh_version`` is the jar's JMH version, or a
    digest of the jar when it does not say."""
    profiler_dir = source_root() / JMH_PROFILER_DIR
    sources = jmh_profiler_sources(profiler_dir)
    digest = source_digest(profiler_dir, sources)
    tag = hashlib.sha256(jmh_version.encode()).hexdigest()[:8]
    relative = Path(*JMH_PROFILER_CLASS.split(".")).with_suffix(".class")

    def build(out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        run_build([javac, "-nowarn", "--release", "8", "-Xlint:-options", "-cp", str(jmh_jar), "-d", str(out_dir),
                   *map(str, sources)], profiler_dir, "metric = \"cpu\" (benchwarden's JMH CPU-time profiler)",
                  env=env, timeout_s=300)

    return _build_once(f"jmh-profiler-{tag}", digest, str(relative), build).parents[len(relative.parts) - 1]
