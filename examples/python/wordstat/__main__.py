"""Command line for the command-suite example: ``python3 -m wordstat top|count --words N [--k K]``.

Generates the deterministic text, tokenizes and counts it, and prints the result; cheap enough
(a few ms over interpreter start-up) to be benchmarked as a whole command.
"""

from __future__ import annotations

import argparse
import sys

import wordstat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m wordstat", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["top", "count"])
    parser.add_argument("--words", type=int, default=1000, help="number of words of generated text")
    parser.add_argument("--k", type=int, default=10, help="how many words `top` prints")
    args = parser.parse_args(argv)
    counts = wordstat.count_words(wordstat.tokenize(wordstat.text(args.words)))
    if args.action == "top":
        print(" ".join(wordstat.top_k(counts, args.k)))
    else:
        print(sum(counts.values()), "words,", len(counts), "distinct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
