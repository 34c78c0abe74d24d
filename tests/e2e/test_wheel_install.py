"""benchwarden as a user gets it: the sdist and the wheel built from it (``python -m build``, as a release is
made), installed into a fresh venv, and its console script run from a folder outside the repository on copies of
the examples — ``run`` (and ``site build`` of its store), ``compare`` and ``check`` on the Python example, ``assess`` on the Go example (the Go
rewriter built from the copy of its sources inside the wheel, into an empty cache), ``audit`` on the JMH example.

Dependencies come from the package index through pip's cache. The shortest settings the CLI accepts keep the
whole module near two minutes on a loaded 2-core machine; the assertions are on outcomes (exit statuses, JSON
fields, files built), never on timing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchwarden.helpers.build import REWRITER_BIN, source_digest
from benchwarden.helpers.sources import AGENT_DIR, REWRITER_DIR, agent_sources, helper_sources, rewriter_sources

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("go") is None, reason="the Go toolchain ('go') is not on PATH"),
]

REPO = Path(__file__).resolve().parents[2]

#: Checkout digests of the helpers: the installed copy must have the same, so a build is shared between them.
AGENT_DIGEST = source_digest(REPO / AGENT_DIR, agent_sources(REPO / AGENT_DIR))
REWRITER_DIGEST = source_digest(REPO / REWRITER_DIR, rewriter_sources(REPO / REWRITER_DIR))


@dataclass(frozen=True)
class Installed:
    venv: Path
    env: dict[str, str]
    work: Path   # outside the repository: copies of the examples go here
    cache: Path  # XDG_CACHE_HOME of every command: empty at first, so the helpers are built from the wheel's copy

    def benchwarden(self, cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.venv / "bin" / "benchwarden"), *args], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def example(self, name: str) -> Path:
        """A fresh copy of ``examples/<name>`` (each test its own: its own store)."""
        copy = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.work)) / name
        shutil.copytree(REPO / "examples" / name, copy,
                        ignore=shutil.ignore_patterns(".benchwarden", "target", "bin", "__pycache__"))
        return copy


def _ok(done: subprocess.CompletedProcess, what: str) -> None:
    assert done.returncode == 0, f"{what} exited {done.returncode}\nstdout:\n{done.stdout[-3000:]}\n" \
                                 f"stderr:\n{done.stderr[-3000:]}"


def _user_env(venv: Path, cache: Path) -> dict[str, str]:
    """The test's environment as a user's shell would have it after activating the venv: nothing of the
    developer's venv or checkout, an empty cache for benchwarden, and Go's own build cache kept (it lives under
    XDG_CACHE_HOME by default, and rebuilding the standard library would only cost time)."""
    gocache = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "BENCHWARDEN_HELPERS")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               XDG_CACHE_HOME=str(cache), GOCACHE=gocache, COLUMNS="200")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    assert not tmp.resolve().is_relative_to(REPO), f"{tmp} must be outside the repository"
    dist = tmp / "dist"
    _ok(subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], capture_output=True,
                       text=True, timeout=300), "python -m build")
    [wheel] = dist.glob("benchwarden-*.whl")
    shipped = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("benchwarden/helpers_src/")}
    assert shipped == {f"benchwarden/helpers_src/{p.relative_to(REPO).as_posix()}" for p in helper_sources(REPO)}
    venv = tmp / "venv"
    _ok(subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=120),
        "python -m venv")
    _ok(subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile",
                        "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=600),
        "pip install of the wheel")
    work, cache = tmp / "work", tmp / "cache"
    work.mkdir()
    cache.mkdir()
    return Installed(venv=venv, env=_user_env(venv, cache), work=work, cache=cache)


def test_the_installed_package_finds_the_helper_sources_it_ships(installed):
    probe = ("import json, benchwarden\n"
             "from benchwarden.helpers import build as helpers\n"
             "from benchwarden.helpers.sources import AGENT_DIR, REWRITER_DIR, agent_sources, rewriter_sources\n"
             "root = helpers.source_root()\n"
             "print(json.dumps({'package': benchwarden.__file__, 'root': str(root),\n"
             "  'agent': helpers.source_digest(root / AGENT_DIR, agent_sources(root / AGENT_DIR)),\n"
             "  'rewriter': helpers.source_digest(root / REWRITER_DIR, rewriter_sources(root / REWRITER_DIR))}))\n")
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c", probe], cwd=installed.work,
                          env=installed.env, capture_output=True, text=True, timeout=120)
    _ok(done, "the probe")
    found = json.loads(done.stdout)
    package = Path(found["package"]).parent
    assert package.is_relative_to(installed.venv) and package.name == "benchwarden", found
    assert Path(found["root"]) == package / "helpers_src"
    # content-based: a helper built from a checkout is reused by the installed package, and the other way round
    assert (found["agent"], found["rewriter"]) == (AGENT_DIGEST, REWRITER_DIGEST)


def test_run_on_the_python_example(installed):
    copy = installed.example("python")
    done = installed.benchwarden(copy, "run", "--json", "-q", "--suite", "wordstat", "--filter",
                                 r"time_tokenize|time_count_hash", "--stop", "static", "--forks", "1", "--warmup",
                                 "0", "--iterations", "2", "--iteration-time", "20ms")
    _ok(done, "run")
    result = json.loads(done.stdout)
    assert result["status"] == "complete" and result["failed_suites"] == {}
    benchmarks = {b["benchmark"]: b for b in result["benchmarks"]}
    assert set(benchmarks) == {"bench_wordstat.CountWords.time_count_hash",
                               "bench_wordstat.Tokenize.time_tokenize[size=100]",
                               "bench_wordstat.Tokenize.time_tokenize[size=1000]",
                               "bench_wordstat.Tokenize.time_tokenize[size=10000]"}
    for b in benchmarks.values():
        assert (b["status"], b["forks"], b["measurement_iterations"]) == ("ok", 1, 2), b
        assert b["mean_ns_per_op"] > 0
    assert (benchmarks["bench_wordstat.Tokenize.time_tokenize[size=1000]"]["mean_ns_per_op"]
            > benchmarks["bench_wordstat.Tokenize.time_tokenize[size=100]"]["mean_ns_per_op"])
    assert (copy / ".benchwarden" / "results.db").is_file()
    # the site of that store: templates, site.js and plotly's plotly.min.js come from the installed packages
    done = installed.benchwarden(copy, "site", "build", "-o", "site")
    _ok(done, "site build")
    site = copy / "site"
    assert (site / "assets" / "plotly.min.js").stat().st_size > 1_000_000 and (site / "assets" / "site.js").is_file()
    assert len(list(site.glob("benchmarks/*.html"))) == 4 and len(list(site.glob("methods/*.html"))) == 2
    assert "bench_wordstat.Tokenize.time_tokenize[size=1000]" in (site / "index.html").read_text(encoding="utf-8")


def test_compare_a_against_a_on_the_python_example(installed):
    copy = installed.example("python")
    done = installed.benchwarden(copy, "compare", "--json", "-q", "--variant-env", "BENCHWARDEN_AA=1", "--suite",
                                 "wordstat", "--filter", r"time_tokenize\[size=100\]", "--min-forks", "2",
                                 "--max-forks", "3", "--warmup", "0", "--iterations", "3", "--iteration-time", "20ms")
    _ok(done, "compare")  # exit 1 would be a regression found between identical versions
    result = json.loads(done.stdout)
    assert result["gate"] == "pass" and result["failed_suites"] == {}
    [bench] = result["benchmarks"]
    assert bench["verdict"] != "slower", bench
    assert bench["forks"]["base"] == bench["forks"]["candidate"] >= 2
    report = Path(result["report"]) if isinstance(result["report"], str) else None
    assert report is not None and report.is_file() and "<svg" in report.read_text(encoding="utf-8")


SPL = """\
# tokenize is linear in the words: 1000 of them cost far more than twice 100 (holds)...
Tokenize.time_tokenize(1000) >= 2 * Tokenize.time_tokenize(100)
# ...and certainly not less than half of 100 (fails)
Tokenize.time_tokenize(1000) <= 0.5 * Tokenize.time_tokenize(100)
"""


def test_check_on_the_python_example_says_holds_and_fails(installed):
    copy = installed.example("python")
    (copy / "wheel.spl").write_text(SPL, encoding="utf-8")
    done = installed.benchwarden(copy, "check", "wheel.spl", "--json", "-q", "--suite", "wordstat", "--forks", "3",
                                 "--warmup", "1", "--iterations", "3", "--iteration-time", "20ms", "--max-rounds", "2")
    assert done.returncode == 1, f"check exited {done.returncode} (1 expected: one assertion fails)\n{done.stderr}"
    result = json.loads(done.stdout)
    assert result["verdict"] == "fails" and not result["errors"]
    assert [a["verdict"] for a in result["assertions"]] == ["holds", "fails"], result["assertions"]


GO_TOML = """\
[defaults]
iteration_time = "50ms"
warmup = { min = 1, max = 1 }
iterations = 12
forks = { min = 1, max = 1 }
timeout = "2m"

[suites.wordstat]
kind = "go"
filter = 'Tokenize\\[size=100\\]'

[assess]
runs = 2
slowdown = 3.0
methods = ["example.com/wordstat.Tokenize", "example.com/wordstat.CapitalizeWords"]
"""


def test_assess_on_the_go_example_builds_the_rewriter_from_the_wheel(installed):
    copy = installed.example("go")
    (copy / "benchwarden.toml").write_text(GO_TOML, encoding="utf-8")
    rewriter = installed.cache / "benchwarden" / "helpers" / f"rewriter-{REWRITER_DIGEST}" / REWRITER_BIN
    assert not rewriter.exists()
    done = installed.benchwarden(copy, "assess", "--json", "-q")
    _ok(done, "assess")
    assert rewriter.is_file()  # built by `go build` from benchwarden/helpers_src/go/rewriter of the installed wheel
    [suite] = json.loads(done.stdout)["suites"]
    assert suite["reach_failed"] in ([], {}, None), suite["reach_failed"]
    methods = {m["method"]: m for m in suite["abs"]["methods"]}
    # the rewriter's tracing: the benchmark reaches Tokenize, nothing reaches CapitalizeWords
    assert methods["example.com/wordstat.CapitalizeWords"]["reached_by"] == []
    assert methods["example.com/wordstat.CapitalizeWords"]["covered"] is False
    assert methods["example.com/wordstat.Tokenize"]["reached_by"] == ["BenchmarkTokenize[size=100]"]
    # the rewriter's slowdown: Tokenize made 4x slower (v = 3) slows its benchmark in both repetitions; a margin
    # far from 3 because a loaded machine disturbs short Go iterations
    [detection] = [d for d in suite["detections"] if d["method"] == "example.com/wordstat.Tokenize"]
    assert all(r["relative_change"] > 0.5 for r in detection["repetitions"]), detection


def test_audit_on_the_jmh_example(installed):
    copy = installed.example("jmh")
    done = installed.benchwarden(copy, "audit", "--json", ".")
    _ok(done, "audit")
    result = json.loads(done.stdout)
    assert result["jmh_versions"] == ["1.37"]
    names = {b["name"] for b in result["benchmarks"]}
    assert {"wordstat.bench.TokenizeBench.tokenize", "wordstat.bench.CountWordsBench.countHash"} <= names
    assert result["suite"]["benchmarks"] == len(names)
    for b in result["benchmarks"]:
        assert (copy / b["location"].rsplit(":", 1)[0]).is_file(), b["location"]
