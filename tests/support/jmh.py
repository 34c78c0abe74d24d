"""JMH example copies for end-to-end tests."""

from __future__ import annotations

import shutil
from pathlib import Path


def private_jmh_lock(root: Path, tmp_path: Path) -> None:
    """Run the JMH host JVM with its own java.io.tmpdir, so its /tmp/jmh.lock is this test's alone.

    JMH refuses to start while another JMH process on the machine holds the lock; on a machine where
    other JMH runs happen (parallel test sessions) every fork would fail with "Another JMH instance
    might be running".  The suite's `java` option points at a two-line wrapper; forks are unchanged.
    """
    java = shutil.which("java")
    lock_dir = tmp_path / "jmh-tmp"
    lock_dir.mkdir()
    wrapper = tmp_path / "java"
    wrapper.write_text(f'#!/bin/sh\nexec "{java}" "-Djava.io.tmpdir={lock_dir}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    config = root / "benchwarden.toml"
    text = config.read_text(encoding="utf-8")
    assert 'kind = "jmh"\n' in text
    config.write_text(text.replace('kind = "jmh"\n', f'kind = "jmh"\njava = "{wrapper}"\n', 1), encoding="utf-8")
