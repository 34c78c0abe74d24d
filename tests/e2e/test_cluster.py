"""Forks on a real dask.distributed cluster (issue #18): a `dask scheduler` and two `dask worker --resources bench=1
--nthreads 1` processes on loopback, started by the test; `run` and `compare` on the Python and Go examples over them.

Checked: a worker whose python3 reports another version is warned about before any fork; workers of different
machine kinds are refused before any fork, and pooled (with a warning) only with --mix-machines; forks land on both
workers and each records its worker; the store holds what a local run of the same settings holds, in structure; compare runs each pair's base and candidate fork on the same worker; a worker
killed (SIGKILL) mid-fork loses only that fork — kept as LOST with its iterations, run again on the other worker —
and the run completes with every completed fork kept.  The Go example's test binary is built once by the driver
and run by the workers from the shared folder, as on a cluster with a shared filesystem (docs/distributed.md).
The Python example is the fastest to prepare (no build);
iteration times are short and fork counts small, so the module runs in about a minute on a loaded 2-core machine.
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchwarden.cli import main
from benchwarden.cluster import session as cluster_session
from benchwarden.model import ForkStatus, RunStatus
from benchwarden.store import open_store
from tests.support.git import git
from tests.support.processes import eventually, is_alive, live_processes

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).parent / "dask"
TOKENIZE = r"time_tokenize\[size=(100|1000)\]"  # two sizes: forks enough to land on both workers


class Cluster:
    """A scheduler and named workers, each a process of ours, on 127.0.0.1."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.procs: dict[str, subprocess.Popen] = {}
        self.address = ""

    def _start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        log.close()
        self.procs[name] = proc
        return proc

    def start(self, workers: tuple[str, ...], env: dict[str, dict[str, str]] | None = None) -> None:
        self.file.unlink(missing_ok=True)
        self._start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(self.file)])
        assert eventually(lambda: self.file.exists() and self.file.stat().st_size > 0, 60), self.log("scheduler")
        self.address = json.loads(self.file.read_text())["address"]
        for name in workers:
            self._start(name, [str(DASK), "worker", "--scheduler-file", str(self.file), "--host", "127.0.0.1",
                               "--nthreads", "1", "--resources", "bench=1", "--no-nanny", "--no-dashboard",
                               "--name", name], env=(env or {}).get(name))
        assert eventually(lambda: self.registered() == set(workers), 90), self.log(*workers)

    def registered(self) -> set[str]:
        from distributed import Client

        with Client(self.address, timeout="20s") as client:
            return {str(w["name"]) for w in client.scheduler_info(n_workers=-1)["workers"].values()}

    def log(self, *names: str) -> str:
        return "\n".join((self.folder / f"{n}.log").read_text(errors="replace")[-3000:] for n in names)

    def children(self, name: str) -> list[int]:
        """Live forks the named worker started: its child processes running the asv worker (not the toolchain
        probe's `python3 --version`, which runs before any fork)."""
        pid = self.procs[name].pid
        found = []
        for p in live_processes():
            try:
                ppid = int(Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid and any(a.endswith("asv_worker.py") for a in p.argv):
                found.append(p.pid)
        return found

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        # 5 s: a worker whose scheduler was killed waits for it on SIGTERM until its own timeout (the test
        # of the scheduler's loss spent 20 s in teardown here); nothing is left to save by then
        for proc in self.procs.values():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def _cluster(tmp_path_factory, name: str, workers: tuple[str, ...], env: dict[str, dict[str, str]] | None = None):
    if not DASK.exists():
        pytest.fail(f"{DASK} is missing: dask and distributed are dependencies of benchwarden (pyproject.toml)")
    cluster = Cluster(tmp_path_factory.mktemp(name))
    try:
        cluster.start(workers, env)
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """w2's python3 claims another version when asked (and runs forks as the real one): its toolchain is odd."""
    shim = tmp_path_factory.mktemp("odd-python")
    real = shutil.which("python3")
    (shim / "python3").write_text(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo "Python 3.0.0"; exit 0; }}\n'
                                  f'exec "{real}" "$@"\n', encoding="utf-8")
    (shim / "python3").chmod(0o755)
    odd = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}"}
    yield from _cluster(tmp_path_factory, "cluster", ("w1", "w2"), env={"w2": odd})


@pytest.fixture
def doomed_workers(tmp_path_factory):
    """A cluster of its own: one of its workers gets killed."""
    yield from _cluster(tmp_path_factory, "cluster-kill", ("w1", "w2"))


@pytest.fixture
def unlike_workers(tmp_path_factory):
    """A cluster of its own whose w2 declares another machine kind (BENCHWARDEN_MACHINE_KIND)."""
    yield from _cluster(tmp_path_factory, "cluster-kinds", ("w1", "w2"),
                        env={"w2": {**os.environ, "BENCHWARDEN_MACHINE_KIND": "other-kind"}})


@pytest.fixture(scope="module")
def shipping_workers(tmp_path_factory):
    """A cluster of its own whose workers keep shipped artefacts in folders of their own (BENCHWARDEN_ARTEFACTS),
    as machines without the driver's filesystem would."""
    caches = tmp_path_factory.mktemp("artefact-caches")
    # forks write bytecode next to the code they import, so the copy they imported from can be told
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cluster = _cluster(tmp_path_factory, "cluster-ship", ("w1", "w2"),
                       env={w: {**env, "BENCHWARDEN_ARTEFACTS": str(caches / w)} for w in ("w1", "w2")})
    for started in cluster:
        started.caches = caches
        yield started


def _example(tmp_path: Path) -> Path:
    if shutil.which("python3") is None:
        pytest.skip("'python3' is not on PATH")
    root = tmp_path / "python"
    shutil.copytree(REPO / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    return root


def _cli(root: Path, *argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([argv[0], "--config", str(root / "benchwarden.toml"), "--suite", "wordstat", *argv[1:], "--json",
                   "-q"], stdout=out, stderr=err)
    assert out.getvalue(), err.getvalue()
    return status, json.loads(out.getvalue()), err.getvalue()


RUN = ("--filter", TOKENIZE, "--forks", "3", "--warmup", "2", "--iterations", "3", "--iteration-time", "100ms",
       "--stop", "static")


def _shape(run) -> list:
    """What a run holds, without its values: benchmarks, and per fork its status and iteration counts."""
    return [(str(r.benchmark.id), r.status, [(f.index, f.status, len(f.warmup), len(f.measurement)) for f in r.forks])
            for r in run.results]


def test_run_spreads_forks_over_both_workers_and_stores_what_a_local_run_stores(two_workers, tmp_path):
    root = _example(tmp_path)
    status, payload, err = _cli(root, "run", *RUN, "--cluster", two_workers.address)
    assert status == 0, err
    # asked before any fork: w2's python3 is not like w1's (two workers: both named, neither is the majority)
    assert "warning: cluster" in err and "worker w2" in err and "'Python 3.0.0'" in err, err
    local_status, local_payload, err = _cli(root, "run", *RUN)
    assert local_status == 0, err
    with open_store(root / ".benchwarden" / "results.db") as store:
        remote, local = store.load_run(payload["run"]), store.load_run(local_payload["run"])
    assert remote.status is RunStatus.COMPLETE and remote.meta.config["cluster"] == two_workers.address
    # the run's machine (its history key) is the cluster, never the driver's own
    assert remote.meta.machine["name"] == f"cluster {two_workers.address}" and "name" not in local.meta.machine
    forks = [f for r in remote.results for f in r.forks]
    assert {f.machine["name"] for f in forks} == {"w1", "w2"}  # both workers ran forks
    assert all(f.machine["worker"].startswith("tcp://127.0.0.1:") and f.machine["machine_key"] for f in forks)
    assert all(f.machine == {} for r in local.results for f in r.forks)  # local forks: the run's machine
    assert _shape(remote) == _shape(local)
    # show: the spread between the workers, beside the interval over forks (issue #18 item 2)
    out, err = io.StringIO(), io.StringIO()
    assert main(["show", str(payload["run"]), "--config", str(root / "benchwarden.toml"), "--json"], stdout=out,
                stderr=err) == 0, err.getvalue()
    shown = json.loads(out.getvalue())
    for summary, result in zip(shown["benchmarks"], remote.results, strict=True):
        names = {f.machine["name"] for f in result.forks if f.status is ForkStatus.COMPLETE}
        assert (summary["machines"] is not None) == (len(names) > 1)
        if summary["machines"]:
            assert {m["machine"] for m in summary["machines"]["machines"]} == names
    out = io.StringIO()
    assert main(["show", str(payload["run"]), "--config", str(root / "benchwarden.toml")], stdout=out) == 0
    assert all(f"machines of wordstat:{s['benchmark']}: " in out.getvalue()
               for s in shown["benchmarks"] if s["machines"])  # the terminal line


def test_compare_runs_each_pair_on_one_worker(two_workers, tmp_path):
    root = _example(tmp_path)
    status, payload, err = _cli(root, "compare", "--cluster", two_workers.address, "--variant-env", "WORDSTAT_SLOW=1",
                                "--filter", TOKENIZE, "--warmup", "2", "--iterations", "3", "--iteration-time", "100ms",
                                "--min-forks", "2", "--max-forks", "3")
    assert status in (0, 1), err  # a verdict either way (exit 1: the slowdown was flagged); never a tool error
    with open_store(root / ".benchwarden" / "results.db") as store:
        base, candidate = store.load_run(payload["base"]["run_id"]), store.load_run(payload["candidate"]["run_id"])
    workers = set()
    for b, c in zip(base.results, candidate.results, strict=True):
        pairs = {f.index: f.machine["name"] for f in b.forks}
        assert len(pairs) >= 2
        assert {f.index: f.machine["name"] for f in c.forks} == pairs  # blocking by machine
        workers.update(pairs.values())
        # the machine level of the change: each worker's pairs, as the store has them (issue #18 item 2)
        [judged] = [j for j in payload["benchmarks"] if j["benchmark"] == b.benchmark.id.key]
        complete = [f.machine["name"] for f in b.forks if f.status is ForkStatus.COMPLETE]
        if len(set(complete)) > 1:
            levels = judged["machines"]
            assert {m["machine"]: m["count"] for m in levels["machines"]} == \
                {w: complete.count(w) for w in set(complete)}
            # each worker's ratio is the geometric mean of its pairs' ratios, as the store's forks give them
            means = {role: {f.index: sum(f.measurement_ns) / len(f.measurement) for f in r.forks
                            if f.status is ForkStatus.COMPLETE} for role, r in (("b", b), ("c", c))}
            for level in levels["machines"]:
                ratios = [means["c"][i] / means["b"][i] for i, w in pairs.items() if w == level["machine"]
                          and i in means["b"]]
                assert level["center"] == pytest.approx(math.prod(ratios) ** (1 / len(ratios)), rel=1e-9)
            assert levels["between"] >= 0 and levels["within"] >= 0
        else:
            assert judged["machines"] is None
    assert workers == {"w1", "w2"}
    # (whether one benchmark's pairs span both workers is up to dask's placement; the unit tests cover both cases)


def test_the_go_example_runs_and_compares_over_the_workers(two_workers, tmp_path):
    if shutil.which("go") is None:
        pytest.skip("the Go toolchain ('go') is not on PATH")
    root = tmp_path / "go"
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    short = ("--warmup", "2", "--iterations", "3", "--iteration-time", "100ms")
    status, payload, err = _cli(root, "run", "--filter", "Tokenize", "--forks", "3", *short, "--stop", "static",
                                "--cluster", two_workers.address)  # two benchmarks at once: one per worker
    assert status == 0, err
    with open_store(root / ".benchwarden" / "results.db") as store:
        run = store.load_run(payload["run"])
    assert run.status is RunStatus.COMPLETE
    assert [r.benchmark.id.key for r in run.results] == ["BenchmarkTokenize[size=100]", "BenchmarkTokenize[size=1000]"]
    forks = [f for r in run.results for f in r.forks]
    assert [f.status for f in forks] == [ForkStatus.COMPLETE] * 6
    assert {f.machine["name"] for f in forks} == {"w1", "w2"}
    assert all(f.measurement[0].secondary.get("allocs/op", 0) > 0 for f in forks)  # Go's own figures, remote
    # the slow tokenizer's allocations differ deterministically: a pair's two forks on one worker, and a verdict
    status, payload, err = _cli(root, "compare", "--cluster", two_workers.address, "--variant-env", "WORDSTAT_SLOW=1",
                                "--filter", r"Tokenize\[size=100\]", *short, "--min-forks", "2", "--max-forks", "3")
    assert status in (0, 1), err
    with open_store(root / ".benchwarden" / "results.db") as store:
        base, candidate = store.load_run(payload["base"]["run_id"]), store.load_run(payload["candidate"]["run_id"])
    (b,), (c,) = base.results, candidate.results
    assert {f.index: f.machine["name"] for f in c.forks} == {f.index: f.machine["name"] for f in b.forks}
    (verdict,) = payload["benchmarks"]
    assert any(m["name"] == "allocs" and m["verdict"] == "worse" for m in verdict["metrics"]), verdict["metrics"]


def _repository(tmp_path: Path, monkeypatch) -> Path:
    """The Python example as a clean git repository (tag v1), its revision worktrees cached in tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("WORDSTAT_SLOW", raising=False)
    root = _example(tmp_path)
    (root / ".gitignore").write_text(".benchwarden/\n__pycache__/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "v1")
    git(root, "tag", "v1")
    return root


def _workers_of(runs) -> set[str]:
    forks = [f for run in runs for r in run.results for f in r.forks]
    assert forks and all(f.machine.get("name") in ("w1", "w2") for f in forks), [f.machine for f in forks]
    return {f.machine["name"] for f in forks}


SHORT = ("--warmup", "1", "--iterations", "3", "--iteration-time", "50ms")


def test_check_measures_on_the_workers_and_reuses_only_the_clusters_forks(two_workers, tmp_path, monkeypatch):
    root = _repository(tmp_path, monkeypatch)
    spl = tmp_path / "scaling.spl"  # outside the repository: the tree stays clean, so forks are reusable
    spl.write_text("Tokenize.time_tokenize(1000) <= 15 * Tokenize.time_tokenize(100)\n", encoding="utf-8")
    check = ("check", str(spl), "--forks", "2", *SHORT, "--max-rounds", "0")
    status, data, err = _cli(root, *check, "--cluster", two_workers.address)
    # (holds in ~10x; with 2 forks and no extra round it may stay undecided: the verdicts' power is
    # test_spl_check_examples.py's business, this test's is where the forks ran and what is reused)
    assert status == 0 and [a["verdict"] for a in data["assertions"]] in (["holds"], ["undecided"]), (data, err)
    with open_store(root / ".benchwarden" / "results.db") as store:
        runs = [store.load_run(i) for i in data["runs"]]
    assert runs and {r.meta.machine["name"] for r in runs} == {f"cluster {two_workers.address}"}
    assert _workers_of(runs) == {"w1", "w2"}  # both benchmarks of a pass at once, one per worker
    # the machine level of each instance whose forks ran on both workers (which do is up to dask's placement)
    for instance in data["instances"]:
        if instance["machines"] is not None:
            levels = instance["machines"]["machines"]
            assert {m["machine"] for m in levels} == {"w1", "w2"}, instance
            assert sum(m["count"] for m in levels) == instance["forks"] == 2
    # the same check on the same cluster measures nothing: every fork is reused
    status, again, err = _cli(root, *check, "--cluster", two_workers.address)
    assert status == 0 and again["runs"] == [] and all(i["reused_runs"] for i in again["instances"]), (again, err)
    # here, none of the cluster's forks are: they are not this machine's numbers
    status, here, err = _cli(root, *check)
    assert status == 0 and here["runs"] and not any(i["reused_runs"] for i in here["instances"]), (here, err)


def test_backfill_measures_each_commit_on_the_workers_under_the_clusters_name(two_workers, tmp_path, monkeypatch):
    root = _repository(tmp_path, monkeypatch)
    for n in (1, 2):
        with open(root / "README.md", "a", encoding="utf-8") as readme:
            readme.write(f"\nchange {n}\n")
        git(root, "commit", "-qam", f"change {n}")
    backfill = ("backfill", "v1..HEAD", "--filter", TOKENIZE, "--forks", "2", *SHORT)
    status, payload, err = _cli(root, *backfill, "--cluster", two_workers.address)
    assert status == 0 and [c["state"] for c in payload["commits"]] == ["measured"] * 2, (payload, err)
    assert payload["machine_key"] == f"cluster {two_workers.address}"
    with open_store(root / ".benchwarden" / "results.db") as store:
        runs = [store.load_run(c["run"]) for c in payload["commits"]]
    assert [r.meta.commit for r in runs] == [c["commit"] for c in payload["commits"]]
    assert all(r.status is RunStatus.COMPLETE and len(r.results) == 2 for r in runs)
    assert _workers_of(runs) == {"w1", "w2"}
    # the same range on the same cluster: already measured; here: not (another machine)
    status, again, err = _cli(root, *backfill, "--cluster", two_workers.address)
    assert status == 0 and [c["state"] for c in again["commits"]] == ["skipped"] * 2, (again, err)
    status, here, err = _cli(root, *backfill)
    assert status == 0 and [c["state"] for c in here["commits"]] == ["measured"] * 2, (here, err)
    assert here["machine_key"] != payload["machine_key"]


ASSESS_TOML = """
[defaults]
iteration_time = "50ms"
warmup = { min = 1, max = 1 }
iterations = 6
forks = { min = 2, max = 2 }
timeout = "2m"

[suites.wordstat]
kind = "python"
benchmarks = "benchmarks"
pythonpath = ["."]
filter = 'time_tokenize\\[size=100\\]|time_count_hash'
metric = "cpu"

[assess]
runs = 2
slowdown = 3.0
methods = ["wordstat:tokenize", "wordstat:count_words_hash"]
"""


def test_assess_runs_baselines_and_slowed_rounds_on_the_workers(two_workers, tmp_path):
    """The compare rule's rounds (a slowed fork per undecided pair and a fresh baseline fork per benchmark) run two
    at a time on the cluster; both methods, each slowed 4x in a benchmark that spends most of its time in it,
    are noticed. "Noticed" is detected or overshot: with two forks at once on two cores the busy wait's precision
    varies (count_words_hash once measured 5.0x, interval from 4.0x, so "overshot"), and the injection's precision
    is measured in benchmarks/injection_precision.py, not asserted here. Two slowed forks give a wide interval (a
    t interval on one or two degrees of freedom): clean-clone CI runs measured count_words_hash 3.37x with an
    interval from 1.88x and 3.68x with one from 1.37x, so the size asserted is the ratio (> 2x) and an interval
    clear of the 3 % band (the compare rule's own "slower"), not a lower bound that two forks cannot promise."""
    root = _example(tmp_path)
    (root / "benchwarden.toml").write_text(ASSESS_TOML, encoding="utf-8")
    status, payload, err = _cli(root, "assess", "--cluster", two_workers.address)
    assert status == 0, err
    (suite,) = payload["suites"]
    detail = json.dumps(suite["detections"], indent=1)
    noticed = {m: any(d["outcome"] in ("detected", "overshot") and d["ratio"] > 2.0
                      and d["interval"][0] > 1.0 + d["threshold"]
                      for d in suite["detections"] if d["method"] == m) for m in {d["method"] for d in suite["detections"]}}
    assert noticed == {"wordstat:tokenize": True, "wordstat:count_words_hash": True}, detail
    with open_store(root / ".benchwarden" / "results.db") as store:
        baselines = [store.load_run(i) for i in suite["variability"]["baseline_runs"]]
    with open_store(root / ".benchwarden" / "assess-slowed.db") as scratch:
        slowed = [scratch.load_run(r.id) for r in scratch.list_runs()]
    assert slowed and {r.meta.machine["name"] for r in baselines + slowed} == {f"cluster {two_workers.address}"}
    assert _workers_of(baselines) == {"w1", "w2"} and _workers_of(slowed) == {"w1", "w2"}
    # the workers saw the slowed variant and the tracing output through the shared folder next to the config
    assert not any(p.name.startswith("benchwarden-assess-") for p in (root / ".benchwarden").iterdir())  # cleaned


def test_shipped_suites_run_from_each_workers_own_unpacked_copy(shipping_workers, tmp_path):
    """[cluster] ship = true: the driver packs the built suite tree once, each worker verifies and unpacks it into
    its own cache once and runs its forks there (the Python example's forks import its code from the copy, which
    never had bytecode: the copy's __pycache__ proves where they ran); a second run unpacks nothing; the Go
    example's test binary runs from the copies too."""
    cluster = shipping_workers
    root = _example(tmp_path)
    with open(root / "benchwarden.toml", "a", encoding="utf-8") as toml:
        toml.write("\n[cluster]\nship = true\n")
    status, payload, err = _cli(root, "run", *RUN, "--cluster", cluster.address)
    assert status == 0, err
    with open_store(root / ".benchwarden" / "results.db") as store:
        run = store.load_run(payload["run"])
    assert _workers_of([run]) == {"w1", "w2"} and run.status is RunStatus.COMPLETE
    copies = {w: sorted((cluster.caches / w).iterdir()) for w in ("w1", "w2")}
    (digest,) = {p.name for paths in copies.values() for p in paths}  # one artefact, on both workers
    for worker, (copy,) in copies.items():
        assert (copy / ".benchwarden-artefact").read_text().strip() == digest
        assert (copy / "wordstat" / "__init__.py").read_bytes() == (root / "wordstat" / "__init__.py").read_bytes()
        assert list((copy / "wordstat" / "__pycache__").glob("*.pyc")), f"{worker} ran no fork from its copy"
        assert not (copy / ".benchwarden" / "results.db").exists()  # the driver's store never ships
    stamps = {w: (c / ".benchwarden-artefact").stat().st_mtime_ns for w, (c,) in copies.items()}
    status, _, err = _cli(root, "run", *RUN, "--cluster", cluster.address)
    assert status == 0, err
    assert {w: (c / ".benchwarden-artefact").stat().st_mtime_ns for w, (c,) in copies.items()} == stamps
    if shutil.which("go") is None:
        pytest.skip("the Go toolchain ('go') is not on PATH")
    go = tmp_path / "go"
    shutil.copytree(REPO / "examples" / "go", go, ignore=shutil.ignore_patterns(".benchwarden"))
    with open(go / "benchwarden.toml", "a", encoding="utf-8") as toml:
        toml.write("\n[cluster]\nship = true\n")
    status, payload, err = _cli(go, "run", "--filter", "Tokenize", "--forks", "2", "--warmup", "1", "--iterations",
                                "2", "--iteration-time", "100ms", "--stop", "static", "--cluster", cluster.address)
    assert status == 0, err
    with open_store(go / ".benchwarden" / "results.db") as store:
        run = store.load_run(payload["run"])
    assert [f.status for r in run.results for f in r.forks] == [ForkStatus.COMPLETE] * 4
    binaries = [p for w in ("w1", "w2") for p in (cluster.caches / w).glob("*/.benchwarden/build/go/*.test")]
    assert binaries and all(os.access(p, os.X_OK) for p in binaries)


def test_workers_of_different_kinds_are_refused_unless_mixing_is_asked_for(unlike_workers, tmp_path):
    root = _example(tmp_path)
    out, err_io = io.StringIO(), io.StringIO()
    status = main(["run", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat", *RUN, "--cluster",
                   unlike_workers.address, "-q"], stdout=out, stderr=err_io)
    err = err_io.getvalue()
    assert status == 2 and "machines of 2 kinds" in err and "w2: other-kind" in err and "--mix-machines" in err, err
    assert out.getvalue() == "" and _runs(root) == []  # refused before any run
    status, payload, err = _cli(root, "run", *RUN, "--cluster", unlike_workers.address, "--mix-machines")
    assert status == 0 and "warning: the cluster's workers are machines of 2 kinds" in err, err
    with open_store(root / ".benchwarden" / "results.db") as store:
        run = store.load_run(payload["run"])
    kinds = {f.machine["name"]: f.machine["kind"] for r in run.results for f in r.forks}
    assert kinds["w2"] == "other-kind" and kinds["w1"].startswith("kind-"), kinds


def _runs(root: Path) -> list:
    with open_store(root / ".benchwarden" / "results.db") as store:
        return store.list_runs()


def test_a_worker_killed_mid_fork_loses_only_that_fork(doomed_workers, tmp_path):
    """SIGKILL of worker w1 while it runs a fork: that fork is kept as LOST, run again on w2; nothing else lost."""
    cluster = doomed_workers
    root = _example(tmp_path)
    killed: dict[str, object] = {}

    def kill_w1_mid_fork() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not cluster.children("w1"):
            time.sleep(0.02)
        if not cluster.children("w1"):
            return
        # a fork takes at least 7 iterations x 200 ms; 0.3 s after it started it is surely still running
        time.sleep(0.3)
        killed["orphans"] = cluster.children("w1")
        killed["at"] = time.time()
        os.kill(cluster.procs["w1"].pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_w1_mid_fork, daemon=True)
    killer.start()
    status, payload, err = _cli(root, "run", "--cluster", cluster.address, "--filter", TOKENIZE, "--forks", "3",
                                "--warmup", "2", "--iterations", "5", "--iteration-time", "200ms", "--stop", "static")
    killer.join(5)
    try:
        assert "at" in killed, "w1 never ran a fork"
        killed_at = float(killed["at"])
        assert status == 0, err
        with open_store(root / ".benchwarden" / "results.db") as store:
            run = store.load_run(payload["run"])
        assert run.status is RunStatus.COMPLETE
        lost = [f for r in run.results for f in r.forks if f.status is ForkStatus.LOST]
        assert len(lost) == 1 and lost[0].machine["name"] == "w1" and "left the cluster" in (lost[0].message or "")
        assert lost[0].started_at < killed_at <= lost[0].finished_at
        for result in run.results:
            complete = [f for f in result.forks if f.status is ForkStatus.COMPLETE]
            assert len(complete) == 3 and all(len(f.measurement) == 5 for f in complete)
            # forks that ended before the kill are all kept (3 complete in all); those begun after it ran on w2
            assert all(f.machine["name"] == "w2" for f in complete if f.started_at > killed_at)
        assert {f.machine["name"] for r in run.results for f in r.forks} == {"w1", "w2"}
    finally:
        for pid in killed.get("orphans", []):
            # the killed worker's fork outlives it only until its next write to the closed pipe
            assert eventually(lambda pid=pid: not is_alive(pid), 30), f"fork process {pid} outlived its worker"


def _completed_forks(db: Path) -> int:
    """Complete forks in the store so far (0 before it exists or while it cannot be read)."""
    if not db.is_file():
        return 0
    try:
        with open_store(db) as store:
            return sum(f.status is ForkStatus.COMPLETE for s in store.list_runs()
                       for r in store.load_run(s.id).results for f in r.forks)
    except Exception:  # noqa: BLE001 - the run is writing it; look again
        return 0


def test_the_schedulers_loss_interrupts_the_run_and_resume_finishes_it(tmp_path_factory, tmp_path, monkeypatch):
    """SIGKILL of the scheduler mid-run: the run ends as interrupted (exit 130), its completed forks stored;
    `run --resume` on a new cluster finishes it."""
    monkeypatch.setattr(cluster_session, "SCHEDULER_LOST_S", 3.0)  # the client's reconnect timeout; 20 s by default
    root = _example(tmp_path)
    argv = ("--filter", TOKENIZE, "--forks", "3", "--warmup", "2", "--iterations", "5", "--iteration-time", "200ms",
            "--stop", "static")
    for cluster in _cluster(tmp_path_factory, "cluster-lost", ("w1",)):
        killed: list[float] = []

        def kill_scheduler_mid_fork(cluster: Cluster = cluster, killed: list[float] = killed) -> None:
            # once a fork is stored complete and the next one runs on the worker: counting the worker's child
            # processes instead (start, end, start) once killed during the first fork, when a short-lived child
            # before it was caught as the first
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not _completed_forks(root / ".benchwarden" / "results.db"):
                time.sleep(0.05)
            while time.monotonic() < deadline and not cluster.children("w1"):
                time.sleep(0.02)
            time.sleep(0.3)
            killed.append(time.time())
            os.kill(cluster.procs["scheduler"].pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_scheduler_mid_fork, daemon=True)
        killer.start()
        out, err = io.StringIO(), io.StringIO()
        status = main(["run", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat", *argv,
                       "--cluster", cluster.address, "-q"], stdout=out, stderr=err)
        killer.join(5)
        assert killed, "the scheduler was never killed"
        assert status == 130, err.getvalue()
        assert "lost the connection to the scheduler" in err.getvalue() and "--resume" in err.getvalue()
    with open_store(root / ".benchwarden" / "results.db") as store:
        (summary,) = store.list_runs()
        interrupted = store.load_run(summary.id)
    assert interrupted.status is RunStatus.INTERRUPTED
    before = [f for r in interrupted.results for f in r.forks if f.status is ForkStatus.COMPLETE]
    assert before and all(f.finished_at <= killed[0] for f in before)
    for cluster in _cluster(tmp_path_factory, "cluster-again", ("w1",)):
        out, err = io.StringIO(), io.StringIO()
        status = main(["run", "--config", str(root / "benchwarden.toml"), "--resume", str(interrupted.id),
                       "--cluster", cluster.address, "-q"], stdout=out, stderr=err)
        assert status == 0, err.getvalue()
    with open_store(root / ".benchwarden" / "results.db") as store:
        finished = store.load_run(interrupted.id)
    assert finished.status is RunStatus.COMPLETE
    for result in finished.results:
        assert len([f for f in result.forks if f.status is ForkStatus.COMPLETE]) == 3
    kept = {(f.index, f.started_at) for r in finished.results for f in r.forks if f.status is ForkStatus.COMPLETE}
    assert {(f.index, f.started_at) for f in before} <= kept  # the forks completed before the loss, untouched
