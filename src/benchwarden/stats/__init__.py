"""Statistics engine: hierarchical bootstrap intervals, tests, effect sizes, stability, power, outliers.

Pure, vectorised, seedable functions on fork-structured samples (one 1-D array
of ns/op values per fork; see :mod:`.forks`).  Imports only numpy and scipy.
Methods, formulas, sources and calibration results: docs/statistics.md.
"""

from benchwarden.stats.effect import (
    cliffs_delta,
    cliffs_delta_magnitude,
    relative_change,
    vargha_delaney_a,
)
from benchwarden.stats.forks import ForkData, as_forks, fork_means, grand_mean
from benchwarden.stats.intervals import (
    DEFAULT_METHOD,
    METHODS,
    ci_mean,
    ci_ratio_of_means,
    ci_ratio_of_means_batch,
    rciw,
)
from benchwarden.stats.logratio import (
    LogRatio,
    OutlierFork,
    analyse_ratio,
    ci_mean_log_t,
    ci_ratio_log_t,
    esd_outliers,
    fork_summaries,
    hodges_lehmann,
    hodges_lehmann_shift,
    signed_rank_p,
)
from benchwarden.stats.machines import machine_spread
from benchwarden.stats.outliers import outliers_iqr, outliers_tenfold_median, outliers_zscore
from benchwarden.stats.power import (
    effect_size_gamma,
    forks_needed,
    minimal_detectable_change,
    type2_error,
    variance_components,
)
from benchwarden.stats.resampling import hierarchical_bootstrap_means
from benchwarden.stats.results import Interval, MachineSpread, RelativeChange, TestResult, VarianceComponents
from benchwarden.stats.significance import mann_whitney, welch
from benchwarden.stats.stability import cv, kld_similarity, max_spread, relative_mad

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "ForkData",
    "LogRatio",
    "MachineSpread",
    "OutlierFork",
    "Interval",
    "RelativeChange",
    "TestResult",
    "VarianceComponents",
    "analyse_ratio",
    "as_forks",
    "ci_mean",
    "ci_mean_log_t",
    "ci_ratio_of_means",
    "ci_ratio_of_means_batch",
    "ci_ratio_log_t",
    "cliffs_delta",
    "cliffs_delta_magnitude",
    "cv",
    "effect_size_gamma",
    "esd_outliers",
    "fork_means",
    "fork_summaries",
    "forks_needed",
    "grand_mean",
    "hierarchical_bootstrap_means",
    "hodges_lehmann",
    "hodges_lehmann_shift",
    "kld_similarity",
    "machine_spread",
    "mann_whitney",
    "max_spread",
    "minimal_detectable_change",
    "outliers_iqr",
    "outliers_tenfold_median",
    "outliers_zscore",
    "rciw",
    "signed_rank_p",
    "relative_change",
    "relative_mad",
    "type2_error",
    "vargha_delaney_a",
    "variance_components",
    "welch",
]
