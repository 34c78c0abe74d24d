"""wordstat benchmarks in asv format: the same benchmarks as examples/jmh and examples/go.

Keys as benchwarden shows them (asv names, parameter values as ``repr``):

* ``bench_wordstat.Tokenize.time_tokenize[size=100]``, ``[size=1000]`` and ``[size=10000]``: parameterised,
  and the one the switchable slowdown (``WORDSTAT_SLOW=1``) affects;
* ``bench_wordstat.CountWords.time_count_hash`` / ``time_count_sorted``: two implementations of the same
  function on the same 1000 words (hash should beat sorted);
* ``bench_wordstat.CountWordsBySize.time_count[size=100]`` … ``[size=10000]``: how ``count_words_hash``
  grows with the number of words (the axis of its performance documentation, ``[docs.methods]``);
* ``bench_wordstat.TopK.time_top_k``: the 10 most frequent of the counts of 1000 words;
* ``bench_wordstat.Noisy.time_noisy``: deliberately noisy (see its docstring).

``wordstat.capitalize_words`` is deliberately reached by none of them.
"""

import math
import random

import wordstat


class Tokenize:
    params = [100, 1000, 10000]
    param_names = ["size"]

    def setup(self, size):
        self.text = wordstat.text(size)

    def time_tokenize(self, size):
        wordstat.tokenize(self.text)


class CountWords:
    def setup(self):
        self.words = wordstat.tokenize(wordstat.text(1000))

    def time_count_hash(self):
        wordstat.count_words_hash(self.words)

    def time_count_sorted(self):
        wordstat.count_words_sorted(self.words)


class CountWordsBySize:
    """count_words_hash over 100 to 10,000 words: three values of the axis, so the method's page fits a class."""

    params = [100, 1000, 10000]
    param_names = ["size"]

    def setup(self, size):
        self.words = wordstat.tokenize(wordstat.text(size))

    def time_count(self, size):
        wordstat.count_words_hash(self.words)


class TopK:
    k = 10

    def setup(self):
        self.counts = wordstat.count_words_hash(wordstat.tokenize(wordstat.text(1000)))

    def time_top_k(self):
        wordstat.top_k(self.counts, self.k)


def _log_uniform(rnd, low, high):
    return math.exp(rnd.uniform(math.log(low), math.log(high)))


# Drawn once per process, i.e. once per fork: forks differ from each other, not only iterations.
_FORK_RANDOM = random.Random()
_FORK_BASE_WORDS = _log_uniform(_FORK_RANDOM, 250, 500)


class Noisy:
    """Deliberately noisy: counts a randomly sized prefix of 2000 words.

    The size is drawn log-uniformly per fork (250-500 words) and again per iteration (x1-x2) -- asv and
    benchwarden re-run ``setup`` before every timed sample -- so iteration-to-iteration and fork-to-fork
    variation are both large (CV around 20-30%), while one iteration never exceeds about 4x the
    calibrated time.
    """

    def setup(self):
        self.all_words = wordstat.tokenize(wordstat.text(2000))
        size = int(round(_FORK_BASE_WORDS * _log_uniform(_FORK_RANDOM, 1, 2)))
        self.words = self.all_words[:size]

    def time_noisy(self):
        wordstat.count_words_hash(self.words)
