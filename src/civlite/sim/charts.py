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


def data_limits(values: Sequence[float], pad: float = 0.08, include: Sequence[float] = ()) -> tuple[float, float]:
    """Axis limits that fit ``values`` (and ``include``, e.g. a reference line) with some room, not a fixed 0..1."""
    xs = [*values, *include]
    if not xs:
        return 0.0, 1.0
    lo, hi = min(xs), max(xs)
    room = max((hi - lo) * pad, 1e-3)
    return lo - room, hi + room


def matrix_chart(doc: dict[str, Any], path: Any) -> None:
    """One panel per table size: each seat's win rate (95% CI) at each skill level, on an axis
    scaled to the data, with the fair share drawn and the goal's band shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = doc["players"]
    skills = doc["skills"]
    cells = {(c["players"], c["bot"]): c for c in doc["cells"]}
    cols = min(len(counts), 2)
    rows = -(-len(counts) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 3.6 * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for ax, n in zip(flat, counts, strict=False):
        fair = 100 / n
        edge = doc["edge"]
        ax.axhspan(fair - edge, fair + edge, color="#2ca02c", alpha=0.12, lw=0,
                   label=f"goal: fair ± {edge:g} points")
        ax.axhline(fair, color=ACCENT, ls="--", lw=1, label=f"fair share {fair:.1f}%")
        ys: list[float] = []
        width = 0.7 / max(1, len(skills))
        for i, bot in enumerate(skills):
            seats = cells[(n, bot)]["seats"]
            xs = [s + (i - (len(skills) - 1) / 2) * width for s in range(n)]
            p = [100 * s["win_rate"] for s in seats]
            lo = [100 * s["ci95"][0] for s in seats]
            hi = [100 * s["ci95"][1] for s in seats]
            ys += lo + hi
            ax.errorbar(xs, p, yerr=[[a - b for a, b in zip(p, lo, strict=True)],
                                     [b - a for a, b in zip(p, hi, strict=True)]],
                        fmt="o", ms=4, capsize=3, color=colour(i), label=f"{bot} ({cells[(n, bot)]['verdict']})")
        ax.set_ylim(*data_limits(ys, include=[fair - edge, fair + edge]))
        ax.set_xticks(range(n), [f"seat {s}" for s in range(n)], fontsize=8)
        ax.set_ylabel("win rate (%)")
        ax.set_title(f"{n} players: each seat's win rate (95% CI)", fontsize=10)
        legend_outside(ax, fontsize=7)
    for ax in flat[len(counts):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
