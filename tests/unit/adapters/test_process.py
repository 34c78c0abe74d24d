"""Child processes: output read in blocks and kept bounded; builds and helpers killed as a whole group on timeout."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from benchwarden.adapters.process import (
    MAX_LINE_BYTES,
    READ_CHUNK,
    TAIL_LINE_CHARS,
    LineSplitter,
    ManagedProcess,
    capture,
    drain_lines,
    run_build,
    run_in_group,
)
from benchwarden.errors import MAX_DETAIL_CHARS, MAX_OUTPUT_CHARS, BuildFailed, ForkFailed
from tests.support.processes import eventually, is_alive


class CountingPipe(io.RawIOBase):
    """An unbuffered pipe-like stream that counts the system calls (``readinto``) made on it."""

    def __init__(self, data: bytes, max_per_call: int = READ_CHUNK):
        self._data = memoryview(data)
        self._pos = 0
        self._max = max_per_call
        self.calls = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self.calls += 1
        n = min(len(buffer), self._max, len(self._data) - self._pos)
        buffer[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n


def test_a_pipe_is_read_in_blocks_not_byte_by_byte():
    data = b"x" * 99 + b"\n"
    pipe = CountingPipe(data * 20_000)  # 2 MB in 100-byte lines, as in the issue
    lines: list[str] = []
    drain_lines(pipe, lines.extend)
    assert len(lines) == 20_000 and lines[0] == "x" * 99
    # one call per 64-KiB block plus the final empty read; byte-by-byte reading made 2,000,000 calls
    assert pipe.calls <= len(data) * 20_000 // READ_CHUNK + 2


def test_lines_split_across_blocks_crlf_and_multibyte_characters():
    text = "première ligne\r\nzweite Zeile – ünïcødé\nno newline at the end"
    raw = text.encode("utf-8")
    for block in (1, 2, 3, 7, len(raw)):  # a multi-byte character cut between two reads is decoded whole
        lines: list[str] = []
        drain_lines(CountingPipe(raw, max_per_call=block), lines.extend)
        assert lines == ["première ligne", "zweite Zeile – ünïcødé", "no newline at the end"], block


def test_an_endless_line_costs_bounded_memory_and_says_what_was_cut():
    splitter = LineSplitter(max_line_bytes=1000)
    for _ in range(100):  # 1.6 MB without a newline
        assert splitter.feed(b"y" * 16_000) == []
        assert len(splitter._partial) <= 1000
    (line,) = splitter.feed(b"\nnext")
    assert line == "y" * 1000 + "[... 1599000 more bytes]"
    assert splitter.finish() == ["next"] and splitter.finish() == []


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_20_mb_line_of_a_failing_child_leaves_a_short_tail():
    process = ManagedProcess(_python("import sys; sys.stdout.write('z' * 20_000_000 + '\\nlast words\\n')"))
    try:
        first = process.readline(deadline=None)
        assert first is not None and len(first) < MAX_LINE_BYTES + 100 and first.endswith("more bytes]")
        assert process.readline(deadline=None) == "last words"
        assert process.readline(deadline=None) is None
        tail = process.tail()
        assert tail.endswith("last words") and len(tail) < TAIL_LINE_CHARS + 200
    finally:
        process.terminate()


def test_forward_lines_false_keeps_only_the_tail_and_still_reports_the_end():
    process = ManagedProcess(_python("for i in range(100_000): print(i)"), forward_lines=False, tail_lines=3)
    try:
        assert process.readline(deadline=None) is None  # no line is queued for a reader that never reads
        assert process.wait(timeout=60) == 0
        assert process.tail() == "99997\n99998\n99999"
    finally:
        process.terminate()


def test_failures_keep_bounded_detail_and_output_whatever_the_benchmark_printed():
    exc = ForkFailed("s:b", "crashed", "d" * 1_000_000, "o" * 20_000_000 + "the cause")
    assert len(exc.detail) < MAX_DETAIL_CHARS + 100 and len(str(exc)) < MAX_DETAIL_CHARS + 200
    assert len(exc.output) < MAX_OUTPUT_CHARS + 100 and exc.output.endswith("the cause")
    build = BuildFailed("s", "make", 2, "b" * 5_000_000 + "error: here")
    assert len(str(build)) < MAX_OUTPUT_CHARS + 200 and str(build).endswith("error: here")


# a shell that starts a long-lived child in the background, records its pid, and waits for it
_SPAWNER = "sleep 300 & echo $! > {pidfile}; echo started; wait"


def _background_pid(pidfile: Path) -> int:
    assert eventually(lambda: pidfile.exists() and pidfile.read_text().strip() != "", timeout_s=30)
    return int(pidfile.read_text())


def test_a_build_that_times_out_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    with pytest.raises(BuildFailed) as info:
        run_build(["sh", "-c", _SPAWNER.format(pidfile=pidfile)], tmp_path, "suite", timeout_s=1.0)
    assert "timed out after 1s" in str(info.value) and "started" in info.value.output
    child = _background_pid(pidfile)
    # subprocess.run(timeout=) killed only `sh`: the sleep lived on for its 300 s
    assert eventually(lambda: not is_alive(child), timeout_s=10), f"build child {child} survived the timeout"


def test_a_helper_command_that_times_out_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    with pytest.raises(subprocess.TimeoutExpired) as info:
        capture(["sh", "-c", _SPAWNER.format(pidfile=pidfile)], timeout_s=1.0)
    assert b"started" in info.value.output
    child = _background_pid(pidfile)
    assert eventually(lambda: not is_alive(child), timeout_s=10), f"helper child {child} survived the timeout"


def test_a_command_that_ends_normally_keeps_what_it_started_on_purpose(tmp_path):
    pidfile = tmp_path / "daemon.pid"
    done = run_in_group(["sh", "-c", f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}"], timeout_s=60)
    daemon = _background_pid(pidfile)
    try:
        assert done.returncode == 0 and is_alive(daemon)  # e.g. a build that starts a database for the benchmarks
    finally:
        subprocess.run(["kill", "-9", str(daemon)], check=False)
