"""wordstat: a tiny text-statistics library, the subject of benchwarden's example suites.

The same library exists in Java (examples/jmh) and Go (examples/go) so that
results read the same across languages.

* :func:`tokenize` has *switchable slowdowns*, chosen by the environment variable
  ``WORDSTAT_SLOW`` (read once, at import); every variant returns the same words:
  ``1`` (or ``large``): a chunk-by-chunk implementation, ~1.7x -- a clear regression;
  ``small``: a defensive ``filter(None, ...)`` over the words, about +5 % in one process's layout;
  ``medium``: the same filter as a comprehension, about +9 % there
  (sizes measured in docs/performance.md, "The examples' switchable changes"; across memory layouts the small
  one costs -10 % to +15 % and the medium one +1 % to +9 %, same place);
  ``alloc``: the words through a tuple and back, a change that allocates more (two more
  containers of the word list's size; about +9 % CPU time), for the memory metric to find.
* :func:`count_words` has two implementations, hash-based and sorted, so a
  relation between them can be asserted (hash is faster).
* :func:`capitalize_words` is public but deliberately reached by no benchmark.
"""

from __future__ import annotations

import bisect
import heapq
import os
import random
import re

__all__ = [
    "VOCABULARY", "SLOW", "text", "tokenize", "count_words", "count_words_hash", "count_words_sorted", "top_k",
    "capitalize_words",
]

#: The fixed vocabulary (shared with the Java and Go examples).
VOCABULARY = (
    "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "benchmark", "fork",
    "iteration", "warmup", "measure", "noise", "signal", "median", "mean", "variance", "sample", "time",
    "java", "virtual", "machine", "compiler", "inline", "loop", "cache", "branch", "memory", "thread",
    "word", "count", "token", "text", "stream", "result", "stable", "steady", "state", "run",
)
_SEPARATORS = (" ", " ", " ", ", ", ". ", "; ", " - ", "\n")

#: The switchable slowdown selected by ``WORDSTAT_SLOW`` ("" = none); decided once per interpreter.
SLOW = os.environ.get("WORDSTAT_SLOW", "")

# A word is a maximal run of letters (any script); digits, "_" and everything else separate words.
_WORD = re.compile(r"[^\W\d_]+")


def text(words: int, seed: int = 42) -> str:
    """``words`` words of text; the same ``seed`` always gives the same text.

    Words are drawn with a Zipf-like skew (low vocabulary indices are more frequent, so ``top_k`` has a
    clear answer); one in eight is capitalised; separators include punctuation and newlines.
    """
    rnd = random.Random(seed)
    parts = []
    for _ in range(words):
        word = VOCABULARY[int(len(VOCABULARY) * rnd.random() ** 2)]
        if rnd.randrange(8) == 0:
            word = word.capitalize()
        parts.append(word)
        parts.append(_SEPARATORS[rnd.randrange(len(_SEPARATORS))])
    return "".join(parts)


def _tokenize_one_pass(text: str) -> list[str]:
    """Lowercase the text once, then one regex scan."""
    return _WORD.findall(text.lower())


def _tokenize_per_chunk(text: str) -> list[str]:
    """The slow variant: split at whitespace first, then lowercase and scan each chunk separately.

    Same result as :func:`_tokenize_one_pass` (a word never spans whitespace), about 1.7x the time
    for 100-1000 words: one ``lower`` and one regex call per chunk instead of one per text.
    """
    words: list[str] = []
    for chunk in text.split():
        words.extend(_WORD.findall(chunk.lower()))
    return words


def _tokenize_filter_empty(text: str) -> list[str]:
    """The small switchable change: a defensive filter of empty words (``findall`` never returns any)."""
    return list(filter(None, _WORD.findall(text.lower())))


def _tokenize_comprehension(text: str) -> list[str]:
    """The medium switchable change: the same defensive filter written as a list comprehension."""
    return [w for w in _WORD.findall(text.lower()) if w]


def _tokenize_copied(text: str) -> list[str]:
    """The allocating switchable change: an immutable snapshot of the words, handed out as a fresh list."""
    return list(tuple(_WORD.findall(text.lower())))


_TOKENIZERS = {"": _tokenize_one_pass, "0": _tokenize_one_pass, "1": _tokenize_per_chunk,
               "large": _tokenize_per_chunk, "small": _tokenize_filter_empty, "medium": _tokenize_comprehension,
               "alloc": _tokenize_copied}


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercase words: maximal runs of letters; everything else separates."""
    return _TOKENIZE(text)


try:
    _TOKENIZE = _TOKENIZERS[SLOW]
except KeyError:
    raise ValueError(f"WORDSTAT_SLOW={SLOW!r}: expected 1, large, small, medium or alloc") from None


def count_words_hash(words: list[str]) -> dict[str, int]:
    """Word counts with a hash map (expected O(n))."""
    counts: dict[str, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


def count_words_sorted(words: list[str]) -> dict[str, int]:
    """Word counts in a sorted key list searched by bisection (O(n log m), like Java's TreeMap).

    Same counts as :func:`count_words_hash`, keys in sorted order.
    """
    keys: list[str] = []
    counts: list[int] = []
    for w in words:
        i = bisect.bisect_left(keys, w)
        if i < len(keys) and keys[i] == w:
            counts[i] += 1
        else:
            keys.insert(i, w)
            counts.insert(i, 1)
    return dict(zip(keys, counts))


def count_words(words: list[str], impl: str = "hash") -> dict[str, int]:
    """Word -> count, with the ``"hash"`` or ``"sorted"`` implementation."""
    if impl == "hash":
        return count_words_hash(words)
    if impl == "sorted":
        return count_words_sorted(words)
    raise ValueError(f"unknown count_words implementation {impl!r}: expected 'hash' or 'sorted'")


def top_k(counts: dict[str, int], k: int) -> list[str]:
    """The ``k`` most frequent words, most frequent first; ties go to the alphabetically smaller word."""
    if k <= 0:
        return []
    return [w for w, _ in heapq.nsmallest(k, counts.items(), key=lambda item: (-item[1], item[0]))]


def capitalize_words(text: str) -> str:
    """Upper-case the first letter of every word; other characters unchanged. Reached by no benchmark."""
    return _WORD.sub(lambda m: m.group(0)[0].upper() + m.group(0)[1:], text)
