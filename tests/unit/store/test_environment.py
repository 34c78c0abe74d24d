"""Run metadata: machine facts from /proc stand-ins and this machine, git state of real repositories."""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path

import pytest

from benchwarden import __version__
from benchwarden.environment import (
    GitState,
    collect_run_meta,
    cpu_model,
    git_state,
    machine_info,
    tool_version,
    total_memory_bytes,
)
from tests.support.git import git

DATA = Path(__file__).parents[2] / "data" / "store"


def test_cpu_model_x86_and_arm():
    assert cpu_model(DATA / "proc-x86") == "AMD EPYC 7B13 64-Core Processor"
    assert cpu_model(DATA / "proc-arm") == "Raspberry Pi 4 Model B Rev 1.4"  # 'Model' wins over 'Hardware'
    assert cpu_model(DATA / "proc-empty") is None


def test_total_memory_from_meminfo_in_kib():
    assert total_memory_bytes(DATA / "proc-x86") == 24684092 * 1024
    assert total_memory_bytes(DATA / "proc-arm") == 8000 * 1024


def test_total_memory_falls_back_to_sysconf():
    expected = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert total_memory_bytes(DATA / "proc-empty") == expected


def test_machine_info_from_a_proc_tree():
    info = machine_info(DATA / "proc-x86")
    assert info["cpu"] == "AMD EPYC 7B13 64-Core Processor"
    assert info["memory_bytes"] == str(24684092 * 1024)
    assert info["cores"] == str(os.cpu_count())
    assert info["os"] == f"{platform.system()} {platform.release()}"
    assert info["hostname"] == platform.node()
    assert all(isinstance(v, str) for v in info.values())


def test_machine_info_without_proc_still_names_a_cpu():
    info = machine_info(DATA / "proc-empty")
    assert info["cpu"] in (platform.processor(), platform.machine())
    assert {"cpu", "cores", "arch", "os", "kernel", "hostname"} <= set(info)


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="no /proc on this system")
def test_machine_info_on_this_machine_agrees_with_proc():
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    info = machine_info()
    if names:
        assert info["cpu"] == " ".join(names[0].split())
    assert int(info["memory_bytes"]) > 0


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_git_state_of_a_clean_repository(repo: Path):
    (repo / "sub").mkdir()
    state = git_state(repo / "sub")  # any folder inside the work tree
    assert state == GitState(git(repo, "rev-parse", "HEAD"), False)
    commit, dirty = state  # callers unpack it
    assert len(commit) == 40 and dirty is False
    assert state._asdict() == {"commit": commit, "dirty": False}


def test_git_state_dirty_on_tracked_changes_only(repo: Path):
    (repo / "untracked.db").write_text("results")
    assert git_state(repo).dirty is False
    (repo / "a.txt").write_text("two\n")
    assert git_state(repo).dirty is True
    git(repo, "add", "a.txt")  # staged counts too
    assert git_state(repo).dirty is True


def test_git_state_outside_git_and_withoutgit(tmp_path: Path, repo: Path, monkeypatch):
    assert git_state(tmp_path / "not-a-repo-dir") == GitState(None, None)  # not even existing
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert git_state(plain) == GitState(None, None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert git_state(repo) == GitState(None, None)  # git missing: no metadata, no failure


def test_git_state_of_a_repository_without_commits(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(tmp_path, "init", "-q")
    assert git_state(tmp_path) == GitState(None, None)


def test_collect_run_meta(repo: Path):
    meta = collect_run_meta(repo, toolchain={"go": "go1.26"}, config={"forks": 2}, label="x", created_at=12.5)
    assert (meta.created_at, meta.tool_version, meta.label) == (12.5, __version__, "x")
    assert (meta.commit, meta.dirty) == tuple(git_state(repo))
    assert meta.toolchain == {"go": "go1.26"} and meta.config == {"forks": 2}
    assert meta.machine["cores"] == str(os.cpu_count())
    assert tool_version() == __version__


def test_new_runs_get_their_metadata_from_the_one_collector():
    """Only environment.py builds a new run's RunMeta, and only it probes the machine (STYLE item 23);
    importers and the store rebuild the metadata of runs that already exist."""
    import ast

    package = Path(__file__).resolve().parents[3] / "src" / "benchwarden"
    rebuilders = {"environment.py", "adapters/jmh_output.py", "adapters/gotest_output.py"}
    offenders = []
    for path in package.rglob("*.py"):
        relative = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "RunMeta" and relative not in rebuilders and not relative.startswith("store/"):
                    offenders.append(f"{relative}:{node.lineno} RunMeta(...)")
                if node.func.id == "machine_info" and relative != "environment.py":
                    offenders.append(f"{relative}:{node.lineno} machine_info()")
    assert not offenders, offenders


def test_the_machine_name_is_read_at_each_call_not_cached_with_the_hardware(monkeypatch):
    from benchwarden import environment
    monkeypatch.delenv(environment.MACHINE_NAME_VAR, raising=False)
    first = environment.machine_identity()
    assert "name" not in first
    monkeypatch.setenv(environment.MACHINE_NAME_VAR, "  ci   bench-1 ")
    named = environment.machine_identity()
    assert named["name"] == "ci bench-1" and {k: v for k, v in named.items() if k != "name"} == dict(first)
    assert environment.machine_key(named) != environment.machine_key(first)


def test_machine_kind_is_the_hardware_without_the_host():
    from benchwarden.environment import machine_key, machine_kind, machine_kind_label

    one = {"hostname": "bench-01", "cpu": "AMD EPYC 7B13", "cores": "2", "arch": "x86_64",
           "memory_bytes": str(24 * 2**30), "os": "Linux 6.8"}
    other_host = {**one, "hostname": "bench-02", "os": "Linux 6.9", "name": "ci-2"}
    assert machine_kind(one) == machine_kind(other_host) and machine_kind(one).startswith("kind-")
    assert machine_key(one) != machine_key(other_host)  # two machines of one kind: two history series
    for field, value in (("cpu", "Intel Xeon 8375C"), ("cores", "4"), ("arch", "aarch64"),
                         ("memory_bytes", str(8 * 2**30))):
        assert machine_kind({**one, field: value}) != machine_kind(one), field
    assert machine_kind_label(one) == "2 × AMD EPYC 7B13, 24 GiB"
    declared = {**one, "kind": "c6i.large"}
    assert machine_kind(declared) == "c6i.large" == machine_kind_label(declared)


def test_a_declared_kind_is_read_at_each_call(monkeypatch):
    from benchwarden.environment import MACHINE_KIND_VAR, machine_identity, machine_kind

    monkeypatch.delenv(MACHINE_KIND_VAR, raising=False)
    hardware = machine_kind(machine_identity())
    monkeypatch.setenv(MACHINE_KIND_VAR, "  bench   class A ")
    assert machine_kind(machine_identity()) == "bench class A"
    monkeypatch.delenv(MACHINE_KIND_VAR)
    assert machine_kind(machine_identity()) == hardware
