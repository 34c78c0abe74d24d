"""Numbers and durations on the command line: nan, inf, zero or negative are usage errors (exit 2) naming the option."""

from __future__ import annotations

import io

import pytest

from benchwarden.cli import main


@pytest.mark.parametrize("argv, option", [
    (["run", "--iteration-time", "0"], "--iteration-time"),
    (["run", "--iteration-time", "0ms"], "--iteration-time"),
    (["run", "--iteration-time", "nan"], "--iteration-time"),
    (["run", "--iteration-time", "inf"], "--iteration-time"),
    (["run", "--iteration-time", "-1s"], "--iteration-time"),
    (["run", "--iteration-time", "99999999h"], "--iteration-time"),
    (["compare", "--confidence", "nan", "HEAD", "HEAD"], "--confidence"),
    (["compare", "--confidence", "inf", "HEAD", "HEAD"], "--confidence"),
    (["compare", "--confidence", "1", "HEAD", "HEAD"], "--confidence"),
    (["check", "--alpha", "nan"], "--alpha"),
    (["assess", "--slowdown", "inf"], "--slowdown"),
    (["assess", "--slowdown", "nan"], "--slowdown"),
    (["assess", "--budget", "0"], "--budget"),
    (["show", "--confidence", "nan"], "--confidence"),
    (["replay", "--confidence", "nan"], "--confidence"),
])
def test_bad_numbers_are_usage_errors(tmp_path, monkeypatch, argv, option):
    monkeypatch.chdir(tmp_path)  # no config: the option must be refused before anything else happens
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    assert status == 2, err.getvalue()
    assert option in err.getvalue() and "Traceback" not in err.getvalue()
