"""The detection rule (against scipy directly), ABS variants and redundancy, checked on worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.assess.detect import Detection, RepetitionCheck, detect, study_check
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
    assert detect("m", "b", [base, base], [slow, slow], 1.0).detected
    assert not detect("m", "b", [base, base], [slow, same], 1.0).detected
    with pytest.raises(ValueError):
        detect("m", "b", [base], [slow, slow], 1.0)


def test_a_degenerate_sample_is_no_evidence_not_a_detection():
    check = study_check([[5.0, 5.0, 5.0]], [[5.0, 5.0, 5.0]], 0.5)
    assert not check.detected and check.p_value == 1.0


def _det(method, bench, ok=True):
    return Detection(method, bench, (RepetitionCheck(0.001 if ok else 0.5, 1.0, ok, ok),) * 2)


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
