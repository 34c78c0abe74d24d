"""`compare --against history` on a real store (SQLite and PostgreSQL): a stored run judged against its
benchmarks' newest history segment on the same machine; exit 1 on a regression, as any compare."""

from __future__ import annotations

import json

import pytest

from benchwarden.store import open_store
from tests.unit.history.test_history_cli import MACHINE_A, PARSE, TOKENS, cli, repo, run, store  # noqa: F401 (fixtures)


def add_candidate(store_url: str, commit: str, parse_ns: float, tokens_ns: float, seed: int) -> int:
    with open_store(store_url) as s:
        return s.import_run(run(commit, 1_800_000_000, MACHINE_A, {PARSE: parse_ns, TOKENS: tokens_ns}, seed=seed))


def test_a_ten_percent_slower_candidate_fails_and_a_flat_one_is_unchanged(store, repo, tmp_path):  # noqa: F811
    root, shas = repo
    assert cli("history", "--store", store, "--repo", str(root), "--json")[0] == 0  # the store learns the commits
    run_id = add_candidate(store, shas[29], 1120.0 * 1.10, 500.0, seed=4242)
    html = str(tmp_path / "report.html")
    code, out, err = cli("compare", "--against", "history", str(run_id), "--store", store, "--json", "--html", html)
    assert code == 1, err  # a regression
    doc = json.loads(out)
    by_key = {b["benchmark"]: b for b in doc["benchmarks"]}
    parse, tokens = by_key["parse"], by_key["tokens"]
    assert parse["verdict"] == "slower" and 1.03 < parse["ci"][0] < 1.10 < parse["ci"][1]
    # the newest segment of parse on machine A: commits 15..28 (the step is at 15; commit 29 is the candidate's)
    assert parse["warnings"][0].startswith("baseline: 14 commit(s) of the newest segment on ci-a")
    assert tokens["verdict"] == "unchanged" and "baseline: 20 commit(s)" in tokens["warnings"][0]
    assert doc["source"] == "history" and doc["candidate"]["run_id"] == run_id

    code, out, err = cli("compare", "--against", "history", "latest", "--store", store, "--filter", "tokens",
                         "--html", html)
    assert code == 0, err
    assert "tokens" in out and "parse" not in out and "against history on ci-a" in out


def test_no_history_on_the_machine_is_inconclusive_not_a_pass_by_silence(store, repo, tmp_path):  # noqa: F811
    root, shas = repo
    with open_store(store) as s:
        run_id = s.import_run(run(shas[29], 1_800_000_000, {"name": "laptop", "cpu": "M2", "cores": "8"},
                                  {PARSE: 1000.0}, seed=5))
    code, out, err = cli("compare", "--against", "history", str(run_id), "--store", store, "--json", "--html",
                         str(tmp_path / "report.html"))
    assert code == 0, err
    [parse] = json.loads(out)["benchmarks"]
    assert parse["verdict"] == "inconclusive" and "no history of time on this machine" in parse["message"]


@pytest.mark.parametrize("argv,message", [
    (("--against", "history", "1", "2"), "takes one stored run"),
    (("--against", "history", "--min-forks", "3"), "--min-forks"),
    (("--against", "history", "--runs", "1"), "--runs"),
    (("--against", "future"), "'future' is not 'history'"),
])
def test_bad_input_is_exit_2(argv, message, tmp_path):
    code, out, err = cli("compare", *argv, "--store", str(tmp_path / "empty.db"))
    assert code == 2 and message in err and "Traceback" not in err, err
