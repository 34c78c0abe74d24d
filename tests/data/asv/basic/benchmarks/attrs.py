"""setup_cache, number, timeout, pretty_name and benchmark_name."""
from ._log import log


class Cached:
    number = 7
    timeout = 30

    def setup_cache(self):
        log("setup-cache")
        return {"payload": list(range(10))}

    def setup(self, cache):
        assert cache["payload"][-1] == 9

    def time_uses_cache(self, cache):
        len(cache["payload"])


def time_pretty():
    pass


time_pretty.pretty_name = "A pretty benchmark"


def time_renamed():
    pass


time_renamed.benchmark_name = "custom.name_of_benchmark"
