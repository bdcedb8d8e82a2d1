"""Chart helpers shared by the lab's reports: 16 distinct colours, bins of whole numbers, integer
ticks, a legend outside the data, and a second axis in rounds (turns per seat)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: 16 distinct colours (matplotlib's tab10, then black and five light tones of tab20), so 16
#: abilities never share a colour
PALETTE16 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
             "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5")
#: the colour of reference lines (the fair share, a median)
ACCENT = "#d62728"


def constant(values: Sequence[float]) -> bool:
    """Whether a series is the same everywhere (a panel of it would say nothing)."""
    return len(set(values)) <= 1


def colour(i: int) -> str:
    return PALETTE16[i % len(PALETTE16)]


def int_bins(values: Sequence[int], most: int = 60) -> list[float]:
    """Histogram bin edges for whole numbers: each bin holds whole numbers only (edges at .5), one
    number per bin, or ``k`` numbers per bin when the range is wider than ``most``."""
    if not values:
        return [-0.5, 0.5]
    lo, hi = min(values), max(values)
    width = max(1, math.ceil((hi - lo + 1) / most))
    edges = [lo - 0.5 + k * width for k in range(math.ceil((hi - lo + 1) / width) + 1)]
    return edges


def integer_ticks(ax: Any, axis: str = "x") -> None:
    """Ticks at whole numbers only on ``axis`` (for counts and integer settings)."""
    from matplotlib.ticker import MaxNLocator

    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))


def legend_outside(ax: Any, fontsize: float = 8, **kwargs: Any) -> None:
    """The legend to the right of the plotting area, never over the data."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs)


def rounds_axis(ax: Any, players: int, axis: str = "x") -> None:
    """A second axis (top or right) in rounds: turns divided by the number of players."""
    n = float(players)
    fwd = (lambda t: t / n, lambda r: r * n)
    if axis == "x":
        sec = ax.secondary_xaxis("top", functions=fwd)
        sec.set_xlabel(f"rounds (turns / {players})", fontsize=8)
    else:
        sec = ax.secondary_yaxis("right", functions=fwd)
        sec.set_ylabel(f"rounds (turns / {players})", fontsize=8)
    sec.tick_params(labelsize=8)
