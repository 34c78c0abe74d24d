"""`history --html` in a real headless browser: offline, no console errors, one rendered plot per series with
its change point marked, and a hostile benchmark name shown as text (the seeded store of test_history_cli)."""

from __future__ import annotations

import json

import pytest

from benchwarden.model import Benchmark, BenchmarkId
from benchwarden.store import open_store
from tests.e2e.cdp_pipe import Browser, chromium
from tests.e2e.test_compare_report_browser import SVG_SIZES
from tests.unit.compare.comparison_samples import EVIL
from tests.unit.history.test_history_cli import MACHINE_A, PARSE, cli, repo, run  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(chromium() is None, reason="chromium is not installed (scripts/bootstrap.sh "
                                                            "installs it when run as root)")]

HOSTILE = Benchmark(BenchmarkId("suite", EVIL), mode="go", unit="ns/op")


def test_history_report_plots_every_series_offline_and_keeps_names_as_text(tmp_path, repo):  # noqa: F811
    root, shas = repo
    store = str(tmp_path / "results.db")
    with open_store(store) as s:
        for i in range(20):
            s.import_run(run(shas[i], 1_700_000_000 + i, MACHINE_A,
                             {PARSE: 1000.0 * (1.12 if i >= 12 else 1.0), HOSTILE: 300.0}, seed=i))
    page = tmp_path / "history.html"
    code, out, err = cli("history", "--store", store, "--repo", str(root), "--html", str(page))
    assert code == 0, err
    text = page.read_text()
    assert text.count("<svg") == 2 and "<script>alert" not in text
    with Browser(tmp_path / "profile") as browser:
        session = browser.open(page.as_uri())
        sizes = json.loads(browser.evaluate(SVG_SIZES, session))
        shown = browser.evaluate("document.body.innerText", session)
        scripts = browser.evaluate("[...document.scripts].map(s => s.type + '#' + s.id)", session)
        data = browser.evaluate("JSON.parse(document.getElementById('benchwarden-data').textContent)", session)
        problems = browser.problems()
        requests = browser.requests()
    assert problems == [] and requests == [page.as_uri()]
    assert len(sizes) == 2 and all(w > 200 and h > 100 for w, h in sizes)
    assert scripts == ["application/json#benchwarden-data"] and f"suite:{EVIL}" in shown
    assert f"{shas[11][:8]}..{shas[12][:8]}" in shown  # the change point's row
    by_name = {s["benchmark"]: s for s in data["series"]}
    assert [c["after"] for c in by_name["suite:parse"]["change_points"]] == [shas[12]]
    assert by_name[f"suite:{EVIL}"]["change_points"] == []


def test_an_unwritable_html_path_is_exit_2(tmp_path, repo):  # noqa: F811
    root, shas = repo
    store = str(tmp_path / "results.db")
    with open_store(store) as s:
        s.import_run(run(shas[0], 1_700_000_000, MACHINE_A, {PARSE: 1000.0}, seed=1))
    (tmp_path / "file").write_text("")
    code, out, err = cli("history", "--store", store, "--repo", str(root), "--html", str(tmp_path / "file" / "x.html"))
    assert code == 2 and "cannot write" in err and "Traceback" not in err
