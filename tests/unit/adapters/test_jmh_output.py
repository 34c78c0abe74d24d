"""Golden-file tests of the JMH parsers, on real JMH output captured by tests/data/jmh/capture_goldens.py.

Console output is checked against the ``-rf json`` file JMH wrote in the *same* run (an independent record
of the same iterations): every printed value must be the JSON value rounded to JMH's 3 decimals.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchwarden.adapters.jmh_output import (
    IterationStreamParser,
    _armor_decode,
    display_unit,
    import_jmh_json,
    parse_benchmark_list,
    parse_iterations,
    parse_listing,
    resolve_listing,
)
from benchwarden.errors import ForkFailed, ImportFormatError, ListingFailed
from benchwarden.model import Direction, ForkStatus
from benchwarden.units import to_ns_per_op

DATA = Path(__file__).resolve().parents[2] / "data" / "jmh"

EXAMPLE = {  # the example suite's declared benchmarks (examples/jmh/src/main/java/wordstat/bench)
    "wordstat.bench.TopKBench.topK": ("thrpt", "ops/ms"),
    "wordstat.bench.CountWordsBench.countHash": ("avgt", "us/op"),
    "wordstat.bench.CountWordsBench.countSorted": ("avgt", "us/op"),
    "wordstat.bench.NoisyBench.noisy": ("avgt", "us/op"),
    "wordstat.bench.TokenizeBench.tokenize[size=100]": ("avgt", "ns/op"),
    "wordstat.bench.TokenizeBench.tokenize[size=1000]": ("avgt", "ns/op"),
}


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def listed_benchmarks(tag: str, suite: str = "s"):
    infos = resolve_listing(parse_listing(read(f"listing-{tag}.lp.txt")),
                            parse_benchmark_list(read(f"BenchmarkList-{tag}.txt")))
    return [info.to_benchmark(suite) for info in infos]


def json_iterations(name: str) -> list[float]:
    """Iteration scores of the single fork in a run's JSON (sample mode: histogram means)."""
    metric = json.loads(read(name))[0]["primaryMetric"]
    if "rawData" in metric:
        return list(metric["rawData"][0])
    return [sum(v * c for v, c in it) / sum(c for _, c in it) for it in metric["rawDataHistogram"][0]]


def feed_all(parser: IterationStreamParser, lines: list[str]) -> list[tuple[int, object]]:
    """(1-based line number that completed it, result) for every iteration."""
    out = []
    for lineno, line in enumerate(lines, start=1):
        out.extend((lineno, r) for r in parser.feed(line))
    out.extend((len(lines), r) for r in parser.finish())
    return out


# ---------------------------------------------------------------- listing


@pytest.mark.parametrize("tag", ["1.37", "1.21"])
def test_listing_of_the_example_has_every_benchmark_mode_unit_and_param_combination(tag):
    benchmarks = listed_benchmarks(tag)
    assert {b.id.key: (b.mode, b.unit) for b in benchmarks} == EXAMPLE
    assert len(benchmarks) == len(EXAMPLE)
    by_key = {b.id.key: b for b in benchmarks}
    topk = by_key["wordstat.bench.TopKBench.topK"]
    assert topk.direction is Direction.HIGHER_IS_BETTER
    assert json.loads(topk.spec["jvm_args_append"]) == ["-Dwordstat.k=10"]  # @Fork(jvmArgsAppend)
    assert "jvm_args_append" not in by_key["wordstat.bench.NoisyBench.noisy"].spec
    assert by_key["wordstat.bench.TokenizeBench.tokenize[size=1000]"].id.params == (("size", "1000"),)
    assert {b.spec["benchmark"] for b in benchmarks} == {k.split("[")[0] for k in EXAMPLE}


def test_jmh_1_37_armours_param_values_and_1_21_does_not():
    new = {e.username: e for e in parse_benchmark_list(read("BenchmarkList-1.37.txt"))}
    old = {e.username: e for e in parse_benchmark_list(read("BenchmarkList-1.21.txt"))}
    name = "wordstat.bench.TokenizeBench.tokenize"
    assert old[name].params == {"size": ("100", "1000")}
    assert new[name].params != old[name].params
    assert tuple(_armor_decode(v) for v in new[name].params["size"]) == ("100", "1000")
    assert new[name].mode == "AverageTime" and new[name].time_unit == "NANOSECONDS"


def test_a_method_with_two_modes_is_listed_once_per_mode():
    keys = sorted((b.id.key, b.mode, b.unit) for b in listed_benchmarks("broken"))
    assert ("broken.BrokenBench.fine@avgt", "avgt", "ns/op") in keys
    assert ("broken.BrokenBench.fine@thrpt", "thrpt", "ops/ns") in keys
    assert ("broken.BrokenBench.crash", "avgt", "ns/op") in keys
    assert len(keys) == 6


def _java_armor_encode(src: str) -> str:
    """Reference encoder transcribed from JMH's Armor.encode (3 UTF-16 units -> 8 symbols, '=' pads)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
    raw = src.encode("utf-16-le", errors="surrogatepass")
    units = [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]
    out = []
    for start in range(0, len(units), 3):
        block = units[start:start + 3]
        data = b"".join(u.to_bytes(2, "little") for u in block + [0] * (3 - len(block)))
        bits = int.from_bytes(data, "little")
        symbols = [alphabet[(bits >> (6 * i)) & 0x3F] for i in range(8)]
        used = {1: 3, 2: 6, 3: 8}[len(block)]
        out.append("".join(symbols[:used]) + "=" * (8 - used))
    return "".join(out)


@given(st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=40))
def test_armor_decoding_inverts_jmh_encoding(text):
    assert _armor_decode(_java_armor_encode(text)) == text


def test_armor_reference_encoder_agrees_with_a_real_jar():
    assert _java_armor_encode("100") == "xAAMAADA"
    assert _java_armor_encode("1000") == "xAAMAADAwAA====="  # both as written in BenchmarkList-1.37.txt
    assert "xAAMAADAwAA=====" in read("BenchmarkList-1.37.txt")


def test_param_combinations_are_the_cartesian_product_sorted_by_name():
    lp = 'Benchmarks: \np.C.m\n  param "zeta" = {a, b, c}\n  param "alpha" = {1, 2}\n'
    infos = resolve_listing(parse_listing(lp), [])
    assert [i.params for i in infos] == [
        (("alpha", a), ("zeta", z)) for a in ("1", "2") for z in ("a", "b", "c")]
    assert {(i.mode, i.unit) for i in infos} == {("thrpt", "ops/s")}  # JMH's defaults without a BenchmarkList entry


def test_listing_errors_name_the_source_and_line():
    with pytest.raises(ListingFailed, match="no 'Benchmarks:' line"):
        parse_listing("Error: Unable to access jarfile x.jar\n", source="x.jar -lp")
    with pytest.raises(ListingFailed, match=r"x\.jar -lp:3: unexpected line.*'oops, not a name'"):
        parse_listing("Benchmarks: \np.C.m\noops, not a name\n", source="x.jar -lp")
    lines = read("BenchmarkList-1.37.txt").splitlines()
    lines[2] = lines[2].replace(" S 11 AverageTime", " X 11 AverageTime")
    with pytest.raises(ListingFailed, match=r"BL:3: not a JMH benchmark list entry"):
        parse_benchmark_list("\n".join(lines), source="BL")


def test_display_units_follow_mode_and_output_time_unit():
    assert display_unit("Throughput", None) == "ops/s"
    assert display_unit("avgt", "MICROSECONDS") == "us/op"
    assert display_unit("ss", "MINUTES") == "min/op"


# ---------------------------------------------------------------- streaming iteration output


@pytest.mark.parametrize("name, mode, unit, count", [
    ("run-avgt-params", "avgt", "ns/op", 4),
    ("run-thrpt-fork-args", "thrpt", "ops/s", 4),
    ("run-sample", "sample", "ns/op", 3),
    ("run-ss", "ss", "ns/op", 5),
    ("run-multimode-avgt", "avgt", "ns/op", 2),
    ("run-avgt-1.21", "avgt", "ns/op", 4),
])
def test_iterations_match_the_json_jmh_wrote_in_the_same_run(name, mode, unit, count):
    results, parser = parse_iterations(read(f"{name}.txt").splitlines(), "b", mode)
    expected = json_iterations(f"{name}.json")
    assert len(results) == len(expected) == count
    for got, want in zip(results, expected):
        assert got.raw_value == pytest.approx(round(want, 3), abs=5e-4)
        assert got.value_ns == pytest.approx(to_ns_per_op(got.raw_value, unit), rel=1e-12)
        assert got.value_ns > 0
    assert parser.failure is None and parser.finished
    assert parser.header["Benchmark mode"].split(",")[0] in {
        "Average time", "Throughput", "Sampling time", "Single shot invocation time"}


def test_throughput_is_inverted_to_ns_per_op():
    results, _ = parse_iterations(read("run-thrpt-fork-args.txt").splitlines(), "b", "thrpt")
    assert all(r.value_ns == pytest.approx(1e9 / r.raw_value) for r in results)


def test_each_iteration_is_returned_by_the_line_that_completes_it():
    lines = read("run-avgt-params.txt").splitlines()
    emitted = feed_all(IterationStreamParser("b", "avgt"), lines)
    assert [lineno for lineno, _ in emitted] == [i + 1 for i, line in enumerate(lines) if line.startswith("Iteration")]


def test_sample_mode_keeps_percentiles_and_emits_at_the_end_of_the_block():
    lines = read("run-sample.txt").splitlines()
    emitted = feed_all(IterationStreamParser("b", "sample"), lines)
    starts = [i + 1 for i, line in enumerate(lines) if line.startswith("Iteration")]
    for start, (lineno, result) in zip(starts, emitted):
        assert lineno == start + 9  # 8 percentile lines, then the blank line ends the block
        assert lines[lineno - 1] == ""
        assert list(result.secondary) == [f"p{p} [ns/op]" for p in
                                          ("0.00", "0.50", "0.90", "0.95", "0.99", "0.999", "0.9999", "1.00")]
        assert result.secondary["p0.00 [ns/op]"] <= result.secondary["p0.50 [ns/op]"] <= result.secondary["p1.00 [ns/op]"]
    first = lines[starts[0]].split()  # "p0.00:   10304.000 ns/op"
    assert emitted[0][1].secondary["p0.00 [ns/op]"] == float(first[1])


def test_a_benchmark_exception_is_a_failure_with_its_exception_line():
    results, parser = parse_iterations(read("run-crash.txt").splitlines(), "b", "avgt")
    assert len(results) == 2
    assert parser.failure == "failure"
    assert parser.failure_detail == "java.lang.IllegalStateException: deliberate crash in iteration 3"


def test_a_dead_benchmark_jvm_is_a_failure():
    results, parser = parse_iterations(read("run-exitVm.txt").splitlines(), "b", "avgt")
    assert len(results) == 2
    assert parser.failure == "forked VM failed with exit code 3"


def test_garbage_in_an_iteration_line_raises_naming_the_line_and_keeps_earlier_results():
    lines = read("run-garbage.txt").splitlines()
    bad = next(i + 1 for i, line in enumerate(lines) if line.startswith("Iteration   3:"))
    parser = IterationStreamParser("suite:broken.BrokenBench.garbage", "avgt")
    results = []
    with pytest.raises(ForkFailed) as info:
        for line in lines:
            results.extend(parser.feed(line))
    assert info.value.reason == "garbage"
    assert f"output line {bad}:" in info.value.detail and "garbage!" in info.value.detail
    assert str(info.value).startswith("suite:broken.BrokenBench.garbage: fork garbage")
    assert [r.raw_value for r in results] == pytest.approx([round(v, 3) for v in json_iterations("run-garbage.json")[:2]], abs=5e-4)


@pytest.mark.parametrize("name", ["run-sigkill-during-iteration-3", "run-sigterm-during-iteration-3"])
def test_output_cut_short_during_an_iteration_is_incomplete_not_garbage(name):
    text = read(f"{name}.txt")
    assert text.endswith("Iteration   3: ")  # no newline: the process died mid-iteration
    results, parser = parse_iterations(text.splitlines(), "b", "avgt")
    assert len(results) == 2
    assert parser.incomplete == 3 and parser.failure is None and not parser.finished


@pytest.mark.parametrize("line, why", [
    ("Iteration   1: ≈ 10⁻⁴ s/op", "printing precision"),
    ("Iteration   1: NaN ns/op", "not a value"),
    ("Iteration   1: 12.0 furlongs/op", "unknown unit"),
    ("Iteration   1: 12.0", "cannot read"),
    ("Iteration   2: 12.0 ns/op", "iteration 2 follows iteration 0"),
])
def test_malformed_iteration_lines_are_garbage(line, why):
    parser = IterationStreamParser("b", "avgt")
    parser.feed("# Fork: 1 of 1")
    with pytest.raises(ForkFailed, match=why) as info:
        parser.feed(line)
    assert info.value.reason == "garbage" and "output line 2" in info.value.detail


def test_decimal_comma_from_a_non_english_locale_is_read():
    parser = IterationStreamParser("b", "avgt")
    (result,) = parser.feed("Iteration   1: 5416,934 ns/op")
    assert result.raw_value == 5416.934


def test_benchmark_stdout_between_iterations_is_ignored():
    parser = IterationStreamParser("b", "avgt")
    lines = ["Iteration   1: 1.000 us/op", "some log line the benchmark printed", "Iteration   2: 2.000 us/op"]
    assert [r.value_ns for _, r in feed_all(parser, lines)] == [1000.0, 2000.0]


# ---------------------------------------------------------------- JSON import


def test_json_import_keeps_every_fork_and_iteration():
    raw = json.loads(read("result-1.37.json"))
    run = import_jmh_json(read("result-1.37.json"), "result-1.37.json", suite="s", created_at=123.0)
    assert run.meta.created_at == 123.0
    assert run.meta.toolchain == {"jmh": "1.37", "java": "17.0.15", "jvm": "OpenJDK 64-Bit Server VM"}
    assert len(run.results) == len(raw) == 6
    for entry, result in zip(raw, run.results):
        assert result.benchmark.spec["benchmark"] == entry["benchmark"]
        unit = entry["primaryMetric"]["scoreUnit"]
        assert result.benchmark.unit == unit
        assert [[it.raw_value for it in f.measurement] for f in result.forks] == entry["primaryMetric"]["rawData"]
        assert [f.index for f in result.forks] == [1, 2]
        assert all(f.status is ForkStatus.COMPLETE and not f.warmup for f in result.forks)
        for fork in result.forks:
            assert all(it.value_ns == pytest.approx(to_ns_per_op(it.raw_value, unit)) for it in fork.measurement)


def test_json_import_names_benchmarks_exactly_as_the_listing_does():
    listed = {(b.id.key, b.mode, b.unit) for b in listed_benchmarks("1.37", "s")}
    run = import_jmh_json(read("result-1.37.json"), "r.json", suite="s")
    assert {(r.benchmark.id.key, r.benchmark.mode, r.benchmark.unit) for r in run.results} == listed
    broken = {b.id.key for b in listed_benchmarks("broken") if "fine" in b.id.key}
    multi = import_jmh_json(read("result-multimode.json"), "m.json")
    assert {r.benchmark.id.key for r in multi.results} == broken


def test_json_import_of_sample_mode_uses_histogram_means_which_match_the_console():
    run = import_jmh_json(read("run-sample.json"), "run-sample.json")
    console, _ = parse_iterations(read("run-sample.txt").splitlines(), "b", "sample")
    imported = run.results[0].forks[0].measurement
    assert [round(it.raw_value, 3) for it in imported] == pytest.approx([r.raw_value for r in console], abs=5e-4)


def test_truncated_json_names_the_line():
    text = read("result-truncated.json")
    with pytest.raises(ImportFormatError) as info:
        import_jmh_json(text, "result-truncated.json")
    assert info.value.line == len(text.splitlines()) or info.value.line == len(text.splitlines()) + 1
    assert str(info.value).startswith(f"result-truncated.json:{info.value.line}: not valid JSON")


def test_bad_raw_data_names_the_entry_and_its_line():
    text = read("result-bad-rawdata.json")
    second = [i + 1 for i, line in enumerate(text.splitlines()) if '"benchmark":' in line][1]
    with pytest.raises(ImportFormatError, match=r"result #2: wordstat\.bench\.CountWordsBench\.countHash: primaryMetric\.rawData") as info:
        import_jmh_json(text, "bad.json")
    assert info.value.line == second


@pytest.mark.parametrize("doc, why", [
    ({"benchmark": "x"}, "expected a JSON list"),
    ([{"mode": "avgt"}], "'benchmark' must be a non-empty string"),
    ([{"benchmark": "p.C.m", "mode": "fast", "primaryMetric": {}}], "unknown JMH benchmark mode"),
    ([{"benchmark": "p.C.m", "mode": "avgt", "primaryMetric": {"scoreUnit": "parsecs", "rawData": [[1.0]]}}], "scoreUnit"),
    ([{"benchmark": "p.C.m", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op"}}], "neither rawData"),
    ([{"benchmark": "p.C.m", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[0.0]]}}], "not a positive"),
])
def test_structural_errors_are_explained(doc, why):
    with pytest.raises(ImportFormatError, match=why):
        import_jmh_json(json.dumps(doc), "f.json")


def test_secondary_metrics_with_matching_shape_are_kept():
    doc = [{"benchmark": "p.C.m", "mode": "thrpt", "primaryMetric": {"scoreUnit": "ops/s", "rawData": [[2.0, 4.0]]},
            "secondaryMetrics": {"·gc.alloc.rate": {"scoreUnit": "MB/sec", "rawData": [[10.0, 20.0]]},
                                 "·odd": {"scoreUnit": "x", "rawData": [[1.0]]}}}]
    run = import_jmh_json(json.dumps(doc), "f.json")
    its = run.results[0].forks[0].measurement
    assert [it.value_ns for it in its] == [5e8, 2.5e8]
    assert [dict(it.secondary) for it in its] == [{"·gc.alloc.rate [MB/sec]": 10.0}, {"·gc.alloc.rate [MB/sec]": 20.0}]
    assert math.isclose(its[0].raw_value, 2.0)


def test_loading_a_file_uses_its_modification_time(tmp_path):
    import os

    from benchwarden.adapters.jmh_output import load_jmh_json

    path = tmp_path / "jmh-result.json"
    path.write_text(read("result-multimode.json"), encoding="utf-8")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    run = load_jmh_json(path, suite="imported")
    assert run.meta.created_at == 1_700_000_000
    assert {r.benchmark.id.suite for r in run.results} == {"imported"}
    with pytest.raises(ImportFormatError, match="cannot read the file"):
        load_jmh_json(tmp_path / "missing.json")


def test_gc_profiler_results_are_kept_per_iteration_as_jmh_wrote_them_in_the_same_run():
    """run-avgt-gc: a real fork with -prof gc; its JSON holds the same secondary results (independent record)."""
    lines = read("run-avgt-gc.txt").splitlines()
    emitted = feed_all(IterationStreamParser("b", "avgt", profilers=True), lines)
    doc = json.loads(read("run-avgt-gc.json"))[0]
    norm = doc["secondaryMetrics"]["gc.alloc.rate.norm"]["rawData"][0]
    assert len(emitted) == len(norm) == 6
    for (lineno, result), want in zip(emitted, norm):
        assert lines[lineno - 1] == ""  # held until the blank line that ends its block
        assert result.secondary["gc.alloc.rate.norm [B/op]"] == pytest.approx(round(want, 3), abs=5e-4)
        assert result.secondary["gc.alloc.rate [MB/sec]"] > 0
    counts = [r.secondary["gc.count [counts]"] for _, r in emitted]
    assert 0.0 in counts  # printed "≈ 0 counts"
    assert sum(counts) == doc["secondaryMetrics"]["gc.count"]["score"]
    # without the flag, the same output still gives every iteration (secondary lines ignored)
    assert len(parse_iterations(lines, "b", "avgt")[0]) == 6
