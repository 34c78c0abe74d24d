"""Issue #16 item 4, after Peass's Jetty study: would the JMH benchmarks, the unit tests, or affected + compare notice?

Peass (digest seed-001 §4) injected 1,000 busy waits of 5 ns into methods that Jetty's benchmarks call; Jetty's
JMH benchmarks in their default configuration found 3.2 %, Peass measuring one transformed unit test per
injection (the one with the highest share of calls to the changed method) 58.7 %. This script measures the same
three approaches on one project that has both a JMH suite and JUnit tests of the same code:

* **JMH**: the project's JMH suite as its benchwarden.toml configures it; an injection counts as found when a
  JMH benchmark that reaches the method is found slower;
* **unit tests**: the JUnit suite (unit tests as workloads); found by Peass's one test (highest calls to the
  method / all traced calls) and by any test reaching it;
* **affected + compare**: the union of both over the workloads whose traced reach contains the method (what
  ``compare --affected`` measures for a change to that one method), and the share of workloads it skips.

Each injection is a real slowdown of every call of one method by a factor v of its own duration (the Java
agent's ``mode=slowdown``, as ``assess`` injects it), measured and decided by ``benchwarden assess`` with the
compare rule, run as a user runs it (the CLI, a clean git copy of the project so that baselines are reused
across sizes). Its absolute size per call is v times the method's mean call as the agent measured it. The
practical threshold is ``--min-change`` (default 0: a significant slowdown counts, as in Peass's Mann-Whitney
test; the product's 3 % default would hide every change smaller than 3 % of a workload by design).

Then, for each found injection (up to ``--explain``), ``compare --explain``'s explanation step
(:func:`benchwarden.codelevel.profiling.explain_benchmark`) on the workload that found it with the largest
ratio, base = the project, candidate = the same with the method slowed: is the injected method ranked first?

Default: the JMH example (examples/jmh) and its unit tests (examples/junit), the WordStat methods both reach.
Usage: ``.venv/bin/python benchmarks/injection_study.py [--sizes 5%,2%,1%] [--explain 20] [--hog] [--json OUT]``;
another project: ``--project DIR --jmh-config REL --junit-config REL [--methods M ...]`` (the folder is
copied; each config holds one suite; without ``--methods`` the K′ that ``assess`` finds for the JMH suite). Results: docs/code-level.md ("Injected slowdowns: JMH, unit tests, affected + compare").
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.assess.inject import injector_for  # noqa: E402
from benchwarden.assess.reach import calls_of  # noqa: E402
from benchwarden.codelevel.profiling import ExplainSettings, explain_benchmark  # noqa: E402
from benchwarden.compare.pairing import MatchedBenchmark  # noqa: E402
from benchwarden.compare.verdict import Verdict  # noqa: E402
from benchwarden.config import load_config  # noqa: E402
from benchwarden.runner.engine import plan_run  # noqa: E402

EXAMPLE_METHODS = [
    "wordstat.WordStat#tokenize(java.lang.String)",
    "wordstat.WordStat#tokenizeOnePass(java.lang.String)",
    "wordstat.WordStat#countWordsHash(java.util.List)",
    "wordstat.WordStat#countWordsSorted(java.util.List)",
    "wordstat.WordStat#topK(java.util.Map,int)",
]
SIZES = "50%,20%,10%,5%,2%,1%"
STUDY_COMPARE = "\n[compare]\nmin_change = {min_change}\n"
STUDY_ASSESS = "runs = {runs}\nmin_forks = 2\nmax_forks = {max_forks}\n"


def copy_project(args, dest: Path) -> tuple[Path, Path]:
    """The project in a fresh git repository (so that assess reuses baselines across sizes); the example: the JMH
    example and its unit tests side by side (the JUnit example compiles ../jmh's sources)."""
    ignore = shutil.ignore_patterns(".benchwarden", "target", "__pycache__")
    if args.project is None:
        for name in ("jmh", "junit"):
            shutil.copytree(ROOT / "examples" / name, dest / name, ignore=ignore)
    else:
        shutil.copytree(args.project, dest, ignore=ignore)
    with open(dest / ".gitignore", "a", encoding="utf-8") as gitignore:
        gitignore.write("\ntarget/\n.benchwarden/\n")
    return dest / args.jmh_config, dest / args.junit_config


def add_settings(config: Path, args) -> Path:
    """The study's ``[compare]`` threshold and ``[assess]`` fork budget, added to the config's own tables (a
    project's ``[assess]`` may name the packages to trace)."""
    lines = config.read_text(encoding="utf-8").splitlines()
    assert "[compare]" not in lines, f"{config}: the study sets [compare]"
    assess = STUDY_ASSESS.format(runs=args.runs, max_forks=args.max_forks)
    if "[assess]" in lines:
        at = lines.index("[assess]") + 1
        lines[at:at] = assess.splitlines()
    else:
        lines += ["", "[assess]", *assess.splitlines()]
    lines += STUDY_COMPARE.format(min_change=args.min_change).splitlines()
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def commit(root: Path) -> None:
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.email=study@localhost", "-c", "user.name=study",
                                                 "commit", "-qm", "injection study copy"]):
        subprocess.run(["git", *argv], cwd=root, check=True)


def assess(config: Path, size: str, methods: list[str]) -> dict:
    argv = [sys.executable, "-m", "benchwarden", "assess", "--config", str(config), "--slowdown", size, "--json"]
    for m in methods:
        argv += ["--methods", m]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=config.parent)
    if done.returncode != 0:
        raise SystemExit(f"assess {config} at {size} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    (suite,) = json.loads(done.stdout)["suites"]
    return suite


def peass_test(reach: dict[str, dict[str, int]], method: str) -> str | None:
    """The test with the highest share of calls to ``method`` among all traced calls (Peass's choice)."""
    shares = {k: calls_of(calls, method) / max(1, sum(calls.values())) for k, calls in reach.items()
              if calls_of(calls, method) > 0}
    return max(sorted(shares), key=shares.__getitem__) if shares else None


def found(suite: dict, method: str, keys: set[str] | None = None) -> list[dict]:
    return [d for d in suite["detections"] if d["method"] == method and d["detected"]
            and (keys is None or d["benchmark"] in keys)]


def rows_for(size: str, jmh: dict, unit: dict, methods: list[str]) -> list[dict]:
    v = jmh["slowdown"]["v"]
    total = len(jmh["reach"]) + len(unit["reach"])
    rows = []
    for m in methods:
        reach_j = sorted(k for k, c in jmh["reach"].items() if calls_of(c, m) > 0)
        reach_u = sorted(k for k, c in unit["reach"].items() if calls_of(c, m) > 0)
        peass = peass_test(unit["reach"], m)
        call_ns = [p["mean_elapsed_ns"] for s in (jmh, unit) for k, p in s["injection_precision"].items()
                   if calls_of({k: 1}, m) and p.get("mean_elapsed_ns")]
        by_j, by_u = found(jmh, m), found(unit, m)
        rows.append({
            "method": m, "size": size, "v": v,
            "call_ns": min(call_ns) if call_ns else None,
            "reached_by_jmh": reach_j, "reached_by_tests": reach_u, "peass_test": peass,
            "jmh": bool(by_j), "tests_any": bool(by_u), "tests_peass": bool(peass and found(unit, m, {peass})),
            "affected": bool(by_j or by_u),
            "measured": len(reach_j) + len(reach_u), "workloads": total,
            "found_by": sorted([(d["benchmark"], d["ratio"]) for d in by_j + by_u], key=lambda x: -x[1]),
            "outcomes": sorted({d["outcome"] for d in jmh["detections"] + unit["detections"] if d["method"] == m}),
            # the smallest slowdown of the method a detection established (assess's detection threshold), and the
            # smallest change of a workload each approach could have detected at its last look (its MDC)
            "detectable_from": {name: min((d["detectable_from"] for d in s["detections"]
                                           if d["method"] == m and d.get("detectable_from")), default=None)
                                for name, s in (("jmh", jmh), ("tests", unit))},
            "mdc": {name: min((d["mdc"] for d in s["detections"] if d["method"] == m and d.get("mdc")), default=None)
                    for name, s in (("jmh", jmh), ("tests", unit))},
        })
    return rows


def explain_rank(config: Path, workload: str, method: str, v: float, pairs: int, workdir: Path, seed: int) -> dict:
    config_ = load_config(config)
    plan = plan_run(config_.select(None))
    (p,) = [b for b in plan.benchmarks if b.benchmark.id.key == workload]
    variant = injector_for(p.suite.kind).slowed(p.suite, [method], v, workdir / f"variant{seed}")
    candidate = replace(p, suite=variant.suite)
    e = explain_benchmark(MatchedBenchmark(p, candidate), Verdict.SLOWER, ExplainSettings(pairs, 0.0, seed),
                          workdir / f"explain{seed}")
    names = [c[-1] for c in e.causes]
    # causes carry Java parameter types; a method named without them is any of its overloads, as assess slows it
    ranks = [i + 1 for i, name in enumerate(names) if calls_of({name: 1}, method)]
    return {"rank": ranks[0] if ranks else None, "first": names[:1], "error": e.error,
            "folded": any(calls_of({name: 1}, method) for name in e.folded),  # too short to probe: its caller's
            "change": e.candidate_ns / e.base_ns - 1 if e.base_ns else None, "s": round(e.machine_time_s, 1)}


def table(rows: list[dict]) -> str:
    """Counts per size over the methods something reaches; a method nothing reaches (no traced workload calls it)
    is never slowed, so it is listed below the table, not counted as an injection."""
    unreached = sorted({r["method"] for r in rows if not r["measured"]})
    rows = [r for r in rows if r["measured"]]
    out = ["| v (of the method's own time) | injections | ns per call | reached by JMH / tests | found by JMH | "
           "by Peass's one test | by any test | by affected + compare | workloads skipped | explain: first | "
           "median MDC, JMH / tests |",
           "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    # a method's mean call, as the agent measured it in the slowed forks of every size (screened pairs have none)
    calls = {m: [r["call_ns"] for r in rows if r["method"] == m and r["call_ns"]] for m in {r["method"] for r in rows}}
    mean_call = {m: sum(c) / len(c) for m, c in calls.items() if c}
    for size in dict.fromkeys(r["size"] for r in rows):
        rs = [r for r in rows if r["size"] == size]
        ns = [r["v"] * mean_call[r["method"]] for r in rs if r["method"] in mean_call]
        ranked = [r["explain"]["rank"] for r in rs if r.get("explain")]
        skipped = sum(1 - r["measured"] / r["workloads"] for r in rs) / len(rs)
        out.append(f"| {size} | {len(rs)} | {min(ns):.4g}–{max(ns):.4g} | " if ns else f"| {size} | {len(rs)} | ? | ")
        out[-1] += (f"{sum(bool(r['reached_by_jmh']) for r in rs)} / {sum(bool(r['reached_by_tests']) for r in rs)} | "
                    f"{sum(r['jmh'] for r in rs)} | {sum(r['tests_peass'] for r in rs)} | "
                    f"{sum(r['tests_any'] for r in rs)} | {sum(r['affected'] for r in rs)} | {skipped:.0%} | "
                    f"{sum(x == 1 for x in ranked)} of {len(ranked)} | {_median_mdc(rs, 'jmh')} / "
                    f"{_median_mdc(rs, 'tests')} |")
    if unreached:
        out.append(f"\nnot counted, reached by no traced workload: {', '.join(unreached)}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, help="the project's folder (default: the JMH and JUnit examples)")
    parser.add_argument("--jmh-config", default="jmh/benchwarden.toml", help="its JMH suite's config, relative")
    parser.add_argument("--junit-config", default="junit/benchwarden.toml", help="its JUnit suite's config, relative")
    parser.add_argument("--methods", action="append", help="methods to slow (default: the example's; with "
                        "--project: the K′ that assess finds for the JMH suite)")
    parser.add_argument("--sizes", default=SIZES, help="slowdowns v, comma-separated (assess --slowdown)")
    parser.add_argument("--min-change", type=float, default=0.0, help="the compare rule's practical threshold")
    parser.add_argument("--runs", type=int, default=2, help="baseline runs per suite (reused across sizes)")
    parser.add_argument("--max-forks", type=int, default=5, help="slowed forks per (method, workload) at most")
    parser.add_argument("--explain", type=int, default=12, help="found injections to explain, at most (each "
                        "size's found ones after that size)")
    parser.add_argument("--pairs", type=int, default=6, help="profiled pairs per explanation")
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    methods = args.methods or ([] if args.project else EXAMPLE_METHODS)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    start = time.monotonic()
    rows: list[dict] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = args.keep or Path(tmp)
            jmh_config, junit_config = copy_project(args, work / "project")
            configs = {"jmh": add_settings(jmh_config, args), "junit": add_settings(junit_config, args)}
            commit(work / "project")
            explained = 0
            for size in args.sizes.split(","):
                t = time.monotonic()
                suites = {"jmh": assess(configs["jmh"], size, methods)}
                if not methods:  # K′ as assess finds it for the JMH suite, then the same methods everywhere
                    methods = list(suites["jmh"]["methods"]["selected"])
                    print(f"methods (assess's K′ of the JMH suite): {methods}", flush=True)
                suites["junit"] = assess(configs["junit"], size, methods)
                new = rows_for(size, suites["jmh"], suites["junit"], methods)
                rows += new
                for r in new:
                    print(f"v={size} {r['method']}: JMH {r['jmh']} ({len(r['reached_by_jmh'])} reach), tests "
                          f"{r['tests_any']} (Peass's {r['peass_test']}: {r['tests_peass']}), outcomes "
                          f"{r['outcomes']}", flush=True)
                print(f"v={size}: {time.monotonic() - t:.0f} s", flush=True)
                # each size's found injections explained before the next size, the rows written after each step:
                # a study stopped early still has every finished size, with its explanations
                save(args, rows)
                for r in new:
                    if not r["found_by"] or explained >= args.explain:
                        continue
                    workload = r["found_by"][0][0]
                    name = "jmh" if workload in {k for x in rows for k in x["reached_by_jmh"]} else "junit"
                    explained += 1
                    r["explain"] = {"workload": workload, **explain_rank(configs[name], workload, r["method"],
                                                                            r["v"], args.pairs, work / "explain",
                                                                            explained)}
                    print(f"explain v={r['size']} {r['method']} via {workload}: {r['explain']}", flush=True)
                    save(args, rows)
    finally:
        if hog is not None:
            hog.kill()
    print()
    print(table(rows))
    print(f"{sum(bool(r['measured']) for r in rows)} injections counted, {time.monotonic() - start:.0f} s in all")


def _median_mdc(rows: list[dict], approach: str) -> str:
    """The median over the injections of the smallest change any of the approach's workloads could detect."""
    mdcs = sorted(r["mdc"][approach] for r in rows if r.get("mdc", {}).get(approach))
    return f"{mdcs[len(mdcs) // 2]:.1%}" if mdcs else "–"


def save(args, rows: list[dict]) -> None:
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
