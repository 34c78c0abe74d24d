"""What the Java agent's profile mode (`compare --explain` on JMH and JUnit suites) reports against the true duration
of a call, by call duration: Horký's paired method with an unprobed twin (../shared/research/seed-000-horky-thesis.md
§5).

A small program has two identical classes, ``probed.Work`` and ``plain.Work`` (a busy loop of ``n`` steps); only
``probed`` is in the agent's profiled packages. The root method alternates rounds: ``K`` calls of the probed one,
``K`` calls of the plain twin timed around the loop with ``System.nanoTime()``. After a warmup (the JIT compiles
both alike), per ``n`` the script prints the twin's true time per call, the time the agent *reports* for the probed
call (its node's inclusive time per call), their ratio, and the probed loop's wall time per call over the twin's
(what the probe adds, including what it does to the JIT: a method with advice is harder to inline).

Usage: ``.venv/bin/python benchmarks/explain_probe_java.py [--hog]``; figures go to docs/code-level.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.codelevel.profiles import read_call_tree  # noqa: E402
from benchwarden.helpers.build import agent_jar  # noqa: E402

STEPS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)

WORK = """package {pkg};
public final class Work {{
    public static long spin(int n) {{
        long x = 17;
        for (int i = 0; i < n; i++) {{
            x = x * 6364136223846793005L + 1442695040888963407L;
        }}
        return x;
    }}
}}
"""

DRIVER = """package probe;
public final class Driver {
    static long sink;
    static long plainNs;
    static long probedNs;
    static long calls;

    /** The profile's root: timed loops over the probed method and its unprobed twin. */
    public static void run(int n, int k) {
        sink += loops(n, k);
    }

    /** Warmup: the same loops outside the root, so nothing is recorded while the JIT compiles them. */
    public static void warm(int n, int k) {
        sink += loops(n, k);
        plainNs = 0;
        probedNs = 0;
        calls = 0;
    }

    static long loops(int n, int k) {
        long s = 0;
        long start = System.nanoTime();
        for (int i = 0; i < k; i++) {
            s += probed.Work.spin(n);
        }
        long middle = System.nanoTime();
        for (int i = 0; i < k; i++) {
            s += plain.Work.spin(n);
        }
        long end = System.nanoTime();
        probedNs += middle - start;
        plainNs += end - middle;
        calls += k;
        return s;
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        int k = Math.max(50, (int) Math.min(200_000L, 20_000_000L / Math.max(1, n)));
        for (int r = 0; r < 40; r++) {
            warm(n, k);
        }
        for (int r = 0; r < 40; r++) {
            run(n, k);
        }
        System.out.println("{\\"plain_ns\\":" + (double) plainNs / calls + ",\\"probed_ns\\":" + (double) probedNs / calls
                + ",\\"sink\\":" + (sink & 1) + "}");
    }
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    args = parser.parse_args()
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        sys.exit("java and javac are needed")
    jar = agent_jar()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src, classes = Path(tmp) / "src", Path(tmp) / "classes"
            for pkg in ("probed", "plain"):
                (src / pkg).mkdir(parents=True)
                (src / pkg / "Work.java").write_text(WORK.format(pkg=pkg))
            (src / "probe").mkdir()
            (src / "probe" / "Driver.java").write_text(DRIVER)
            subprocess.run([javac, "-d", str(classes), *map(str, src.rglob("*.java"))], check=True)
            print("| steps | true time per call (unprobed twin) | reported / true | probed wall / true |")
            print("|---:|---:|---:|---:|")
            probe = []
            for n in STEPS:
                out = Path(tmp) / f"out-{n}"
                done = subprocess.run([java, f"-javaagent:{jar}=mode=profile;packages=probed;out={out};"
                                             "root=probe.Driver#run", "-cp", str(classes), "probe.Driver", str(n)],
                                      capture_output=True, text=True, check=True)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                tree = read_call_tree(out)
                node = tree.nodes[("probe.Driver#run(int,int)", "probe.Driver#loops(int,int)", "probed.Work#spin(int)")]
                reported = node.inclusive_ns / node.calls
                true = result["plain_ns"]
                probe.append(tree.traced_call_ns)
                print(f"| {n} | {true:.1f} ns | {reported / true:.2f} | {result['probed_ns'] / true:.2f} |", flush=True)
            print(f"probe cost per profiled call (the agent's calibration): median {sorted(probe)[len(probe) // 2]:.0f} ns")
    finally:
        if hog is not None:
            hog.kill()


if __name__ == "__main__":
    main()
