"""What can be compared: revisions (real git worktrees), artifacts, variants; and the pairing of benchmarks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import PreparedSuite, SuiteContext
from benchwarden.compare.pairing import pair_sides
from benchwarden.compare.sources import (
    Side,
    Sources,
    from_artifacts,
    from_revisions,
    from_session,
    parse_env_assignments,
    with_variant,
    with_variants,
)
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import UsageError
from benchwarden.model import Benchmark, BenchmarkId
from tests.support.git import git


def _suite(root: Path, kind: str = "jmh", name: str = "s") -> Suite:
    return Suite(SuiteContext(name, kind, root, build=("mvn", "package"), artifact="target/b.jar",
                              jvm_args=("-Xmx256m",), env={"A": "1"}), RunSettings())


def test_revisions_are_checked_out_into_their_own_worktrees(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo, suite = _two_commits(tmp_path)
    sources = from_revisions([suite], repo, "HEAD~1", "WORKTREE")
    base_root = sources.base.suites[0].context.root
    assert (base_root / "f.txt").read_text() == "one" and base_root != repo / "suite"
    assert sources.base.commit == git(repo, "rev-parse", "HEAD~1")
    assert sources.base.label.startswith("HEAD~1 (")
    assert sources.candidate.suites[0].context.root == repo / "suite"  # the working tree as it is
    assert sources.candidate.commit == git(repo, "rev-parse", "HEAD") and sources.candidate.dirty is False


def test_working_tree_needs_nogit(tmp_path):
    sources = from_revisions([_suite(tmp_path)], tmp_path, "WORKTREE", "WORKTREE")
    assert sources.base.commit is None and sources.base.label == "WORKTREE"


def test_variants_apply_to_the_candidate_and_share_the_base_build(tmp_path):
    sources = from_revisions([_suite(tmp_path)], tmp_path, "WORKTREE", "WORKTREE")
    varied = with_variants(sources, candidate_env={"WORDSTAT_SLOW": "1"}, candidate_jvm_args=["-Dwordstat.slow=true"])
    ctx = varied.candidate.suites[0].context
    assert dict(ctx.env) == {"A": "1", "WORDSTAT_SLOW": "1"}
    assert ctx.jvm_args == ("-Xmx256m", "-Dwordstat.slow=true")
    assert varied.base.suites[0].context.env == {"A": "1"}  # the base is untouched
    assert varied.kind == "variants" and varied.candidate.build_shared_with_base
    assert varied.candidate.label == "WORKTREE + WORDSTAT_SLOW=1 -Dwordstat.slow=true"
    assert with_variants(sources) is sources


def _recorded(sources: Sources) -> dict[str, dict]:
    """What a comparison session records of each side (compare/session.py's run metadata)."""
    return {side.role: {"label": side.label, "side": dict(side.description),
                        "suites": {s.name: {"kind": s.kind, "root": str(s.context.root), "settings": s.settings.to_dict(),
                                            "env": dict(s.context.env), "jvm_args": list(s.context.jvm_args)}
                                   for s in side.suites}}
            for side in (sources.base, sources.candidate)}


def _two_commits(tmp_path: Path) -> tuple[Path, Suite]:
    repo = tmp_path / "repo"
    (repo / "suite").mkdir(parents=True)
    git(repo, "init", "-q")
    for text in ("one", "two"):
        (repo / "suite" / "f.txt").write_text(text)
        git(repo, "add", ".")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", text)
    suite = _suite(repo / "suite", kind="command")
    return repo, replace(suite, context=replace(suite.context, build=None))


def test_a_stored_comparison_is_measured_again_at_its_commits_with_its_variant_and_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo, suite = _two_commits(tmp_path)
    measured = replace(suite, settings=replace(suite.settings, iterations=7))  # e.g. compare --iterations 7
    recorded = _recorded(with_variants(from_revisions([measured], repo, "HEAD~1", "WORKTREE"),
                                       candidate_env={"SLOW": "1"}))
    (repo / "suite" / "f.txt").write_text("three")  # later work: neither the ref nor the tree is the version now
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "three")
    again = from_session([suite], repo, "revisions", recorded)
    base, candidate = again.base.suites[0], again.candidate.suites[0]
    assert (base.context.root / "f.txt").read_text() == "one" and (candidate.context.root / "f.txt").read_text() == "two"
    assert dict(candidate.context.env) == {"A": "1", "SLOW": "1"} and dict(base.context.env) == {"A": "1"}
    assert base.settings.iterations == candidate.settings.iterations == 7
    assert again.candidate.label == recorded["candidate"]["label"] and again.candidate.label.endswith("+ SLOW=1")
    assert again.candidate.description["variant"] == {"env": {"SLOW": "1"}, "jvm_args": []}
    assert not again.candidate.build_shared_with_base  # two commits, two builds


def test_a_variant_of_one_commit_shares_its_build_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo, suite = _two_commits(tmp_path)
    recorded = _recorded(with_variants(from_revisions([suite], repo, "HEAD", "HEAD"), candidate_env={"SLOW": "1"}))
    again = from_session([suite], repo, "variants", recorded)
    assert again.kind == "variants" and again.candidate.build_shared_with_base
    assert again.base.commit == again.candidate.commit == git(repo, "rev-parse", "HEAD")


def test_a_dirty_working_tree_is_measured_as_it_is_only_while_its_commit_is_the_recorded_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo, suite = _two_commits(tmp_path)
    (repo / "suite" / "f.txt").write_text("uncommitted")
    recorded = _recorded(from_revisions([suite], repo, "HEAD", "WORKTREE"))
    assert recorded["candidate"]["side"]["dirty"] is True
    again = from_session([suite], repo, "revisions", recorded)
    assert again.candidate.suites[0].context.root == repo / "suite"  # the tree itself, as it is now
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "moved on")
    with pytest.raises(UsageError, match="the candidate was the working tree at .* cannot be measured again"):
        from_session([suite], repo, "revisions", recorded)


def test_a_stored_side_that_cannot_be_had_again_is_a_usage_error(tmp_path):
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"PK")
    recorded = _recorded(from_artifacts([_suite(tmp_path)], jar, jar))
    assert from_session([_suite(tmp_path)], tmp_path, "artifacts", recorded).base.suites[0].context.artifact == str(jar)
    jar.unlink()
    with pytest.raises(UsageError, match="the stored base: base artifact .*a.jar does not exist"):
        from_session([_suite(tmp_path)], tmp_path, "artifacts", recorded)
    recorded["base"]["side"] = {"kind": "history"}
    with pytest.raises(UsageError, match=r"the stored base side \(history\) cannot be measured again"):
        from_session([_suite(tmp_path)], tmp_path, "artifacts", recorded)
    recorded = _recorded(from_revisions([_suite(tmp_path)], tmp_path, "WORKTREE", "WORKTREE"))
    recorded["candidate"]["suites"] = {}
    with pytest.raises(UsageError, match="recorded no settings for suite 's'"):
        from_session([_suite(tmp_path)], tmp_path, "revisions", recorded)


def test_jvm_args_need_jvm_suites(tmp_path):
    side = Side("candidate", "x", (_suite(tmp_path, kind="go"),))
    with pytest.raises(UsageError, match="jmh and junit suites only"):
        with_variant(side, {}, ["-Dx=1"])
    for kind in ("jmh", "junit"):  # a unit test's JVM takes them as a benchmark's does
        (suite,) = with_variant(Side("candidate", "x", (_suite(tmp_path, kind=kind),)), {}, ["-Dx=1"]).suites
        assert suite.context.jvm_args == ("-Xmx256m", "-Dx=1")


def test_env_assignments():
    assert parse_env_assignments(["A=1", "B=", "C=x=y"], "--variant-env") == {"A": "1", "B": "", "C": "x=y"}
    with pytest.raises(UsageError, match="--base-env expects NAME=VALUE, got 'A'"):
        parse_env_assignments(["A"], "--base-env")


def test_jmh_artifacts_replace_the_jar_and_skip_the_build(tmp_path):
    a, b = tmp_path / "a" / "bench.jar", tmp_path / "b" / "bench.jar"
    for jar in (a, b):
        jar.parent.mkdir()
        jar.write_bytes(b"PK")
    sources = from_artifacts([_suite(tmp_path)], a, b)
    base, cand = (side.suites[0].context for side in (sources.base, sources.candidate))
    assert (base.artifact, cand.artifact) == (str(a), str(b)) and base.build is None
    assert sources.base.label != sources.candidate.label  # same file names: full paths tell them apart
    with pytest.raises(UsageError, match="does not exist"):
        from_artifacts([_suite(tmp_path)], a, tmp_path / "missing.jar")
    with pytest.raises(UsageError, match="one suite"):
        from_artifacts([_suite(tmp_path), _suite(tmp_path, name="t")], a, b)


class _ListingAdapter:
    kind = "fake"

    def __init__(self, names_by_root):
        self.names_by_root = names_by_root
        self.builds = []

    def prepare(self, ctx):
        self.builds.append((ctx.root, ctx.build))
        return PreparedSuite({"fake": "1"})

    def list_benchmarks(self, ctx):
        return [Benchmark(BenchmarkId(ctx.name, n), "avgt", "ns/op", spec={"binary": "/built"})
                for n in self.names_by_root[ctx.root]]

    def start_fork(self, ctx, benchmark, plan):  # pragma: no cover - not used
        raise AssertionError


def test_pairing_matches_by_identity_and_reports_the_rest(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    adapter = _ListingAdapter({a: ["x", "y", "old"], b: ["y", "x", "new"]})
    sources = Sources("revisions", Side("base", "a", (_suite(a, "fake"),)), Side("candidate", "b", (_suite(b, "fake"),)))
    pairing = pair_sides(sources, adapter_factory=lambda kind: adapter)
    assert [m.id.key for m in pairing.matched] == ["x", "y"]  # base order
    assert pairing.unmatched == [("s:old", "base only"), ("s:new", "candidate only")]


def test_go_test_binary_artifacts_replace_the_binary_in_the_spec(tmp_path):
    binary = tmp_path / "pkg.test"
    binary.write_bytes(b"\x7fELF")
    suite = _suite(tmp_path, kind="go")
    sources = from_artifacts([suite], binary, binary)
    adapter = _ListingAdapter({tmp_path: ["BenchmarkX"]})
    pairing = pair_sides(sources, adapter_factory=lambda kind: adapter)
    assert pairing.matched[0].candidate.benchmark.spec["binary"] == str(binary)


def test_shared_build_runs_once(tmp_path):
    adapter = _ListingAdapter({tmp_path: ["x"]})
    sources = with_variants(from_revisions([_suite(tmp_path)], tmp_path, "WORKTREE", "WORKTREE"),
                            candidate_env={"V": "1"})
    pair_sides(sources, adapter_factory=lambda kind: adapter)
    assert [build for _, build in adapter.builds] == [("mvn", "package"), None]
