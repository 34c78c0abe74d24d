"""Re-capture the JMH golden files in this folder from REAL JMH runs (not run by the tests).

    .venv/bin/python tests/data/jmh/capture_goldens.py

Builds examples/jmh and tests/data/jmh/broken-project with Maven, and a copy of the example against JMH 1.21,
then runs each jar exactly as the JMH adapter does (``fork_argv``), writing the merged stdout+stderr to
``run-*.txt`` and, from the same run, JMH's own ``-rf json`` to ``run-*.json``: the tests check the parsed
console output against the JSON JMH wrote, an independent record of the same iterations.  Derived files
(a killed run, malformed JSON) are made from real captures and say so in their names.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from benchwarden.adapters.base import ForkPlan
from benchwarden.adapters.jmh import fork_argv
from benchwarden.adapters.jmh_output import parse_benchmark_list, parse_listing, resolve_listing

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
EXAMPLE = REPO / "examples" / "jmh"
BROKEN = HERE / "broken-project"
JAVA = shutil.which("java") or "java"


def build(project: Path, *extra: str) -> Path:
    subprocess.run(["mvn", "-q", "-B", "package", "-DskipTests", *extra], cwd=project, check=True)
    return project / "target" / "benchmarks.jar"


def listing(jar: Path, tag: str) -> list:
    lp = subprocess.run([JAVA, "-jar", str(jar), "-lp"], capture_output=True, text=True, check=True).stdout
    (HERE / f"listing-{tag}.lp.txt").write_text(lp)
    with zipfile.ZipFile(jar) as zf:
        bl = zf.read("META-INF/BenchmarkList").decode()
    (HERE / f"BenchmarkList-{tag}.txt").write_text(bl)
    return [i.to_benchmark("golden") for i in resolve_listing(parse_listing(lp), parse_benchmark_list(bl))]


def run(jar: Path, benchmarks: list, key: str, name: str, iterations: int = 4, mode: str | None = None,
        jvm_args: tuple[str, ...] = (), profilers: tuple[str, ...] = ()) -> None:
    bench = next(b for b in benchmarks if b.id.key == key)
    if mode:
        bench = type(bench)(id=bench.id, mode=mode, unit=bench.unit, direction=bench.direction,
                            spec={**bench.spec, "mode": mode})
    plan = ForkPlan(fork_index=1, iteration_time_s=0.05, max_iterations=iterations, timeout_s=120,
                    iteration_timeout_s=60, jvm_args=jvm_args)
    argv = fork_argv(JAVA, jar, bench, plan, profilers=profilers) + ["-rf", "json", "-rff", str(HERE / f"run-{name}.json")]
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    (HERE / f"run-{name}.txt").write_text(done.stdout)
    json_file = HERE / f"run-{name}.json"
    if json_file.exists() and json_file.stat().st_size == 0:  # a failed run writes an empty result file
        json_file.unlink()
    print(f"run-{name}: exit {done.returncode}")


def killed_run(jar: Path, benchmarks: list, sig: int, name: str) -> None:
    """A fork whose group gets ``sig`` while its third iteration runs: cut-short output."""
    bench = next(b for b in benchmarks if b.id.key == "wordstat.bench.TokenizeBench.tokenize[size=100]")
    plan = ForkPlan(fork_index=1, iteration_time_s=0.5, max_iterations=10, timeout_s=60, iteration_timeout_s=60)
    proc = subprocess.Popen(fork_argv(JAVA, jar, bench, plan), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out = b""
    while not out.endswith(b"Iteration   3: "):
        chunk = proc.stdout.read1(4096)
        if not chunk:
            raise RuntimeError("JMH ended before its third iteration")
        out += chunk
    time.sleep(0.1)  # "Iteration   3: " is printed, its result is not
    os.killpg(proc.pid, sig)
    out += proc.stdout.read()
    proc.wait()
    (HERE / f"run-{name}.txt").write_bytes(out)


def malformed_json() -> None:
    text = (HERE / "result-1.37.json").read_text()
    (HERE / "result-truncated.json").write_text(text[: len(text) // 2])
    doc = json.loads(text)
    doc[1]["primaryMetric"]["rawData"][0][1] = "fast"
    (HERE / "result-bad-rawdata.json").write_text(json.dumps(doc, indent=4))


def main() -> int:
    jar = build(EXAMPLE)
    broken_jar = build(BROKEN)
    benchmarks = listing(jar, "1.37")
    broken = listing(broken_jar, "broken")
    run(jar, benchmarks, "wordstat.bench.TokenizeBench.tokenize[size=100]", "avgt-params")
    run(jar, benchmarks, "wordstat.bench.TopKBench.topK", "thrpt-fork-args", jvm_args=("-Xmx256m",))
    run(jar, benchmarks, "wordstat.bench.CountWordsBench.countHash", "sample", iterations=3, mode="sample")
    run(jar, benchmarks, "wordstat.bench.NoisyBench.noisy", "ss", iterations=5, mode="ss")
    # -prof gc: secondary results under every iteration, "≈ 0 counts" when no collection ran
    run(jar, benchmarks, "wordstat.bench.TokenizeBench.tokenize[size=1000]", "avgt-gc", iterations=6,
        jvm_args=("-Xms256m", "-Xmx256m"), profilers=("gc",))
    for what in ("crash", "exitVm", "garbage"):
        run(broken_jar, broken, f"broken.BrokenBench.{what}", what)
    run(broken_jar, broken, "broken.BrokenBench.fine@avgt", "multimode-avgt", iterations=2)
    killed_run(jar, benchmarks, signal.SIGKILL, "sigkill-during-iteration-3")
    killed_run(jar, benchmarks, signal.SIGTERM, "sigterm-during-iteration-3")
    subprocess.run([JAVA, "-jar", str(jar), "-f", "2", "-wi", "1", "-i", "3", "-r", "50ms", "-w", "50ms",
                    "-rf", "json", "-rff", str(HERE / "result-1.37.json")], check=True, capture_output=True)
    subprocess.run([JAVA, "-jar", str(broken_jar), "BrokenBench.fine", "-f", "1", "-wi", "0", "-i", "2",
                    "-r", "50ms", "-rf", "json", "-rff", str(HERE / "result-multimode.json")],
                   check=True, capture_output=True)
    malformed_json()
    with tempfile.TemporaryDirectory() as tmp:  # the same example, built against JMH 1.21
        old = Path(tmp) / "jmh-1.21"
        shutil.copytree(EXAMPLE, old, ignore=shutil.ignore_patterns("target", ".benchwarden"))
        old_jar = build(old, "-Djmh.version=1.21")
        old_benchmarks = listing(old_jar, "1.21")
        run(old_jar, old_benchmarks, "wordstat.bench.TokenizeBench.tokenize[size=1000]", "avgt-1.21")
    return 0


if __name__ == "__main__":
    sys.exit(main())
