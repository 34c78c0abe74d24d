"""Test helper: append an event line to the file named by BW_TEST_LOG (if set)."""
import os


def log(*parts):
    path = os.environ.get("BW_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(" ".join(str(p) for p in parts) + "\n")
