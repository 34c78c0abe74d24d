"""`assess` on the command line (errors name what and where), and its JSON, tables and HTML from a real campaign."""

from __future__ import annotations

import io
import json
import re

from benchwarden.assess.export import assessment_to_json
from benchwarden.cli import main
from benchwarden.report.assess_html import assessment_html
from benchwarden.report.assess_tables import (
    abs_table,
    cost_lines,
    fmt_slowdown,
    matrix_table,
    methods_table,
    variability_table,
)
from tests.unit.assess.test_campaign import campaign, make_suite


def run_cli(tmp_path, toml: str, *args: str) -> tuple[int, str, str]:
    (tmp_path / "benchmarks").mkdir(exist_ok=True)
    (tmp_path / "benchwarden.toml").write_text(toml, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = main(["assess", "--config", str(tmp_path / "benchwarden.toml"), *args], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


PY_SUITE = '[suites.lib]\nkind = "python"\nbenchmarks = "benchmarks"\n'


def test_a_method_name_in_the_wrong_notation_is_a_usage_error(tmp_path):
    status, _, err = run_cli(tmp_path, PY_SUITE, "--methods", "wordstat.tokenize")
    assert status == 2 and "--methods: 'wordstat.tokenize' is not a python method name" in err
    assert "module:function" in err


def test_config_errors_name_the_file_and_key(tmp_path):
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nmetods = ["x:y"]\n')
    assert status == 2 and "benchwarden.toml: assess.metods: unknown key" in err
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nmethods = ["x.y"]\n')
    assert status == 2 and "assess.methods" in err and "'x.y' is not a python method name" in err


def test_command_suites_cannot_be_assessed(tmp_path):
    toml = '[suites.cli]\nkind = "command"\ncommands = { hi = "true" }\n'
    status, _, err = run_cli(tmp_path, toml)
    assert status == 2 and "no suite to assess: slowdown injection exists for suites of kind go, jmh, junit, python" in err
    status, _, err = run_cli(tmp_path, toml, "--suite", "cli")
    assert status == 2 and "cannot be assessed" in err


def test_slowdown_and_rule_options_are_strict(tmp_path):
    status, _, err = run_cli(tmp_path, PY_SUITE, "--slowdown", "fast")
    assert status == 2 and "--slowdown" in err and "expected a slowdown such as '10%'" in err
    status, _, err = run_cli(tmp_path, PY_SUITE, "--slowdown", "-10%")
    assert status == 2 and "positive slowdown" in err
    status, _, err = run_cli(tmp_path, PY_SUITE, "--rule", "study", "--max-forks", "3")
    assert status == 2 and "--max-forks applies to the compare rule" in err
    status, _, err = run_cli(tmp_path, PY_SUITE, "--min-forks", "6")  # after the default last look, 5
    assert status == 2 and "--min-forks" in err and "after the last, 5" in err
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nmin_forks = 4\nmax_forks = 3\n')
    assert status == 2 and "min_forks (4) must not exceed max_forks (3)" in err
    status, _, err = run_cli(tmp_path, PY_SUITE, "--forks", "3")  # the old name is not silently accepted
    assert status == 2 and "--forks" in err
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nslowdown = "lots"\n')
    assert status == 2 and "assess.slowdown" in err


def test_json_tables_and_html_of_the_compare_rule(tmp_path):
    result = campaign(tmp_path, make_suite(tmp_path), slowdown=0.1, min_change=0.05)[0].run()
    doc = assessment_to_json(result)
    json.dumps(doc, allow_nan=False)
    assert doc["rule"] == "compare" and doc["slowdown"]["v"] == 0.1
    a = next(m for m in doc["abs"]["methods"] if m["method"] == "lib:a")
    assert a["undecided_by"] == ["noisy"] and 0.05 < a["detection_threshold"] < 0.15
    cell = next(d for d in doc["detections"] if (d["method"], d["benchmark"]) == ("lib:a", "noisy"))
    assert cell["outcome"] == "undecided" and "slowed_forks" not in cell  # screened: never slowed
    assert cell["screened"] and cell["mdc"] > 0.1 and f"{cell['mdc']:.1%}" in cell["warnings"][0]
    assert not next(d for d in doc["detections"] if (d["method"], d["benchmark"]) == ("lib:a", "fast"))["screened"]
    assert "not measured" in cell["warnings"][0] and "more than the 10% a method can cause" in cell["warnings"][0]
    table = methods_table(doc)
    titles = [c.title for c in table.columns]
    row_a = next(r for r in table.rows if r[0] == "lib:a")
    assert row_a[titles.index("not detectable at this budget")] == "noisy"
    assert row_a[titles.index("detects from")].endswith("%")
    c = next(m for m in doc["abs"]["methods"] if m["method"] == "lib:c")  # uncovered: a lower bound
    row_c = next(r for r in table.rows if r[0] == "lib:c")
    assert c["detection_threshold"] is None and c["detection_threshold_at_least"] > 0
    assert row_c[titles.index("detects from")] == "≥ " + fmt_slowdown(c["detection_threshold_at_least"])
    matrix = matrix_table(doc)
    row_a = next(r for r in matrix.rows if r[0] == "lib:a")
    cols = [c.title for c in matrix.columns]
    assert row_a[cols.index("noisy")].startswith("? ") and row_a[cols.index("fast")].startswith("✓ +")
    html = assessment_html([doc]).decode()
    assert "not detectable at this budget" in html and "v-inconclusive" in html


def test_json_tables_and_html_of_a_campaign(tmp_path):
    result = campaign(tmp_path, make_suite(tmp_path), rule="study")[0].run()
    doc = assessment_to_json(result)
    json.dumps(doc, allow_nan=False)  # strict JSON: no NaN sneaks in
    assert doc["v"] == 1 and doc["cost"]["study_runs"] == 2 * (4 + 1)
    assert [m["method"] for m in doc["abs"]["methods"]][:2] == ["lib:c", "lib:zzz"]  # uncovered first
    assert {d["benchmark"] for d in doc["detections"] if d["method"] == "lib:a"} == {"fast", "noisy"}
    assert abs_table(doc).rows[0][:3] == ["total (all benchmarks)", "50%", "2/4"]
    assert methods_table(doc).rows[0][1] == "NO"
    assert any(r[0] == "noisy" and r[-1].startswith("UNSTABLE") for r in variability_table(doc).rows)
    matrix = matrix_table(doc)
    row_a = next(r for r in matrix.rows if r[0] == "lib:a")
    assert row_a[1 + [c.title for c in matrix.columns[1:]].index("fast")].startswith("✓")
    # HTML: user data is escaped, the data is embedded as JSON, plots are inline SVG, nothing external
    doc["variability"]["benchmarks"][0]["key"] = "<script>alert(1)</script>"
    doc["abs"]["methods"][0]["method"] = "lib:<img src=x>"
    html = assessment_html([doc]).decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x>" not in html
    assert "Detection matrix" in html and html.count("<svg") == 1
    assert not re.search(r"""(src|href)=["']https?:""", html)
    data = re.search(r'<script type="application/json" id="benchwarden-data">(.*?)</script>', html, re.S).group(1)
    assert json.loads(data)["suites"][0]["suite"] == "lib"


def test_the_cost_line_says_when_methods_shared_slowed_variants():
    cost = {"used_s": 10.0, "trace_s": 1.0, "prepare_s": 2.0, "injected_s": 7.0, "study_s": 100.0, "study_runs": 14,
            "full_run_s": 7.1, "ratio": 0.1, "variability_s": 3.0, "wall_s": 20.0, "variants": 2, "methods": 6}
    assert "preparing 2.0s for 2 slowed variants of 6 methods, slowed runs" in cost_lines({"cost": cost})[0]
    for variants in (6, 0):  # one variant per method, or none prepared: nothing to say
        line = cost_lines({"cost": {**cost, "variants": variants}})[0]
        assert "preparing 2.0s, slowed runs" in line


def test_an_interrupted_suite_ends_the_assessment_as_interrupted(tmp_path, monkeypatch):
    """Ctrl-C during a suite's runs (a RunInterrupted from the runner) is not that suite's error: the next suite
    is not assessed and the exit status says interrupted (130), as for run."""
    from benchwarden.assess import campaign as campaign_module
    from benchwarden.runner.engine import RunInterrupted

    started: list[str] = []

    def interrupted(self):
        started.append(self.suite.name)
        raise RunInterrupted(7)

    monkeypatch.setattr(campaign_module.Campaign, "run", interrupted)
    two = PY_SUITE + '[suites.other]\nkind = "python"\nbenchmarks = "benchmarks"\n'
    status, out, err = run_cli(tmp_path, two, "--methods", "lib:f")
    assert status == 130 and started == ["lib"] and "run 7" in err and "error:" not in err, err


def test_the_wait_clock_is_checked_against_the_suite_s_metric(tmp_path):
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nwait_clock = "cycles"\n')
    assert status == 2 and "assess.wait_clock" in err
    status, _, err = run_cli(tmp_path, PY_SUITE + '[assess]\nwait_clock = "cpu"\n')  # the suite measures wall time
    assert status == 2 and "wait_clock = \"cpu\" is for suites measured in CPU time" in err and "'lib'" in err
