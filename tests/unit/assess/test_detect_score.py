"""The detection rules (against scipy directly, and the compare rule by seeded simulation), ABS variants,
redundancy and detection thresholds, checked on worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.assess.detect import (
    DETECTED,
    NOT_DETECTED,
    UNDECIDED,
    Detection,
    DetectionDesign,
    Outcome,
    RepetitionCheck,
    budget_mdc,
    decide_looks,
    detect_sequential,
    detect_study,
    detectable_change,
    look_at,
    screen_mdc,
    study_check,
)
from benchwarden.assess.score import score


def test_study_check_uses_a_two_sided_rank_test_on_all_iterations_and_half_of_v():
    rng = np.random.default_rng(3)
    base = [list(100 + rng.normal(0, 2, 10)), list(101 + rng.normal(0, 2, 10))]
    slow = [list(160 + rng.normal(0, 2, 10)), list(161 + rng.normal(0, 2, 10))]
    check = study_check(base, slow, slowdown=1.0)
    expected_p = sps.mannwhitneyu(np.concatenate(base), np.concatenate(slow), alternative="two-sided").pvalue
    assert check.p_value == pytest.approx(expected_p)
    assert check.relative_change == pytest.approx(np.mean([np.mean(f) for f in slow]) /
                                                  np.mean([np.mean(f) for f in base]) - 1)
    assert check.significant and check.large_enough and check.detected  # +60 % >= v/2 = 50 %
    assert not study_check(base, slow, slowdown=1.4).large_enough  # +60 % < 70 %


def test_detection_needs_every_repetition():
    rng = np.random.default_rng(4)
    base = [list(100 + rng.normal(0, 1, 10))]
    slow = [list(200 + rng.normal(0, 1, 10))]
    same = [list(100 + rng.normal(0, 1, 10))]
    assert detect_study("m", "b", [base, base], [slow, slow], 1.0).detected
    assert not detect_study("m", "b", [base, base], [slow, same], 1.0).detected
    with pytest.raises(ValueError):
        detect_study("m", "b", [base], [slow, slow], 1.0)


def test_a_degenerate_sample_is_no_evidence_not_a_detection():
    check = study_check([[5.0, 5.0, 5.0]], [[5.0, 5.0, 5.0]], 0.5)
    assert not check.detected and check.p_value == 1.0


def _det(method, bench, ok=True):
    outcome = Outcome.DETECTED if ok else Outcome.NOT_DETECTED
    return Detection(method, bench, "study", outcome, checks=(RepetitionCheck(0.001 if ok else 0.5, 1.0, ok, ok),) * 2)


def test_abs_variants_redundancy_and_uncovered_first():
    spreads = {f"b{i}": 0.01 * i for i in range(1, 21)}
    spreads["b20"] = 0.9  # worst by maxSpread and above 0.5
    spreads["b19"] = 0.6  # above 0.5, but within the 95 % rank
    detections = [_det("m1", "b1"), _det("m1", "b2"), _det("m2", "b20"), _det("m3", "b19"), _det("m4", "b3", ok=False)]
    report = score(["m1", "m2", "m3", "m4"], detections, spreads, 1.0)
    assert report.variant("total").score == pytest.approx(75.0)
    assert report.variant("relative").score == pytest.approx(50.0)  # b20 excluded: m2 lost
    assert report.variant("absolute").score == pytest.approx(25.0)  # b19, b20 excluded: m2, m3 lost
    assert report.variant("relative").excluded == ("b20",)
    assert report.methods[0].method == "m4" and not report.methods[0].covered
    assert {m.method: m.redundancy for m in report.methods} == {"m1": 2, "m2": 1, "m3": 1, "m4": 0}
    assert report.uncovered == ("m4",)
    assert score([], [], {}, 1.0).variant("total").score == 0.0


def test_methods_get_the_smallest_slowdown_any_benchmark_detects_and_the_undecided_benchmarks():
    def det(method, bench, outcome, smallest):
        return Detection(method, bench, "compare", outcome, detectable_from=smallest)

    detections = [det("m1", "b1", Outcome.DETECTED, 0.06), det("m1", "b2", Outcome.NOT_DETECTED, 0.4),
                  det("m1", "b3", Outcome.UNDECIDED, None), det("m2", "b3", Outcome.UNDECIDED, None)]
    report = score(["m1", "m2"], detections, {"b1": 0.01, "b2": 0.01, "b3": 0.5}, 0.1)
    by = {m.method: m for m in report.methods}
    assert by["m1"].threshold == pytest.approx(0.06) and by["m1"].undecided_by == ("b3",)
    assert by["m2"].threshold is None and not by["m2"].covered and by["m2"].undecided_by == ("b3",)


# --- the compare rule -------------------------------------------------------------------------------

DESIGN = DetectionDesign(max_forks=5)


def forks(rng, n, mean_ns, sd, iterations=10):
    """n forks of a benchmark at ``mean_ns``: a lognormal fork level (sd) and 1 % iteration noise."""
    levels = mean_ns * np.exp(rng.normal(0, sd, n))
    return [list(level * (1 + rng.normal(0, 0.01, iterations))) for level in levels]


def test_the_looks_are_spaced_geometrically_so_a_larger_budget_buys_precision():
    assert DetectionDesign().schedule == (2, 3, 5)
    assert DetectionDesign(max_forks=30).schedule == (2, 3, 5, 8, 12, 18, 27, 30)
    assert DetectionDesign(min_forks=10, max_forks=10).schedule == (10,)  # a fixed sample: one look
    assert DetectionDesign(min_forks=1, max_forks=2).schedule == (1, 2)
    for lo, hi in ((1, 1), (2, 7), (3, 100)):
        counts = DetectionDesign(min_forks=lo, max_forks=hi).schedule
        assert counts[0] == lo and counts[-1] == hi and all(b > a for a, b in zip(counts, counts[1:]))
    # each look's level is its Bonferroni share of the looks actually taken, so the change detectable at the full
    # budget is smaller than with a look after every fork (12 % fork spread, 6 baseline forks)
    for n in (10, 20, 30):
        design = DetectionDesign(max_forks=n)
        assert design.confidences() == pytest.approx((1 - 0.01 / len(design.schedule), 1 - 0.05 / len(design.schedule)))
        se, df = 0.12 * np.sqrt(1 / (n + 6) + 1 / n), 2 * n + 4
        assert detectable_change(se, df, design.confidences()[0], 0.03, 0.8) < detectable_change(
            se, df, 1 - 0.01 / (n - 1), 0.03, 0.8) - 0.01
    # between looks a pair is not judged: another fork is measured
    rng = np.random.default_rng(5)
    assert detect_sequential("m", "b", forks(rng, 8, 100.0, 0.01), forks(rng, 4, 150.0, 0.01), 0.1, 0.03,
                             DESIGN) is None
    assert detect_sequential("m", "b", forks(rng, 8, 100.0, 0.01), forks(rng, 3, 150.0, 0.01), 0.1, 0.03,
                             DESIGN) is not None


def test_a_look_is_students_pooled_t_on_log_fork_summaries_at_the_bonferroni_level():
    rng = np.random.default_rng(11)
    base, slowed = forks(rng, 10, 100.0, 0.02), forks(rng, 3, 106.0, 0.02)
    outcome, look, _ = look_at(base, slowed, 0.1, 0.03, DESIGN)
    y_b = np.log([sps.trim_mean(f, 0.2) for f in base])
    y_c = np.log([sps.trim_mean(f, 0.2) for f in slowed])
    level = 1 - 0.01 / 3  # alpha 1 % over the looks after 2, 3 and 5 slowed forks
    reference = sps.ttest_ind(y_c, y_b, equal_var=True).confidence_interval(level)
    assert look.change == pytest.approx((np.exp(reference.low), np.exp(reference.high)), rel=1e-9)
    assert look.base_forks == 10 and look.slowed_forks == 3 and look.threshold == 0.03
    assert outcome is Outcome.DETECTED


def sequential(y_base, y_slow, threshold, design=DESIGN, fresh=0):
    """The rule's outcome code and slowed forks used, for many simulated (method, benchmark) pairs at once.

    ``fresh``: the last ``fresh`` baseline forks arrive one per round, as the campaign runs them."""
    outcome = np.full(y_base.shape[0], -1)
    used = np.zeros(y_base.shape[0], dtype=int)
    first = y_base.shape[-1] - fresh
    for k in design.schedule:
        codes, _, _ = decide_looks(y_base[:, :first + min(k, fresh)], y_slow[:, :k], threshold, design)
        newly = (outcome < 0) & ((codes != UNDECIDED) | (k == design.max_forks))
        outcome[newly], used[newly] = codes[newly], k
    return outcome, used


def noise(rng, shape, sd, shape_name):
    """Log fork summaries' noise: normal, heavy-tailed (t, 3 df), bimodal forks (±sd), one outlying base fork."""
    if shape_name == "normal":
        return rng.normal(0, sd, shape)
    if shape_name == "heavy":
        return sd * rng.standard_t(3, shape) / np.sqrt(3.0)
    if shape_name == "bimodal":
        return sd * rng.choice([-1.0, 1.0], shape) + rng.normal(0, sd / 4, shape)
    raise ValueError(shape_name)


@pytest.mark.parametrize("shape_name", ["normal", "heavy", "bimodal", "outlier"])
def test_an_unslowed_variant_is_almost_never_detected(shape_name):
    """A/A: the rule claims "detected" in at most its 1 % (Monte-Carlo error allowed), whatever the noise."""
    # a fixed seed per shape (not hash(): str hashes are salted per process, so the data changed every run)
    rng = np.random.default_rng(["normal", "heavy", "bimodal", "outlier"].index(shape_name))
    n = 1000 if shape_name == "outlier" else 4000  # outlier rows are tested one by one: slower
    kind = "normal" if shape_name == "outlier" else shape_name
    y_base = noise(rng, (n, 10), 0.03, kind)
    if shape_name == "outlier":
        y_base[:, 0] += np.log(3.0)  # one baseline fork 3x slower (a disturbed JVM)
    y_slow = noise(rng, (n, 5), 0.03, kind)
    outcome, _ = sequential(y_base, y_slow, 0.03)
    false = np.mean(outcome == DETECTED)
    assert false <= 0.01 + 3 * np.sqrt(0.01 * 0.99 / n), false


@pytest.mark.parametrize("change, sd, power", [(0.10, 0.02, 0.95), (0.05, 0.01, 0.95), (0.06, 0.02, 0.85)])
def test_small_real_changes_are_detected_within_the_budget(change, sd, power):
    rng = np.random.default_rng(int(change * 1000 + sd * 10000))
    n = 2000
    y_base = rng.normal(0, sd, (n, 10))
    y_slow = rng.normal(np.log1p(change), sd, (n, 5))
    outcome, used = sequential(y_base, y_slow, 0.03)
    assert np.mean(outcome == DETECTED) >= power, (np.mean(outcome == DETECTED), used.mean())
    assert used.mean() <= 3.5  # clear answers stop early


def test_a_change_below_the_threshold_is_not_detected_and_noise_leaves_it_undecided():
    rng = np.random.default_rng(5)
    n = 2000
    small = sequential(rng.normal(0, 0.01, (n, 10)), rng.normal(np.log1p(0.005), 0.01, (n, 5)), 0.03)[0]
    assert np.mean(small == NOT_DETECTED) >= 0.9 and np.mean(small == DETECTED) <= 0.01
    noisy = sequential(rng.normal(0, 0.3, (n, 10)), rng.normal(np.log1p(0.1), 0.3, (n, 5)), 0.03)[0]
    assert np.mean(noisy == UNDECIDED) >= 0.9  # a 30 % fork spread cannot tell 10 % within 5 forks


def test_a_pair_that_cannot_be_decided_within_the_budget_stops_early():
    """A 30 % fork spread: even a 10 % benchmark change (all its time in the method) needs far more than 5 forks."""
    rng = np.random.default_rng(6)
    base = forks(rng, 6, 100.0, 0.3)
    detection = detect_sequential("m", "b", base, forks(rng, 2, 110.0, 0.3), 0.1, 0.03, DESIGN)
    assert detection is not None and detection.outcome is Outcome.UNDECIDED and detection.look.slowed_forks == 2
    assert detection.look.mdc > 0.1 and "could not be detected within 5 forks" in detection.warnings[0]
    # a quiet benchmark with the same data shape goes on measuring instead
    quiet = detect_sequential("m", "b", forks(rng, 6, 100.0, 0.01), forks(rng, 2, 101.5, 0.01), 0.1, 0.03, DESIGN)
    assert quiet is None


def test_the_change_detectable_at_the_budget_by_hand_and_the_futility_stops_lenient_spread():
    """budget_mdc: σ = se/√(1/n_b + 1/n_s), se' = σ·√(1/(n_b+m) + 1/(n_s+m)), df = n_b+n_s+2m−2 into
    detectable_change; for the futility stop σ at its 80 % lower chi-square bound σ·√(df₀/χ²₀.₈(df₀)),
    df₀ = n_b+n_s−2 (scipy's chi2 as the reference). Vectorised like the rest."""
    design = DetectionDesign(max_forks=5)
    se, nb, ns, m = 0.1, 8, 2, 3
    sigma = se / np.sqrt(1 / nb + 1 / ns)
    at = sigma * np.sqrt(1 / (nb + m) + 1 / (ns + m))
    point = detectable_change(at, nb + ns + 2 * m - 2, design.confidences()[0], 0.03, design.power)
    assert budget_mdc(se, nb, ns, m, 0.03, design) == pytest.approx(point, rel=1e-12)
    low = np.sqrt((nb + ns - 2) / sps.chi2.ppf(0.8, nb + ns - 2))
    lenient = detectable_change(at * low, nb + ns + 2 * m - 2, design.confidences()[0], 0.03, design.power)
    assert budget_mdc(se, nb, ns, m, 0.03, design, 0.8) == pytest.approx(lenient, rel=1e-12) and lenient < point
    both = budget_mdc(np.array([se, np.inf]), np.array([nb, nb]), np.array([ns, ns]), m, 0.03, design)
    assert both[0] == pytest.approx(point) and both[1] == np.inf
    # a spread between the two: the estimate says futile, its lower bound says measure on, and the rule measures on
    rng = np.random.default_rng(11)
    for _ in range(200):
        base, slowed = forks(rng, 8, 100.0, 0.04), forks(rng, 2, 110.0, 0.04)
        outcome, look, _ = look_at(base, slowed, 0.1, 0.03, design)
        if outcome is Outcome.UNDECIDED and look.futility_mdc < 0.1 < look.mdc:
            assert detect_sequential("m", "b", base, slowed, 0.1, 0.03, design) is None
            break
    else:
        pytest.fail("no draw fell between the two")


def test_the_smallest_detectable_slowdown_is_detected_about_as_often_as_promised():
    """A benchmark spending half its time in the method (f = 0.5), 2 % fork spread: one injection at 10 %
    gives u*; injecting u* then is detected in at least about 80 % of fresh assessments (the promised power,
    erring on the safe side), and u* itself is close to the true MDC / f."""
    rng = np.random.default_rng(8)
    share, sd, v = 0.5, 0.02, 0.10
    smallest = []
    for _ in range(150):
        slow, detection = [], None
        base = forks(rng, 10, 100.0, sd)
        while detection is None:  # as the campaign: a slowed and a fresh baseline fork per round
            slow += forks(rng, 1, 100.0 * (1 + share * v), sd)
            base += forks(rng, 1, 100.0, sd)
            detection = detect_sequential("m", "b", base, slow, v, 0.03, DESIGN)
        if detection.detectable_from is not None:
            smallest.append(detection.detectable_from)
    assert len(smallest) >= 100  # a 5 % benchmark change with 2 % spread is mostly significant
    u = np.array(smallest)
    y_base = rng.normal(0, sd, (u.size, 15))
    y_slow = rng.normal(np.log1p(share * u)[:, None], sd, (u.size, 5))
    rate = np.mean(sequential(y_base, y_slow, 0.03, fresh=5)[0] == DETECTED)
    assert 0.75 <= rate <= 0.97, (rate, np.median(u))
    true_u = detectable_change(sd * np.sqrt(1 / 15 + 1 / 5), 18, DESIGN.confidences()[0], 0.03, 0.8) / share
    assert np.median(u) == pytest.approx(true_u, rel=0.3)


def test_a_look_that_cannot_be_computed_is_undecided_never_detected():
    detection = detect_sequential("m", "b", [[1.0, float("nan")]], [[2.0], [2.0]], 0.1, 0.03, DESIGN)
    assert detection is not None and detection.outcome is Outcome.UNDECIDED and detection.warnings
    assert detect_sequential("m", "b", [[1.0]] * 5, [[1.0]], 0.1, 0.03, DESIGN) is None  # before the first look


def test_a_benchmark_that_changed_by_more_than_v_reports_an_overshot_injection_not_a_detection():
    """A 10 % slowdown cannot make a benchmark 50 % slower; when it did, the wait was longer than v of the method
    (gin's nanosecond methods: +190 % at v = 10 %), so the pair answers a larger question and is not counted."""
    rng = np.random.default_rng(9)
    detection = detect_sequential("m", "b", forks(rng, 8, 100.0, 0.01), forks(rng, 2, 150.0, 0.01), 0.1, 0.03, DESIGN)
    assert detection.outcome is Outcome.OVERSHOT and not detection.detected and detection.detectable_from is None
    assert "more than the 10% injected" in detection.warnings[0]
    report = score(["m"], [detection], {"b": 0.01}, 0.1)
    assert not report.methods[0].covered
    # within v it is an ordinary detection, and f is never taken above 1
    within = detect_sequential("m", "b", forks(rng, 8, 100.0, 0.01), forks(rng, 2, 110.0, 0.01), 0.1, 0.03, DESIGN)
    assert within.outcome is Outcome.DETECTED and within.detectable_from >= within.look.mdc


def test_a_noisy_benchmark_detected_beyond_v_reports_an_overshot_injection():
    """gin's BenchmarkRecoveryMiddleware: +109 % at v = 10 % with an interval reaching below 1 + v, from a benchmark
    that could detect only 57 %.  Too noisy to detect v, detected only through the excess: overshot, not counted.
    A quiet benchmark detecting a change just above 1 + v (within its noise) keeps its detection."""
    rng = np.random.default_rng(2)
    noisy = detect_sequential("m", "b", forks(rng, 10, 100.0, 0.12), forks(rng, 3, 145.0, 0.12), 0.1, 0.03, DESIGN)
    look = noisy.look
    assert look.change[0] > 1.0 and look.change[0] < 1.1 < look.ratio and look.mdc > 0.1  # not the interval rule
    assert noisy.outcome is Outcome.OVERSHOT and not noisy.detected
    assert "too noisy to detect 10%" in noisy.warnings[0] and f"{look.mdc:.1%}" in noisy.warnings[0]
    rng = np.random.default_rng(5)
    quiet = detect_sequential("m", "b", forks(rng, 10, 100.0, 0.01), forks(rng, 2, 110.5, 0.01), 0.1, 0.03, DESIGN)
    assert quiet.look.ratio > 1.1 and quiet.look.change[0] < 1.1 and quiet.look.mdc < 0.1
    assert quiet.outcome is Outcome.DETECTED


def test_an_uncovered_method_gets_the_smallest_mdc_of_its_benchmarks_as_a_lower_bound_of_its_threshold():
    """A slowdown u changes a benchmark by at most u, so with MDCs of 25 % (screened) and ~20 % (measured) no
    benchmark detects less than ~20 % reliably; a pair without a known MDC (one baseline fork) leaves the bound
    unknown, and a covered method has its threshold instead."""
    rng = np.random.default_rng(11)
    measured = detect_sequential("m", "b1", forks(rng, 8, 100.0, 0.06), forks(rng, 5, 101.0, 0.06), 0.1, 0.03, DESIGN)
    assert measured.outcome is Outcome.UNDECIDED and 0.1 < measured.look.mdc < 0.25
    screened = Detection("m", "b2", "compare", Outcome.UNDECIDED, screened_mdc=0.25)
    report = score(["m"], [measured, screened], {"b1": 0.05, "b2": 0.2}, 0.1)
    assert report.methods[0].threshold_at_least == pytest.approx(measured.look.mdc)
    unknown = Detection("m", "b3", "compare", Outcome.UNDECIDED, warnings=("no evidence: one fork",))
    assert score(["m"], [measured, screened, unknown], {}, 0.1).methods[0].threshold_at_least is None
    # a reaching benchmark that failed gave no pair at all: the bound is unknown too
    failed = score(["m"], [measured, screened], {}, 0.1, reached={"m": ["b1", "b2", "b5"]})
    assert failed.methods[0].threshold_at_least is None
    detected = detect_sequential("m", "b4", forks(rng, 8, 100.0, 0.01), forks(rng, 2, 109.0, 0.01), 0.1, 0.03, DESIGN)
    covered = score(["m"], [measured, detected], {}, 0.1).methods[0]
    assert covered.covered and covered.threshold is not None and covered.threshold_at_least is None


def test_screening_from_the_baseline_alone_matches_a_hand_computed_detectable_change():
    """screen_mdc by hand: the smallest s.d. of the log forks with one of them left out, at its 80 % chi-square
    lower bound, then the binding condition of detectable_change with n baseline + m fresh baseline forks
    against m slowed forks."""
    design = DetectionDesign(max_forks=5)
    y = np.log([100.0, 104.0, 97.0, 101.0, 110.0, 95.0])  # 6 forks, no ESD outlier among them
    n, m = 6, 5
    s = min(np.std(y, ddof=1), *(np.std(np.delete(y, i), ddof=1) for i in range(n)))
    assert s == pytest.approx(np.std(np.delete(y, 4), ddof=1))  # leaving out 110 narrows it most
    low = s * np.sqrt((n - 1) / sps.chi2.ppf(0.8, n - 1))
    se = low * np.sqrt(1 / (n + m) + 1 / m)
    df = n + 2 * m - 2
    c = sps.t.ppf(1 - (1 - design.confidences()[0]) / 2, df)
    expected = np.expm1(max(np.log1p(0.03), c * se) + sps.t.ppf(0.8, df) * se)
    assert screen_mdc(y, 0.03, design) == pytest.approx(expected, rel=1e-12)
    # vectorised over benchmarks; a quiet one stays in, a noisy one is screened out at v = 10 %
    rng = np.random.default_rng(3)
    both = np.stack([rng.normal(0, 0.01, 8), rng.normal(0, 0.3, 8)])
    quiet, noisy = screen_mdc(both, 0.03, design)
    assert quiet < 0.1 < noisy
    assert screen_mdc(np.array([0.0]), 0.03, design) == np.inf  # one fork: no spread known (not screened out)
    # one outlying fork among 4 (too few for the ESD test) does not get a quiet benchmark screened out
    assert screen_mdc(np.log([1.0, 1.01, 0.99, 3.0]), 0.03, design) < 0.1
