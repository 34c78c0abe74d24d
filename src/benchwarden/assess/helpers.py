"""The Java agent and the Go rewriter, built by benchwarden itself on first use and cached.

Sources live in the repository next to the package (``java/agent``, ``go/rewriter``; or under
``$BENCHWARDEN_HELPERS``). Each build goes to ``$XDG_CACHE_HOME/benchwarden/helpers/<name>-<hash>/``,
where the hash covers every source file, so an edited helper is rebuilt and an unchanged one never is.
A file lock serialises concurrent first uses (two test processes, two suites).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from pathlib import Path
from typing import Iterable

from benchwarden.adapters.process import require_tool, run_build
from benchwarden.errors import BenchwardenError

HELPERS_ENV = "BENCHWARDEN_HELPERS"
AGENT_JAR = "benchwarden-agent.jar"
REWRITER_BIN = "rewrite"


class HelperMissing(BenchwardenError):
    """The helper's sources are not where benchwarden looks for them."""


def source_root() -> Path:
    """Directory holding ``java/agent`` and ``go/rewriter``: ``$BENCHWARDEN_HELPERS``, else the repository root."""
    configured = os.environ.get(HELPERS_ENV)
    root = Path(configured) if configured else Path(__file__).resolve().parents[3]
    if not (root / "java" / "agent" / "pom.xml").is_file() or not (root / "go" / "rewriter" / "go.mod").is_file():
        raise HelperMissing(f"the sources of benchwarden's Java agent and Go rewriter are not in {root} "
                            f"(expected java/agent/pom.xml and go/rewriter/go.mod); set {HELPERS_ENV} to the "
                            f"benchwarden source checkout")
    return root


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


def _agent_sources(agent_dir: Path) -> list[Path]:
    return [agent_dir / "pom.xml", *sorted((agent_dir / "src" / "main").rglob("*.java"))]


def _rewriter_sources(rewriter_dir: Path) -> list[Path]:
    return [rewriter_dir / "go.mod", *sorted(p for p in rewriter_dir.glob("*.go") if not p.name.endswith("_test.go"))]


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


def agent_jar() -> Path:
    """Path of the self-contained agent jar, built with Maven on first use (``-DskipTests``: its tests
    run in benchwarden's test suite, not on every user's first assess)."""
    agent_dir = source_root() / "java" / "agent"
    digest = source_digest(agent_dir, _agent_sources(agent_dir))

    def build(out_dir: Path) -> None:
        mvn = require_tool("mvn", "assess", "Maven builds benchwarden's Java agent on first use")
        run_build([mvn, "-q", "-B", "package", "-DskipTests", f"-Dbenchwarden.buildDir={out_dir}"], agent_dir,
                  "assess (java agent)", timeout_s=900)

    return _build_once("agent", digest, AGENT_JAR, build)


def rewriter_binary() -> Path:
    """Path of the Go rewriter binary, built with ``go build`` on first use."""
    rewriter_dir = source_root() / "go" / "rewriter"
    digest = source_digest(rewriter_dir, _rewriter_sources(rewriter_dir))

    def build(out_dir: Path) -> None:
        go = require_tool("go", "assess", "Go builds benchwarden's source rewriter on first use")
        out_dir.mkdir(parents=True, exist_ok=True)
        run_build([go, "build", "-o", str(out_dir / REWRITER_BIN), "."], rewriter_dir, "assess (go rewriter)",
                  timeout_s=600)

    return _build_once("rewriter", digest, REWRITER_BIN, build)
