"""What can be compared: the two *sides* (base and candidate) of a comparison, each a set of suites.

* **revisions** — two git revisions, each checked out into its own cached worktree and built once
  (:func:`benchwarden.revisions.suite_for_revision`); ``WORKTREE`` is the working tree as it is;
* **artifacts** — one suite run from two built artifacts: two JMH jars (the suite's ``artifact``
  replaced, no build), or two Go test binaries (the package's test binary replaced);
* **variants** — one build run two ways, differing in environment variables or JVM arguments
  (``--variant-env WORDSTAT_SLOW=1``, ``--variant-jvm-arg -Dwordstat.slow=true``): the overhead of an
  agent, a JIT flag, a feature switch; applied on top of either of the above;
* **runs** — two stored runs, analysed without executing anything (:mod:`.analysis`).

Nothing here runs a benchmark; :mod:`.pairing` prepares and lists both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from benchwarden.config import RunSettings, Suite
from benchwarden.environment import git_state
from benchwarden.errors import UsageError
from benchwarden.revisions import WORKTREE, suite_for_revision

#: Benchmark.spec key of the Go adapter that names a package's test binary (see adapters/gotest.py)
GO_BINARY_SPEC_KEY = "binary"


@dataclass(frozen=True)
class Side:
    """One version: its suites (rooted, built or buildable), how the user named it, and what to record.

    ``spec_overrides``: values replacing keys of every listed benchmark's adapter spec (used for Go test
    binaries given as artifacts).  ``build_shared_with_base``: the candidate runs the base's build (same
    files, run-time variant only), so its build is not run a second time.
    """

    role: str
    label: str
    suites: tuple[Suite, ...]
    commit: str | None = None
    dirty: bool | None = None
    description: Mapping[str, object] = field(default_factory=dict)
    spec_overrides: Mapping[str, str] = field(default_factory=dict)
    build_shared_with_base: bool = False


@dataclass(frozen=True)
class Sources:
    kind: str  # "revisions" | "artifacts" | "variants"
    base: Side
    candidate: Side


def from_revisions(suites: Sequence[Suite], repo: Path, base_ref: str, candidate_ref: str) -> Sources:
    """Both sides at git revisions (``WORKTREE`` = the working tree); each commit checked out and built once."""
    base = _revision_side("base", suites, repo, base_ref)
    candidate = _revision_side("candidate", suites, repo, candidate_ref)
    if base.commit == candidate.commit and (base_ref == WORKTREE) == (candidate_ref == WORKTREE):
        candidate = replace(candidate, build_shared_with_base=True)  # one build of identical files (A/A)
    return Sources("revisions", base, candidate)


def _revision_side(role: str, suites: Sequence[Suite], repo: Path, ref: str) -> Side:
    if ref == WORKTREE:
        return working_tree_side(role, suites, repo)
    rooted = []
    commit = None
    label = ref
    for suite in suites:
        at, revision = suite_for_revision(suite, repo, ref)
        rooted.append(at)
        commit, label = revision.commit, revision.label
    return Side(role, label, tuple(rooted), commit=commit, dirty=False,
                description={"kind": "revision", "ref": ref, "commit": commit})


def working_tree_side(role: str, suites: Sequence[Suite], directory: Path) -> Side:
    """The suites as they are on disk (uncommitted changes included); needs no git repository."""
    commit, dirty = git_state(directory)
    label = WORKTREE if commit is None else f"{WORKTREE} ({commit[:10]}{', dirty' if dirty else ''})"
    return Side(role, label, tuple(suites), commit=commit, dirty=dirty,
                description={"kind": "revision", "ref": WORKTREE, "commit": commit, "dirty": dirty})


def from_artifacts(suites: Sequence[Suite], base_path: Path, candidate_path: Path) -> Sources:
    """One suite from two built artifacts: JMH jars or Go test binaries (no build runs for a jar)."""
    if len(suites) != 1:
        names = ", ".join(s.name for s in suites)
        raise UsageError(f"--artifacts compares one suite; the selection has {len(suites)} ({names}): "
                         "choose one with --suite")
    (suite,) = suites
    if suite.kind not in ("jmh", "go"):
        raise UsageError(f"--artifacts needs a jmh suite (jars) or a go suite (test binaries); "
                         f"suite '{suite.name}' is of kind '{suite.kind}'")
    sides = [_artifact_side(role, suite, path, "--artifacts")
             for role, path in (("base", base_path), ("candidate", candidate_path))]
    if sides[0].label == sides[1].label:
        sides = [replace(s, label=str(Path(str(s.description["path"])))) for s in sides]
    return Sources("artifacts", sides[0], sides[1])


def _artifact_side(role: str, suite: Suite, path: Path, origin: str) -> Side:
    path = path.expanduser().resolve()
    if not path.is_file():
        raise UsageError(f"{origin}: {role} artifact {path} does not exist or is not a file")
    description = {"kind": "artifact", "path": str(path)}
    if suite.kind == "jmh":
        ctx = replace(suite.context, artifact=str(path), build=None)
        return Side(role, path.name, (replace(suite, context=ctx),), description=description)
    return Side(role, path.name, (suite,), description=description, spec_overrides={GO_BINARY_SPEC_KEY: str(path)})


def from_session(suites: Sequence[Suite], repo: Path, kind: str, recorded: Mapping[str, Mapping[str, Any]]) -> Sources:
    """The two sides a stored comparison measured, prepared to run again (``benchwarden explain``).

    ``recorded`` maps each role to what its run recorded (:mod:`.session`): ``label``, ``side`` (the
    description built here: a revision's commit, an artifact's path, a variant) and ``suites`` (per suite
    name its ``settings``, ``env`` and ``jvm_args`` as run, variants included). ``suites`` are the configured
    suites of those names; each is run with the recorded settings, environment and JVM arguments, at the
    recorded commit (not the ref, which may have moved). A working tree recorded dirty is taken as it is
    now, if its commit is still the recorded one. Raises UsageError when a side cannot be had again.
    """
    sides = []
    for role in ("base", "candidate"):
        description = recorded[role]["side"]
        side_kind = description.get("kind")
        if side_kind == "revision":
            commit = description.get("commit")
            if commit is None or (description.get("ref") == WORKTREE and description.get("dirty")):
                side = working_tree_side(role, suites, repo)
                if side.commit != commit:
                    raise UsageError(f"the {role} was the working tree at {_short(commit)}; the working tree is at "
                                     f"{_short(side.commit)} now, so that version cannot be measured again")
            else:
                side = _revision_side(role, suites, repo, str(commit))
        elif side_kind == "artifact" and len(suites) == 1:
            side = _artifact_side(role, suites[0], Path(str(description.get("path"))), f"the stored {role}")
        else:
            raise UsageError(f"the stored {role} side ({side_kind or 'not recorded'}) cannot be measured again")
        sides.append(_as_recorded(side, recorded[role]))
    base, candidate = sides
    refs = [str(s.description.get("ref")) for s in sides]
    if all(s.description.get("kind") == "revision" for s in sides) and base.commit == candidate.commit and \
            (refs[0] == WORKTREE) == (refs[1] == WORKTREE):
        candidate = replace(candidate, build_shared_with_base=True)  # one build of identical files, as compare did
    return Sources(kind, base, candidate)


def _as_recorded(side: Side, recorded: Mapping[str, Any]) -> Side:
    """``side`` with each suite's recorded settings, environment and JVM arguments (variants included), and the
    recorded label and description."""
    rooted = []
    for suite in side.suites:
        entry = recorded["suites"].get(suite.name)
        if not isinstance(entry, Mapping):
            raise UsageError(f"the stored runs recorded no settings for suite '{suite.name}'")
        context = replace(suite.context, env={str(k): str(v) for k, v in dict(entry.get("env") or {}).items()},
                          jvm_args=tuple(str(a) for a in entry.get("jvm_args") or ()))
        try:
            settings = RunSettings.from_dict(entry.get("settings") or {})
        except ValueError as exc:
            raise UsageError(f"suite '{suite.name}': the stored runs recorded unusable settings: {exc}") from None
        rooted.append(replace(suite, settings=settings, context=context))
    return replace(side, suites=tuple(rooted), label=str(recorded.get("label") or side.label),
                   description={**side.description, **recorded["side"]})


def _short(commit: object) -> str:
    return str(commit)[:10] if commit else "no commit"


def parse_env_assignments(items: Iterable[str], option: str) -> dict[str, str]:
    """``["K=V", ...]`` -> ``{"K": "V"}``; UsageError naming the option for an item without ``=``."""
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{option} expects NAME=VALUE, got {item!r}")
        env[name.strip()] = value
    return env


#: suite kinds whose forks are JVMs that take JVM arguments
JVM_KINDS = ("jmh", "junit")


def with_variant(side: Side, env: Mapping[str, str], jvm_args: Sequence[str]) -> Side:
    """The side run with extra environment variables and JVM arguments (suites of :data:`JVM_KINDS` only)."""
    if not env and not jvm_args:
        return side
    if jvm_args:
        other = [s.name for s in side.suites if s.kind not in JVM_KINDS]
        if other:
            raise UsageError(f"JVM arguments apply to jmh and junit suites only; suite(s) {', '.join(other)} are "
                             "not (select suites with --suite)")
    suites = tuple(replace(s, context=replace(s.context, env={**s.context.env, **env},
                                                jvm_args=(*s.context.jvm_args, *jvm_args)))
                   for s in side.suites)
    extra = [f"{k}={v}" for k, v in env.items()] + list(jvm_args)
    description = {**side.description, "variant": {"env": dict(env), "jvm_args": list(jvm_args)}}
    return replace(side, suites=suites, label=f"{side.label} + {' '.join(extra)}", description=description)


def with_variants(sources: Sources, *, candidate_env: Mapping[str, str] | None = None,
                  candidate_jvm_args: Sequence[str] = (), base_env: Mapping[str, str] | None = None,
                  base_jvm_args: Sequence[str] = ()) -> Sources:
    """Apply run-time variants to either side.  When both sides are the same files (same suite roots),
    the candidate shares the base's build, and the kind becomes ``"variants"``."""
    base = with_variant(sources.base, base_env or {}, base_jvm_args)
    candidate = with_variant(sources.candidate, candidate_env or {}, candidate_jvm_args)
    if base is sources.base and candidate is sources.candidate:
        return sources
    same_files = [s.context.root for s in base.suites] == [s.context.root for s in candidate.suites] and \
        sources.kind == "revisions"
    if same_files:
        candidate = replace(candidate, build_shared_with_base=True)
    kind = "variants" if same_files else sources.kind
    return Sources(kind, base, candidate)
