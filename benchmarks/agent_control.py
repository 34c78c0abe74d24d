"""What the Java agent's presence alone does to a JMH suite, measured by benchwarden's own `compare`.

`assess` runs every baseline fork of a Java suite as an A/A control of the slowed forks: the agent loaded in
``mode=control`` (its calibration and a class transformer that sees every class load and instruments nothing).
docs/assess.md ("A/A control") says why: on Commons Text a one-off run of 24 interleaved fork pairs found the
agent-loaded JVM about 10 % *faster* (paired t p = 0.02), which against plain baselines would hide a 10 %
injection. This script makes that measurement repeatable on any JMH suite:

    benchwarden compare --variant-jvm-arg=-javaagent:<agent jar>=mode=control --min-change 0 ...

base = the suite as it is, candidate = the same build with the agent; fork pairs interleaved in random order, the
sequential design with a threshold of 0 (any significant difference is a verdict: "slower" means the agent makes
the benchmark slower). Per benchmark: verdict, ratio agent/plain with its interval, pairs used.

Default: the JMH example (examples/jmh, copied; its benchwarden.toml). Another suite: ``--config PATH`` (a
benchwarden.toml with a jmh suite; ``--suite`` picks one). Usage:
``.venv/bin/python benchmarks/agent_control.py [--config PATH] [--suite NAME] [--filter REGEX] [--max-forks 20]
[--warmup N --iterations N --iteration-time 100ms] [--hog] [--json OUT]``. Results: docs/assess.md, docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.helpers.build import agent_jar  # noqa: E402


def compare_argv(config: Path, jar: Path, args: argparse.Namespace) -> list[str]:
    argv = [sys.executable, "-m", "benchwarden", "compare", "--config", str(config), "--json", "-q",
            f"--variant-jvm-arg=-javaagent:{jar}=mode=control", "--min-change", "0",
            "--max-forks", str(args.max_forks), "--seed", str(args.seed)]
    for flag, value in (("--suite", args.suite), ("--filter", args.filter), ("--warmup", args.warmup),
                        ("--iterations", args.iterations), ("--iteration-time", args.iteration_time)):
        if value is not None:
            argv += [flag, str(value)]
    return argv


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, help="a benchwarden.toml with a jmh suite (default: the JMH example)")
    parser.add_argument("--suite")
    parser.add_argument("--filter")
    parser.add_argument("--max-forks", type=int, default=20)
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--iteration-time")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--json", type=Path, help="write the comparison's JSON here")
    args = parser.parse_args()
    jar = agent_jar()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    try:
        with tempfile.TemporaryDirectory(prefix="agent-control-") as tmp:
            config = args.config
            if config is None:
                shutil.copytree(ROOT / "examples" / "jmh", Path(tmp) / "jmh",
                                ignore=shutil.ignore_patterns(".benchwarden", "target"))
                config = Path(tmp) / "jmh" / "benchwarden.toml"
            t0 = time.monotonic()
            done = subprocess.run(compare_argv(config.resolve(), jar, args), capture_output=True, text=True)
            wall = time.monotonic() - t0
    finally:
        if hog is not None:
            hog.kill()
    if done.returncode not in (0, 1) or not done.stdout:
        print(done.stderr, file=sys.stderr)
        return 2
    data = json.loads(done.stdout)
    if args.json:
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(f"agent mode=control against plain JVMs ({'beside a CPU-bound process' if hog else 'no neighbour'}); "
          f"threshold 0; {wall:.0f} s wall, forks {data['machine_time_s']:.0f} s\n")
    print("| benchmark | verdict | ratio agent/plain | interval | p | fork pairs |")
    print("|---|---|---:|---|---:|---:|")
    for b in data["benchmarks"]:
        ci = b.get("ci") or [None, None]
        interval = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci[0] is not None else "–"
        ratio = f"{b['ratio']:.3f}" if b.get("ratio") is not None else "–"
        p = f"{b['p_value']:.3g}" if b.get("p_value") is not None else "–"
        print(f"| {b['benchmark']} | {b['verdict']} | {ratio} | {interval} | {p} | {b['forks']['candidate']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
