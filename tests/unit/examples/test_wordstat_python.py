"""The Python wordstat example library: correct in both tokenizer variants, deterministic input."""

from __future__ import annotations

import ast
import collections
import importlib
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "python"


@pytest.fixture(scope="module")
def wordstat():
    sys.path.insert(0, str(EXAMPLE))
    try:
        module = importlib.import_module("wordstat")
        yield module
    finally:
        sys.path.remove(str(EXAMPLE))
        sys.modules.pop("wordstat", None)


def test_text_is_deterministic_per_seed_and_uses_the_vocabulary(wordstat):
    assert wordstat.text(200) == wordstat.text(200, seed=42)
    assert wordstat.text(200, seed=1) != wordstat.text(200, seed=2)
    words = wordstat.tokenize(wordstat.text(1000))
    assert len(words) == 1000
    assert set(words) <= set(wordstat.VOCABULARY)


def test_tokenize_lowercases_and_splits_at_non_letters(wordstat):
    assert wordstat.tokenize("The quick-brown FOX, jumps!\nover 42dogs_and Ünïcode") == [
        "the", "quick", "brown", "fox", "jumps", "over", "dogs", "and", "ünïcode"]


@pytest.mark.parametrize("size", [0, 1, 100, 1000])
def test_every_switchable_tokenizer_gives_the_same_words(wordstat, size):
    text = wordstat.text(size) + " Trailing-Ünïcode  x"
    expected = wordstat._tokenize_one_pass(text)
    for name, tokenizer in wordstat._TOKENIZERS.items():
        assert tokenizer(text) == expected, name
    assert set(wordstat._TOKENIZERS) == {"", "0", "1", "large", "small", "medium", "alloc"}


def test_an_unknown_switch_value_is_refused_at_import(monkeypatch):
    monkeypatch.setenv("WORDSTAT_SLOW", "tiny")
    sys.path.insert(0, str(EXAMPLE))
    sys.modules.pop("wordstat", None)
    try:
        with pytest.raises(ValueError, match="WORDSTAT_SLOW='tiny'"):
            importlib.import_module("wordstat")
    finally:
        sys.path.remove(str(EXAMPLE))
        sys.modules.pop("wordstat", None)


def test_both_count_implementations_agree_with_collections_counter(wordstat):
    words = wordstat.tokenize(wordstat.text(1000))
    expected = dict(collections.Counter(words))
    assert wordstat.count_words_hash(words) == expected
    assert wordstat.count_words_sorted(words) == expected
    assert list(wordstat.count_words_sorted(words)) == sorted(expected)
    assert wordstat.count_words(words, impl="sorted") == expected
    with pytest.raises(ValueError, match="unknown count_words implementation 'tree'"):
        wordstat.count_words(words, impl="tree")


def test_top_k_orders_by_count_then_alphabetically(wordstat):
    counts = {"b": 3, "a": 3, "c": 5, "d": 1}
    assert wordstat.top_k(counts, 3) == ["c", "a", "b"]
    assert wordstat.top_k(counts, 10) == ["c", "a", "b", "d"]
    assert wordstat.top_k(counts, 0) == []
    # the skewed generator makes "the" (vocabulary index 0) the most frequent word
    assert wordstat.top_k(wordstat.count_words(wordstat.tokenize(wordstat.text(2000))), 1) == ["the"]


def test_capitalize_words(wordstat):
    assert wordstat.capitalize_words("hello wörld, x-ray 42abc") == "Hello Wörld, X-Ray 42Abc"


def _names_used(path: Path) -> set[str]:
    """Every name and attribute referenced in a file's code (docstrings and comments excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return names


def test_no_benchmark_reaches_capitalize_words():
    """The deliberately unreached public function: no benchmark, no CLI path, no library function uses it."""
    library = EXAMPLE / "wordstat" / "__init__.py"
    for path in [*(EXAMPLE / "benchmarks").rglob("*.py"), EXAMPLE / "wordstat" / "__main__.py", library]:
        # (the library defines it and lists it in __all__ as a string, but never references it)
        assert "capitalize_words" not in _names_used(path), path
