"""The true size of the examples' switchable changes, measured independently of benchwarden.

Each example's tokenizer variants (WORDSTAT_SLOW = small / medium / large) are called in one process,
interleaved round by round with the unchanged tokenizer, on the examples' own 1000-word (and 100-word)
text; each round times a block of calls by the *thread's CPU time* (RUSAGE_THREAD in Go,
ThreadMXBean in Java, ``time.thread_time_ns`` in Python), and the size is the median over rounds of
variant/unchanged.  Interleaving and medians make it robust to a neighbour's load; CPU time ignores
time the thread does not run.  This is the reference the docs quote ("≈ +4 %"), and the size the
verdict tests are held against.

Usage: ``python benchmarks/example_changes.py [--rounds 150] [--examples go,python,jmh]``
(about a minute per example).  The harnesses are written to a temporary copy; nothing in examples/
is changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

GO_HARNESS = """package wordstat

import (
\t"fmt"
\t"runtime"
\t"sort"
\t"syscall"
\t"testing"
)

func threadCPU() int64 {
\tvar ru syscall.Rusage
\tsyscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
\treturn ru.Utime.Nano() + ru.Stime.Nano()
}

var sizeSink int

func TestSwitchableChangeSizes(t *testing.T) {
\truntime.LockOSThread()
\tfor _, words := range []int{100, 1000} {
\t\ttext := GenerateText(words, 1)
\t\tnames := []string{"", "small", "medium", "large"}
\t\tres := map[string][]float64{}
\t\tcalls := 300000 / words
\t\tfor round := 0; round < ROUNDS; round++ {
\t\t\tfor _, name := range names {
\t\t\t\tf := chooseTokenizer(name)
\t\t\t\tc0 := threadCPU()
\t\t\t\tfor i := 0; i < calls; i++ {
\t\t\t\t\tsizeSink += len(f(text))
\t\t\t\t}
\t\t\t\tres[name] = append(res[name], float64(threadCPU()-c0)/float64(calls))
\t\t\t}
\t\t}
\t\tmed := func(x []float64) float64 { s := append([]float64(nil), x...); sort.Float64s(s); return s[len(s)/2] }
\t\tfor _, name := range names[1:] {
\t\t\tfmt.Printf("go %d words %s %.4f\\n", words, name, med(res[name])/med(res[""]))
\t\t}
\t}
}
"""

JAVA_HARNESS = """package wordstat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.*;
import java.util.function.Function;

public final class SizeHarness {
    static volatile int sink;
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int words : new int[] {100, 1000}) {
            String text = Corpus.text(words);
            Map<String, Function<String, List<String>>> variants = new LinkedHashMap<>();
            variants.put("", WordStat::tokenizeOnePass);
            variants.put("small", WordStat::tokenizeUnmodifiable);
            variants.put("medium", WordStat::tokenizeStripped);
            variants.put("large", WordStat::tokenizeNaive);
            Map<String, List<Double>> res = new LinkedHashMap<>();
            variants.keySet().forEach(k -> res.put(k, new ArrayList<>()));
            int calls = 200000 / words;
            for (int round = 0; round < rounds + 50; round++) {  // 50 rounds of JIT warmup, discarded
                for (var e : variants.entrySet()) {
                    long c0 = mx.getCurrentThreadCpuTime();
                    for (int i = 0; i < calls; i++) sink += e.getValue().apply(text).size();
                    long c1 = mx.getCurrentThreadCpuTime();
                    if (round >= 50) res.get(e.getKey()).add((c1 - c0) / (double) calls);
                }
            }
            double base = median(res.get(""));
            for (String k : List.of("small", "medium", "large"))
                System.out.printf(Locale.ROOT, "jmh %d words %s %.4f%n", words, k, median(res.get(k)) / base);
        }
    }
    static double median(List<Double> x) { List<Double> s = new ArrayList<>(x); Collections.sort(s); return s.get(s.size() / 2); }
}
"""

PYTHON_HARNESS = """
import statistics, sys, time
sys.path.insert(0, sys.argv[2])
import wordstat
rounds = int(sys.argv[1])
for words in (100, 1000):
    text = wordstat.text(words)
    calls = 20000 // words
    res = {name: [] for name in ("", "small", "medium", "large")}
    for _ in range(rounds):
        for name in res:
            f = wordstat._TOKENIZERS[name]
            c0 = time.thread_time_ns()
            for _ in range(calls):
                f(text)
            res[name].append((time.thread_time_ns() - c0) / calls)
    base = statistics.median(res[""])
    for name in ("small", "medium", "large"):
        print(f"python {words} words {name} {statistics.median(res[name]) / base:.4f}")
"""


def run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def measure_go(tmp: Path, rounds: int) -> str:
    root = tmp / "go"
    shutil.copytree(REPO / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    (root / "size_harness_test.go").write_text(GO_HARNESS.replace("ROUNDS", str(rounds)), encoding="utf-8")
    out = run(["go", "test", "-count=1", "-run", "TestSwitchableChangeSizes", "-v", "."], root)
    return "\n".join(line for line in out.splitlines() if line.startswith("go "))


def measure_jmh(tmp: Path, rounds: int) -> str:
    sources = tmp / "java"
    shutil.copytree(REPO / "examples" / "jmh" / "src" / "main" / "java" / "wordstat", sources / "wordstat",
                    ignore=shutil.ignore_patterns("bench"))
    (sources / "wordstat" / "SizeHarness.java").write_text(JAVA_HARNESS, encoding="utf-8")
    files = [str(p) for p in (sources / "wordstat").glob("*.java")]
    run(["javac", "-d", str(tmp / "classes"), *files], tmp)
    # the example's own JVM settings: a fixed, pre-touched heap (docs/performance.md, "heap growth")
    return run(["java", "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", "-cp", str(tmp / "classes"),
                "wordstat.SizeHarness", str(rounds)], tmp).strip()


def measure_python(tmp: Path, rounds: int) -> str:
    script = tmp / "size_harness.py"
    script.write_text(PYTHON_HARNESS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "WORDSTAT_SLOW"}
    done = subprocess.run([sys.executable, str(script), str(rounds), str(REPO / "examples" / "python")],
                          capture_output=True, text=True, timeout=1800, env=env)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--examples", default="go,python,jmh")
    args = parser.parse_args()
    measure = {"go": measure_go, "python": measure_python, "jmh": measure_jmh}
    with tempfile.TemporaryDirectory(prefix="bw-sizes-") as tmp:
        for name in filter(None, args.examples.split(",")):
            print(measure[name](Path(tmp), args.rounds), flush=True)
    print(f"(load average during the run: {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
