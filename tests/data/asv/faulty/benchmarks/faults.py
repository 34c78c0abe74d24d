"""Benchmarks that misbehave, one way each."""
import os
import subprocess
import sys
import time

print("garbage printed at import time")


def time_raises():
    raise ValueError("boom from the benchmark")


def time_prints_garbage():
    print("this is not JSON {")
    sys.stdout.write('{"v":1,"iteration":99,"ns_per_op":-1,"ops":1}\n')
    os.write(1, b"raw bytes to fd 1\n")


def time_hangs():
    time.sleep(3600)


def time_exits():
    sys.exit(3)


class SpawnsChild:
    """setup starts a long-lived child; it must not outlive the fork."""

    def setup(self):
        self.child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        path = os.environ.get("BW_TEST_LOG")
        if path:
            with open(path, "a") as f:
                f.write("child %d\n" % self.child.pid)

    def time_quick(self):
        pass


def time_os_exit():
    os._exit(0)  # leaves without a word: exit status 0 and no iteration


def time_hangs_with_timeout():
    time.sleep(3600)


time_hangs_with_timeout.timeout = 1  # asv attribute: seconds before the benchmark is killed
