"""How much the Python example's switchable changes cost in each memory layout (docs/metrics.md, Limitations).

Each fork of a Python suite gets a padding variable whose size depends on the fork number
(``benchwarden.adapters.layout``), so a comparison samples several layouts. This script fixes the layout
instead: for each padding size it runs one ``benchwarden compare`` of a change against the unchanged example
with ``BENCHWARDEN_LAYOUT_PADDING`` of that size in *both* versions (a suite that sets the variable fixes the
layout), and ``WORDSTAT_SLOW`` set in both (empty in the base: no change) so that the two environments differ
only by the value's few bytes. Each compare runs a fixed number of pairs; its ratio is the change's cost in
that layout.

Defaults: ``tokenize[size=1000]``, CPU time, simultaneous pairs (the least noisy mode with a neighbour), 6 pairs,
the e2e settings (2 warmup + 5 × 100 ms), a CPU-bound neighbour, sizes 0 B and the first eight forks'
paddings. A size of -1 sets no padding at all: with benchwarden before the per-fork padding (run the script with
``PYTHONPATH`` pointing at an older checkout's ``src``) that is the one layout every fork then had; with the
current one, each fork's own padding. Usage: ``.venv/bin/python benchmarks/layout_effect.py [--change small] [--metric cpu|instructions]
[--pairing simultaneous] [--pairs 6] [--sizes 0,2528,...] [--no-neighbour] [--json FILE]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.adapters.layout import PADDING_VARIABLE, padding_bytes  # noqa: E402

BENCHWARDEN = Path(sys.executable).parent / "benchwarden"
FILTER = r"time_tokenize\[size=1000\]"


def _copy(work: Path, metric: str) -> Path:
    root = work / "python"
    shutil.copytree(ROOT / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    config = root / "benchwarden.toml"
    text = config.read_text()
    assert "[suites.wordstat]\n" in text
    config.write_text(text.replace("[suites.wordstat]\n", f'[suites.wordstat]\nmetric = "{metric}"\n', 1))
    return root


def compare(root: Path, size: int, change: str, pairing: str, pairs: int, seed: int, base_unset: bool = False) -> dict:
    padding = "x" * size
    argv = [str(BENCHWARDEN), "compare", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
            "--filter", FILTER, "--warmup", "2", "--iteration-time", "100ms", "--iterations", "5",
            "--min-forks", str(pairs), "--max-forks", str(pairs), "--pairing", pairing, "--seed", str(seed),
            *([] if size < 0 else ["--base-env", f"{PADDING_VARIABLE}={padding}"]),
            *([] if base_unset else ["--base-env", "WORDSTAT_SLOW="]),
            *([] if size < 0 else ["--variant-env", f"{PADDING_VARIABLE}={padding}"]),
            "--variant-env", f"WORDSTAT_SLOW={change}",
            "--json", "-q"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 1):
        raise SystemExit(f"compare failed ({done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout)
    (result,) = data["benchmarks"]
    return {"size": size, "verdict": result["verdict"], "ratio": result["ratio"], "ci": result["ci"],
            "machine_s": data["machine_time_s"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--change", default="small")
    parser.add_argument("--metric", default="cpu", choices=["time", "cpu", "instructions"])
    parser.add_argument("--pairing", default="simultaneous")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--sizes", default=",".join(str(s) for s in [0] + [padding_bytes(k) for k in range(1, 9)]))
    parser.add_argument("--no-neighbour", action="store_true")
    parser.add_argument("--base-unset", action="store_true",
                        help="the base without WORDSTAT_SLOW (as `compare --variant-env` alone leaves it)")
    parser.add_argument("--json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    neighbour = None if args.no_neighbour else subprocess.Popen(["sh", "-c", "while :; do :; done"])
    rows = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = _copy(Path(tmp), args.metric)
            for seed, size in enumerate(sizes, start=1):
                rows.append(compare(root, size, args.change, args.pairing, args.pairs, seed, args.base_unset))
                rows[-1]["load"] = os.getloadavg()[0]
    finally:
        if neighbour is not None:
            neighbour.kill()
    print(f"{started}, change {args.change}, metric {args.metric}, {args.pairing} pairs × {args.pairs}, "
          f"base {'without' if args.base_unset else 'with an empty'} WORDSTAT_SLOW, "
          f"CPU-bound neighbour: {neighbour is not None}\n")
    print("| padding | verdict | ratio | interval | machine time |")
    print("|---:|---|---:|---|---:|")
    for r in rows:
        print(f"| {r['size'] if r['size'] >= 0 else 'none'} B | {r['verdict']} | {r['ratio']:.3f} | [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | "
              f"{r['machine_s']:.0f} s |")
    ratios = sorted(r["ratio"] for r in rows)
    print(f"\nratios {ratios[0]:.3f}–{ratios[-1]:.3f}; load average (1 min) after each: "
          f"{min(r['load'] for r in rows):.1f}–{max(r['load'] for r in rows):.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"started": started, "args": vars(args), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
