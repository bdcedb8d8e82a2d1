"""Statistics for balance reports, done by statsmodels and scipy: Wilson and binomial
intervals and tests, two-sample tests with intervals of the difference, multiple-test
correction, and power analysis ("games needed to detect an edge of X points")."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float, float]:
    """``(p, low, high)``: the proportion ``k/n`` and its Wilson score interval (statsmodels)."""
    if n <= 0:
        return 0.0, 0.0, 1.0
    from statsmodels.stats.proportion import proportion_confint

    alpha = 0.05 if z == Z95 else 2 * (1 - _norm_cdf(z))
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    lo = 0.0 if k <= 0 else max(0.0, float(lo))  # exact at the ends (no rounding below 1 or above 0)
    hi = 1.0 if k >= n else min(1.0, float(hi))
    return k / n, lo, hi


def _norm_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


def binomial_test(k: int, n: int, p: float) -> float:
    """Exact two-sided binomial test of ``k`` successes in ``n`` against rate ``p`` (scipy)."""
    if n <= 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(k, n, p).pvalue)


def normal_sf2(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Two-proportion z-test, pooled (statsmodels ``proportions_ztest``): ``(z, p_value)``."""
    if n1 <= 0 or n2 <= 0 or (k1 + k2) in (0, n1 + n2):
        return 0.0, 1.0
    from statsmodels.stats.proportion import proportions_ztest

    z, p = proportions_ztest([k1, k2], [n1, n2])
    return float(z), float(p)


def mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def welch(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Welch's t-test of two means (scipy): ``(t, p_value)``."""
    if len(xs) < 2 or len(ys) < 2:
        return 0.0, 1.0
    m1, s1 = mean_sd(xs)
    m2, s2 = mean_sd(ys)
    if s1 == 0 and s2 == 0:
        return 0.0, 1.0 if m1 == m2 else 0.0
    import warnings

    from scipy.stats import ttest_ind

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = ttest_ind(xs, ys, equal_var=False)
    return float(r.statistic), float(r.pvalue)


def quantile(sorted_xs: Sequence[float], q: float) -> float:
    if not sorted_xs:
        return 0.0
    k = (len(sorted_xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return float(sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (k - lo))


def tally_abilities(
    lines: Iterable[dict[str, Any]], names: Iterable[str]
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """``(used, users, user_wins)`` per ability over game lines: activations, seats that
    used it at least once in a game, and how many of those seats won that game."""
    used = dict.fromkeys(names, 0)
    users = dict.fromkeys(used, 0)
    user_wins = dict.fromkeys(used, 0)
    for ln in lines:
        w = ln["stats"]["winner"]
        for seat, acts in enumerate(ln["stats"]["abilities"]):
            for a in acts:
                used[a] = used.get(a, 0) + 1
            for a in set(acts):
                users[a] = users.get(a, 0) + 1
                if w == seat:
                    user_wins[a] = user_wins.get(a, 0) + 1
    return used, users, user_wins


# -- the libraries made for it (statsmodels, scipy) --------------------------------------
def diff_ci(k1: int, n1: int, k2: int, n2: int, alpha: float = 0.05) -> tuple[float, float, float]:
    """``(diff, low, high)``: proportion 2 minus proportion 1 with Newcombe's score interval."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, -1.0, 1.0
    from statsmodels.stats.proportion import confint_proportions_2indep

    lo, hi = confint_proportions_2indep(k2, n2, k1, n1, method="newcomb", compare="diff", alpha=alpha)
    return k2 / n2 - k1 / n1, float(lo), float(hi)


def mean_diff_ci(xs: Sequence[float], ys: Sequence[float], alpha: float = 0.05) -> tuple[float, float, float, float]:
    """``(diff, low, high, p)``: mean of ``ys`` minus mean of ``xs``, Welch's t interval and p-value (scipy)."""
    if len(xs) < 2 or len(ys) < 2:
        d = (sum(ys) / len(ys) if ys else 0.0) - (sum(xs) / len(xs) if xs else 0.0)
        return d, -math.inf, math.inf, 1.0
    from scipy import stats as st

    m1, s1 = mean_sd(xs)
    m2, s2 = mean_sd(ys)
    d = m2 - m1
    v1, v2 = s1 * s1 / len(xs), s2 * s2 / len(ys)
    se = math.sqrt(v1 + v2)
    if se == 0:
        return d, d, d, 1.0 if d == 0 else 0.0
    df = (v1 + v2) ** 2 / ((v1 * v1) / (len(xs) - 1) + (v2 * v2) / (len(ys) - 1))
    t = float(st.t.ppf(1 - alpha / 2, df))
    import warnings

    with warnings.catch_warnings():  # near-identical samples: scipy warns, the p-value is still right
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(st.ttest_ind(ys, xs, equal_var=False).pvalue)
    return d, d - t * se, d + t * se, p


def adjust(pvalues: Sequence[float], method: str = "holm", alpha: float = 0.05) -> tuple[list[bool], list[float]]:
    """Multiple-test correction (statsmodels ``multipletests``): ``(reject, adjusted p-values)``.

    ``method``: ``holm`` (family-wise error) or ``fdr_bh`` (Benjamini–Hochberg, false discovery rate)."""
    if not pvalues:
        return [], []
    from statsmodels.stats.multitest import multipletests

    reject, padj, _, _ = multipletests(list(pvalues), alpha=alpha, method=method)
    return [bool(r) for r in reject], [float(p) for p in padj]


def games_to_detect(edge_points: float, base: float = 0.5, alpha: float = 0.05, power: float = 0.8,
                    two_runs: bool = False) -> int:
    """Games needed to detect a win rate ``edge_points`` away from ``base`` (statsmodels power analysis).

    One run against a known fair share (one-sample), or ``two_runs``: games per run to tell two
    runs apart whose rates differ by that much."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    target = min(0.999, max(0.001, base + edge_points / 100))
    es = abs(float(proportion_effectsize(target, base)))
    if es == 0:
        return 0
    n = NormalIndPower().solve_power(effect_size=es, alpha=alpha, power=power, ratio=1.0 if two_runs else 0.0)
    return math.ceil(float(n))


# -- paired samples: the same seeds played under two rule sets ---------------------------
def paired_mean_diff(xs: Sequence[float], ys: Sequence[float], alpha: float = 0.05) -> tuple[float, float, float]:
    """``(diff, low, high)``: mean of ``ys - xs`` pair by pair, with a t interval on the
    standard error of the paired differences (scipy)."""
    if len(xs) != len(ys):
        raise ValueError(f"paired samples differ in length: {len(xs)} and {len(ys)}")
    return mean_ci([y - x for x, y in zip(xs, ys, strict=True)], alpha)


def mean_ci(xs: Sequence[float], alpha: float = 0.05) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``xs`` with its t interval (scipy); infinite below 2 values."""
    n = len(xs)
    m, sd = mean_sd(xs)
    if n < 2:
        return m, -math.inf, math.inf
    se = sd / math.sqrt(n)
    from scipy import stats as st

    t = float(st.t.ppf(1 - alpha / 2, n - 1))
    return m, m - t * se, m + t * se


def paired_binary(xs: Sequence[int], ys: Sequence[int], alpha: float = 0.05) -> tuple[float, float, float, float]:
    """``(diff, low, high, p)`` for two 0/1 outcomes of the same games: the paired difference of
    proportions (``ys`` minus ``xs``) with its paired interval, and McNemar's exact test on the
    discordant pairs (statsmodels)."""
    diff, lo, hi = paired_mean_diff([float(x) for x in xs], [float(y) for y in ys], alpha)
    b = sum(1 for x, y in zip(xs, ys, strict=True) if x and not y)
    c = sum(1 for x, y in zip(xs, ys, strict=True) if y and not x)
    if b + c == 0:
        return diff, max(-1.0, lo) if math.isfinite(lo) else -1.0, min(1.0, hi) if math.isfinite(hi) else 1.0, 1.0
    from statsmodels.stats.contingency_tables import mcnemar

    p = float(mcnemar([[0, b], [c, 0]], exact=True).pvalue)
    return diff, max(-1.0, lo), min(1.0, hi), p


def paired_t(xs: Sequence[float], ys: Sequence[float], alpha: float = 0.05) -> tuple[float, float, float, float]:
    """``(diff, low, high, p)``: mean of ``ys - xs`` pair by pair, its t interval and the paired
    t-test's p-value (scipy ``ttest_rel``)."""
    diff, lo, hi = paired_mean_diff(xs, ys, alpha)
    if len(xs) < 2 or all(x == y for x, y in zip(xs, ys, strict=True)):
        return diff, lo if len(xs) >= 2 else -math.inf, hi if len(xs) >= 2 else math.inf, 1.0
    import warnings

    from scipy.stats import ttest_rel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(ttest_rel(ys, xs).pvalue)
    return diff, lo, hi, p if math.isfinite(p) else 1.0


def simultaneous_ci(diff: float, ci95: Sequence[float], tests: int, alpha: float = 0.05) -> tuple[float, float]:
    """A 95% interval widened to hold for ``tests`` estimates at once (Bonferroni: each at level
    ``1 - alpha / tests``), from its estimate and its single 95% interval (normal approximation;
    an asymmetric interval is widened on each side by the same factor)."""
    lo, hi = float(ci95[0]), float(ci95[1])
    if tests <= 1 or not (math.isfinite(lo) and math.isfinite(hi)):
        return lo, hi
    from scipy.stats import norm

    factor = float(norm.ppf(1 - alpha / (2 * tests))) / Z95
    return diff - factor * (diff - lo), diff + factor * (hi - diff)


def games_for_half_width(half_width_points: float, share: float, z: float = Z95) -> int:
    """Decided games for a win rate near ``share`` to have a 95% interval at most
    ``half_width_points`` wide on each side (the normal approximation, which the Wilson interval
    matches at these sizes): ``z² p(1-p) / h²``. To tell 51.5% from 50% the half-width must be
    0.75 points: 17,074 games."""
    h = half_width_points / 100
    if h <= 0:
        raise ValueError(f"half-width must be above 0 points, got {half_width_points:g}")
    return math.ceil(z * z * share * (1 - share) / (h * h))


def confirm_games(seat_edge_points: float, players: int) -> int:
    """Games a confirmation plays at ``players`` to resolve a goal of every seat within its fair share
    ± ``seat_edge_points``: each seat's 95% interval half as wide as the band (a seat measured at
    its fair share then has its whole interval inside the band; one at the band's edge never
    does)."""
    return games_for_half_width(seat_edge_points / 2, 1 / players)
