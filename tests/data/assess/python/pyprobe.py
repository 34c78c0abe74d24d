"""Subject of the Python injection tests: ``work`` is slowed, ``work_twin`` (same body) never is."""


def work(n):
    acc = 17
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFF
    return acc


def work_twin(n):
    acc = 17
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFF
    return acc


def recurse(depth, n):
    return work_twin(n) if depth == 0 else recurse(depth - 1, n) + 1


def recurse_twin(depth, n):
    return work_twin(n) if depth == 0 else recurse_twin(depth - 1, n) + 1


def add(a, b):
    return a + b


def _private(a):
    return a


def _aliased(a):
    return [x for x in (a,)][0]


_DISPATCH = {"aliased": _aliased}  # a reference taken before any wrapper exists


def dispatch(a):
    return _DISPATCH["aliased"](a)


class Counter:
    def __init__(self):
        self.n = 0

    def inc(self):
        self.n += 1

    @staticmethod
    def make():
        return Counter()

    @classmethod
    def build(cls):
        return cls()

    def _hidden(self):
        return 0
