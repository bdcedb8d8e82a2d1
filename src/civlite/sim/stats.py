"""Small statistics for balance reports: Wilson intervals and two-sample tests."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float, float]:
    """``(p, low, high)``: the proportion ``k/n`` and its Wilson score interval."""
    if n <= 0:
        return 0.0, 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, centre - half), min(1.0, centre + half)


def normal_sf2(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Two-proportion z-test (pooled): ``(z, p_value)``."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (k1 / n1 - k2 / n2) / se
    return z, normal_sf2(z)


def mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def welch(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Welch's test of two means, normal approximation (large samples): ``(z, p_value)``."""
    m1, s1 = mean_sd(xs)
    m2, s2 = mean_sd(ys)
    if not xs or not ys:
        return 0.0, 1.0
    se = math.sqrt(s1 * s1 / len(xs) + s2 * s2 / len(ys))
    if se == 0:
        return 0.0, 1.0 if m1 == m2 else 0.0
    z = (m1 - m2) / se
    return z, normal_sf2(z)


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
