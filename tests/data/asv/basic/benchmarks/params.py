"""Parameterised classes with module- and class-level setup/teardown, logged to BW_TEST_LOG."""
from ._log import log


def setup(*params):
    log("module-setup", *params)


def teardown(*params):
    log("module-teardown", *params)


class Sizes:
    params = [[10, 100], ["a", "b"]]
    param_names = ["n", "tag"]

    def setup(self, n, tag):
        log("class-setup", n, tag)
        self.data = list(range(n))

    def teardown(self, n, tag):
        log("class-teardown", n, tag)

    def time_sum(self, n, tag):
        sum(self.data)


class Single:
    params = [1, 2, 3]

    def time_pow(self, x):
        x ** 2


class Skipping:
    params = ["fast", "unsupported"]
    param_names = ["mode"]

    def setup(self, mode):
        if mode == "unsupported":
            raise NotImplementedError("mode 'unsupported' is not available here")

    def time_mode(self, mode):
        mode.upper()
