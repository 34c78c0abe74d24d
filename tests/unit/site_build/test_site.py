"""`site build`: page data against references (scipy, numpy, history's own analysis), the written folder (links,
escaping, embedded JSON, sizes) and the command's errors, on a seeded synthetic store (tests/support/site_store.py)."""

from __future__ import annotations

import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scistats

from benchwarden.cli import main
from benchwarden.site import pages
from benchwarden.site.build import build_site
from benchwarden.site.collect import collect
from benchwarden.store import open_store
from benchwarden.units import from_ns_per_op
from tests.support.site_store import HOSTILE, TAG, make_store

COMMITS = 12


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    made = make_store(str(root / "results.db"), n_benchmarks=10, commits=COMMITS)
    with open_store(made.path) as store:
        data = collect(store, None)
    return made, data, root


def bw(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_collect_finds_every_series_the_comparison_and_prefers_ordinary_runs(synthetic):
    made, data, _ = synthetic
    assert len(data.runs) == COMMITS + 2 and len(data.histories) == len(made.benchmarks)
    assert [len(h.series.points) for h in data.histories] == [COMMITS] * len(made.benchmarks)
    [stored] = data.comparisons
    assert stored.comparison.gate == "regression"
    assert [b.name for b in stored.comparison.failures] == [str(made.benchmarks[0].id)]  # 1.3x slower, paired
    latest = data.latest_results()
    assert set(latest) == {str(b.id) for b in made.benchmarks}
    # the compare session's runs are newer, but the page shows the newest ordinary run of the benchmark
    assert latest[str(made.benchmarks[0].id)][0].meta.label == f"nightly {COMMITS - 1}"
    assert {(suite, run.meta.label) for suite, _, run in data.latest_runs()} == {
        ("wordstat", "compare candidate: candidate"), ("evil", f"nightly {COMMITS - 1}"),
        ("bulk", f"nightly {COMMITS - 1}")}


def test_commit_interval_is_scipys_t_interval_on_the_logs():
    logs = [math.log(v) for v in (101.0, 99.0, 104.0, 98.5)]
    low, high = pages.commit_interval(logs, 0.95)
    ref = scistats.t.interval(0.95, len(logs) - 1, loc=np.mean(logs), scale=scistats.sem(logs))
    assert (low, high) == pytest.approx((math.exp(ref[0]), math.exp(ref[1])), rel=1e-12)
    assert pages.commit_interval([math.log(5.0)]) is None


def test_history_figure_shows_history_s_change_point_at_the_step(synthetic):
    made, data, _ = synthetic
    stepped = [h for h in data.histories if h.series.benchmark in made.stepped]
    flat = [h for h in data.histories if h.series.benchmark not in made.stepped]
    assert stepped and all(len(h.changes) == 1 and h.changes[0].test.index == made.step_commit for h in stepped)
    assert all(not h.changes for h in flat)
    h = next(x for x in stepped if x.series.unit == "us/op")
    figure = pages.history_figure(h, 0)
    per_commit, level, change = figure.data
    assert per_commit["x"] == list(range(1, COMMITS + 1))
    expected = [from_ns_per_op(math.exp(v), h.series.unit) for v in h.detection.runs.values]
    assert per_commit["y"] == pytest.approx(expected)
    assert all(e > 0 for e in per_commit["error_y"]["array"] + per_commit["error_y"]["arrayminus"])
    assert change["x"] == [made.step_commit + 0.5]
    assert figure.layout["shapes"][0]["x0"] == made.step_commit + 0.5
    # two segment levels, the second 25 % above the first
    levels = [y for y in level["y"] if y is not None]
    assert levels[2] / levels[0] == pytest.approx(1.25, rel=0.02)
    # the step commit's subject holds markup: plotly gets it as entities, the table as plain text
    subject = per_commit["customdata"][made.step_commit][1]
    assert subject == "commit 7 &lt;slow&gt; &amp; 'quoted'"
    assert figure.rows[made.step_commit][1] == "commit 7 <slow> & 'quoted'"
    assert len(figure.rows) == COMMITS


def test_throughput_is_shown_in_its_unit_with_bounds_in_order(synthetic):
    _, data, _ = synthetic
    h = next(x for x in data.histories if x.series.unit == "ops/s")
    figure = pages.history_figure(h, 0)
    y = figure.data[0]["y"]
    assert all(700_000 < v < 900_000 for v in y)  # ~1/1.3 us per op
    low, high = (float(t) for t in figure.rows[0][5].strip("[]").split(","))
    assert low < float(figure.rows[0][4]) < high


def test_fork_and_iteration_figures_match_the_data(synthetic):
    made, data, _ = synthetic
    run, result = data.latest_results()[str(made.benchmarks[9].id)]
    forks = pages.forks_figure(result, 0)
    for trace, row, fork in zip(forks.data, forks.rows, result.forks):
        values = np.array([from_ns_per_op(it.value_ns, result.benchmark.unit) for it in fork.measurement])
        assert trace["y"] == pytest.approx(values.tolist()) and trace["boxmean"] == "sd"
        assert float(row[2]) == pytest.approx(values.mean(), rel=1e-3)
        assert float(row[4]) == pytest.approx(np.median(values), rel=1e-3)
    iterations = pages.iterations_figure(result, 0)
    assert len(iterations.data) == 2 * len(result.forks)  # warmup and measurement of each fork
    warm, measured = iterations.data[:2]
    assert warm["x"] == [1, 2] and measured["x"] == [3, 4, 5, 6, 7]


def test_parameter_curves_one_per_axis_one_line_per_other_value(synthetic):
    made, data, _ = synthetic
    latest = data.latest_results()
    family = [(latest[str(b.id)][1], pages.summarize(latest[str(b.id)][1])) for b in made.benchmarks
              if b.id.name == "Parse.parse"]
    size, mode = pages.param_figures("Parse.parse", family, 0)
    assert [t["name"] for t in size.data] == ["mode=fast", "mode=slow"]
    assert size.data[0]["x"] == [10.0, 100.0, 1000.0] and size.layout["xaxis"]["type"] == "log"
    means = {dict(r.benchmark.id.params)["size"]: s.mean for r, s in family if dict(r.benchmark.id.params)["mode"]
             == "fast"}
    assert size.data[0]["y"] == [means["10"], means["100"], means["1000"]]
    assert [t["name"] for t in mode.data] == ["size=10", "size=100", "size=1000"]
    assert mode.data[0]["x"] == ["fast", "slow"] and "type" not in mode.layout["xaxis"]
    # slow is 3x fast in the synthetic store (size=1000: neither has the step)
    assert mode.data[2]["y"][1] / mode.data[2]["y"][0] == pytest.approx(3.0, rel=0.05)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        for name in ("href", "src"):
            if found.get(name):
                self.links.append(found[name])
        if found.get("id"):
            self.ids.append(found["id"])
        if tag == "script":
            self.scripts.append(found)


def test_the_written_site_links_resolve_names_stay_text_and_data_is_safe_json(synthetic, tmp_path):
    made, data, _ = synthetic
    report = build_site(data, tmp_path / "site")
    out = tmp_path / "site"
    assert set(report.assets) == {"assets/plotly.min.js", "assets/site.js"}
    assert report.assets["assets/plotly.min.js"] > 1_000_000
    assert len([p for p in report.pages if p.startswith("benchmarks/")]) == len(made.benchmarks)
    assert "comparisons/1.html" in report.pages and "index.html" in report.pages
    for relative, size in report.pages.items():
        page = out / relative
        text = page.read_text(encoding="utf-8")
        assert size == len(text.encode()) and size < 1_000_000
        parser = _Links()
        parser.feed(text)
        for link in parser.links:
            assert not re.match(r"[a-z]+:", link), f"{relative}: external link {link}"
            if link.startswith("#"):
                assert link[1:] in parser.ids, f"{relative}: no anchor {link}"
                continue
            target = (page.parent / link.split("#")[0]).resolve()
            assert target.is_file(), f"{relative}: {link} does not resolve"
        # the name's markup never became an element: the only scripts are the data and the two asset files
        assert [s.get("type") or s.get("src") for s in parser.scripts if relative != "comparisons/1.html"] in (
            [], ["application/json", "../assets/plotly.min.js", "../assets/site.js"],
            ["application/json", "assets/plotly.min.js", "assets/site.js"])
        assert "<script>alert" not in text and "<b>bold</b>" not in text
        embedded = re.search(r'<script type="application/json" id="benchwarden-data">(.*?)</script>', text, re.S)
        assert embedded and "<" not in embedded.group(1) and ">" not in embedded.group(1)
        payload = json.loads(embedded.group(1))
        if "figures" in payload:
            assert {f["id"] for f in payload["figures"]} <= set(parser.ids)
    evil = out / f"benchmarks/{pages.slug(f'evil:{HOSTILE}[size=1,tag={TAG}]')}.html"
    text = evil.read_text(encoding="utf-8")
    assert "evil:&lt;/script&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in text
    figures = json.loads(re.search(r'id="benchwarden-data">(.*?)</script>', text, re.S).group(1))["figures"]
    assert {"history-0", "iterations-0", "forks-0", "params-0"} == {f["id"] for f in figures}
    assert figures[-1]["data"][0]["name"] == "tag=&lt;i&gt;it&lt;/i&gt;&amp;amp;"  # drawn as the text it is
    index = (out / "index.html").read_text(encoding="utf-8")
    # regressions and change points lead the overview
    assert index.index('id="comparisons"') < index.index('id="changes"') < index.index('id="benchmarks"')
    assert index.count('class="num v-slower"') == len(made.stepped)


def test_slugs_are_unique_safe_file_names():
    names = ["a:B", "a:b", "a:b/../../x", "a:" + HOSTILE, "a:" + "x" * 500, "a:ä"]
    slugs = [pages.slug(n) for n in names]
    assert len(set(slugs)) == len(names)
    assert all(re.fullmatch(r"[a-z0-9._-]+", s) and len(s) <= 71 and ".." not in s.split("-")[0] for s in slugs)


def test_cli_builds_and_refuses_bad_input_with_exit_2(synthetic, tmp_path):
    made, _, _ = synthetic
    status, out, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "s"), "--repo", str(tmp_path))
    assert status == 0, err
    assert "site: 12 page(s)" in out and (tmp_path / "s" / "index.html").is_file()
    status, _, err = bw("site", "build", "--store", str(tmp_path / "none.db"), "-o", str(tmp_path / "t"))
    assert status == 2 and "no store at" in err and not (tmp_path / "none.db").exists()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(blocker))
    assert status == 2 and "exists and is not a folder" in err
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(blocker / "below"))
    assert status == 2 and "cannot write the site into" in err
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "u"), "--assessment",
                        str(blocker))
    assert status == 2 and "not JSON" in err
    (tmp_path / "a.json").write_text('{"suites": 3}')
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "u"), "--assessment",
                        str(tmp_path / "a.json"))
    assert status == 2 and "not an `assess --json` document" in err


def test_an_assessment_document_gets_its_page(synthetic, tmp_path):
    from benchwarden.assess.export import assessment_to_json
    from tests.unit.assess.test_campaign import campaign, make_suite

    made, _, _ = synthetic
    doc = assessment_to_json(campaign(tmp_path, make_suite(tmp_path))[0].run())
    # the implicit binding: tracing saw the parameterised Parse.parse call lib:a (a K′ method); "fast" has no
    # parameters, so what it reaches documents no growth
    doc["suite"] = "wordstat"
    doc["reach"]["Parse.parse[size=10,mode=fast]"] = {"lib:a": 3, "lib:unselected": 1}
    assert "lib:b" in doc["reach"]["fast"]
    (tmp_path / "assess.json").write_text(json.dumps({"v": 1, "suites": [doc]}))
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "s"), "--assessment",
                        str(tmp_path / "assess.json"))
    assert status == 0, err
    page = (tmp_path / "s" / "assessment.html").read_text(encoding="utf-8")
    assert "Detection matrix" in page and 'href="index.html"' in page
    index = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert 'href="assessment.html"' in index
    [method_page] = (tmp_path / "s" / "methods").glob("*.html")
    assert method_page.name.startswith("lib-a-") and "≈ linear in size (O(n))" in method_page.read_text(
        encoding="utf-8")


def test_documented_methods_get_a_fitted_class_per_parameter_and_bad_bindings_are_config_errors(synthetic, tmp_path):
    from benchwarden.site.methods import axis_fits, documented

    made, data, _ = synthetic
    latest = data.latest_results()
    summaries = {name: pages.summarize(result) for name, (_, result) in latest.items()}
    bound = documented({"Parser.parse(String)": ["wordstat:Parse.parse", "none:Nope"]}, latest, summaries)
    members = bound["Parser.parse(String)"]
    assert len(members["wordstat:Parse.parse"]) == 6 and members["none:Nope"] == []
    fits = axis_fits("wordstat:Parse.parse", [(r, s) for _, r, s in members["wordstat:Parse.parse"]])
    # size is numeric with 3 values: one fit per mode; mode is not numeric: no fit
    assert [(f.axis, f.label) for f in fits] == [("size", "mode=fast"), ("size", "mode=slow")]
    slow = fits[1]
    assert slow.n == (10.0, 100.0, 1000.0) and slow.fit is not None
    assert slow.fit.best.name == "linear" and slow.fit.best.r2 > 0.99 and 0.9 < slow.fit.exponent < 1.1
    assert slow.summary().startswith("≈ linear in size (O(n)), R² ")

    config = tmp_path / "benchwarden.toml"
    config.write_text('[store]\nurl = "%s"\n\n[docs.methods]\n"Parser.parse(String)" = ["wordstat:Parse.parse"]\n'
                      '"<b>x</b>" = ["none:Nope"]\n' % made.path)
    status, out, err = bw("site", "build", "--config", str(config), "-o", str(tmp_path / "s"))
    assert status == 0, err
    method_pages = sorted((tmp_path / "s" / "methods").glob("*.html"))
    assert len(method_pages) == 2 and "site: 14 page(s)" in out
    parse_page = next(p for p in method_pages if p.name.startswith("parser.parse"))
    text = parse_page.read_text(encoding="utf-8")
    assert "≈ linear in size (O(n))" in text and "fit-0" in text
    index = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert 'id="methods"' in index and "&lt;b&gt;x&lt;/b&gt;" in index and "not measured" in index
    config.write_text('[docs.methods]\n"m" = ["Parse.parse[size=10]"]\n')
    status, _, err = bw("site", "build", "--config", str(config), "--store", made.path, "-o", str(tmp_path / "t"))
    assert status == 2 and "docs.methods" in err and "is not 'suite:name'" in err


def test_the_audit_of_a_jmh_project_gets_its_page(synthetic, tmp_path):
    made, _, _ = synthetic
    example = Path(__file__).resolve().parents[3] / "examples" / "jmh"
    status, out, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "s"), "--audit", str(example))
    assert status == 0, err
    page = (tmp_path / "s" / "audit.html").read_text(encoding="utf-8")
    assert "JMH configuration audit" in page and "TokenizeBench.tokenize" in page and 'href="index.html"' in page
    assert 'href="audit.html"' in (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    status, _, err = bw("site", "build", "--store", made.path, "-o", str(tmp_path / "t"), "--audit",
                        str(tmp_path / "missing"))
    assert status == 2 and "does not exist" in err


def test_the_same_site_from_a_postgresql_store(pg_cluster, synthetic, tmp_path):
    """The store API only: a PostgreSQL store with the same runs gives the same pages (the throwaway server of
    tests/support/postgres.py)."""
    made, data, _ = synthetic
    url = pg_cluster.url(pg_cluster.create_database())
    make_store(url, n_benchmarks=10, commits=COMMITS)
    with open_store(url) as store:
        from_pg = collect(store, None)
    assert [len(h.series.points) for h in from_pg.histories] == [len(h.series.points) for h in data.histories]
    assert [[c.test.index for c in h.changes] for h in from_pg.histories] == \
        [[c.test.index for c in h.changes] for h in data.histories]
    assert [c.comparison.gate for c in from_pg.comparisons] == ["regression"]
    status, out, err = bw("site", "build", "--store", url, "-o", str(tmp_path / "s"))
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "s" / "benchmarks").glob("*.html")) == \
        sorted(f"{pages.slug(str(b.id))}.html" for b in made.benchmarks)
