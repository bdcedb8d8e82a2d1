"""A parameter sweep: one simulation per value of any rule path, each metric plotted against it.

``--param victory_ct=12..24:4``, ``basic.W.cards=1,2``, ``start_ct=[0,0],[0,1]``,
``advanced.M.effects=steal_cards 3|steal_cards 4`` (bars separate values that hold commas),
``basic.D=false`` (the ability removed): any path of :mod:`civlite.sim.paths`."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine import RuleSet
from .charts import ACCENT, colour, constant, integer_ticks, legend_outside, rounds_axis
from .paths import format_value, parse_value, set_path, split_values
from .report import analyze
from .simulator import SimConfig, simulate


def parse_param(text: str) -> tuple[str, list[Any]]:
    """``victory_ct=12..24:4`` -> ``("victory_ct", [12, 16, 20, 24])``; ``k=1,3,5`` lists values;
    ``start_ct=[0,0],[0,1]`` and ``advanced.M.effects=steal_cards 3|steal_cards 4`` too (any rule path)."""
    name, eq, spec = text.partition("=")
    name = name.strip()
    if not eq or not name or not spec.strip():
        raise ValueError(f"--param {text!r}: expected PATH=LO..HI[:STEP] or PATH=V1,V2,... (e.g. basic.W.cards=1,2)")
    spec = spec.strip()
    values: list[Any]
    if ".." in spec and not spec.startswith("["):
        try:
            rng, _, step_s = spec.partition(":")
            lo_s, _, hi_s = rng.partition("..")
            lo, hi, step = int(lo_s), int(hi_s), int(step_s) if step_s else 1
            if step <= 0 or hi < lo:
                raise ValueError
        except ValueError:
            raise ValueError(f"--param {text!r}: a range is LO..HI[:STEP] of whole numbers, LO <= HI, STEP > 0") from None
        values = list(range(lo, hi + 1, step))
    else:
        values = [parse_value(v) for v in split_values(spec)]
    if not values:
        raise ValueError(f"--param {text!r}: no values")
    return name, values


#: the sweep's one axis that is not a rule path: the table size (``--param players=2,3,4,6``)
PLAYERS = "players"


def check_param(rules: RuleSet, name: str, values: list[Any]) -> None:
    """Every value must make a valid rule set (RuleSetError naming the path otherwise); ``players``
    takes player counts 2 to 8."""
    if name == PLAYERS:
        for v in values:
            if not isinstance(v, int) or isinstance(v, bool) or not 2 <= v <= 8:
                raise ValueError(f"--param players: a player count is 2 to 8, got {format_value(v)}")
        return
    for v in values:
        set_path(rules, name, v)


def run_name(name: str, v: Any) -> str:
    """A value's run folder: ``victory_ct=16``, ``start_ct=[0,1]``, ``advanced.M.effects=steal_cards_3``."""
    text = format_value(v).replace("/", "_").replace(" ", "_").replace('"', "")
    return f"{name}={text}"


def _metrics(a: dict[str, Any]) -> dict[str, Any]:
    s0 = a["seats"][0] if a["seats"] else {"win_rate": 0.0, "ci95": [0.0, 1.0]}
    return {
        "seat0_win_rate": s0["win_rate"], "seat0_ci95": s0["ci95"],
        "bots": {b["bot"]: {"win_rate": b["win_rate"], "ci95": b["ci95"]} for b in a["bots"]},
        "draw_rate": a["draws"] / a["games"] if a["games"] else 0.0,
        "turns_mean": a["length"]["mean"], "turns_p10": a["length"]["p10"], "turns_p90": a["length"]["p90"],
        "melds_per_game": a["melds"]["per_game"],
        "abilities_per_game": {r["ability"]: r["per_game"] for r in a["abilities"]},
        "ability_win_rate": {r["ability"]: r["win_rate_when_used"] for r in a["abilities"]},
    }


def sweep(name: str, values: list[Any], bots: tuple[str, ...], players: int, games: int, seed: int,
          rules: RuleSet, out: str | Path, workers: int | None = None, backend: str = "local",
          progress: bool = False, on_value: Callable[[Any], None] | None = None) -> dict[str, Any]:
    od = Path(out)
    od.mkdir(parents=True, exist_ok=True)
    points = []
    for v in values:
        n = int(v) if name == PLAYERS else players
        rs = rules if name == PLAYERS else set_path(rules, name, v)
        if on_value is not None:
            on_value(v)
        cfg = SimConfig(bots=bots, players=n, games=games, seed=seed, rules=rs)
        run_dir = od / run_name(name, v)
        res = simulate(cfg, out=run_dir, workers=workers, backend=backend, progress=progress)
        a = analyze(res.summary, res.lines)
        points.append({"value": v, "players": n, "fair_share": 1 / n, "dir": str(run_dir), "games": a["games"],
                       **_metrics(a)})
        if res.interrupted:
            break
    result = {"param": name, "values": [p["value"] for p in points], "bots": list(bots),
              "players": sorted({p["players"] for p in points}) if name == PLAYERS else players,
              "games": games, "seed": seed, "rules": rules.name, "points": points}
    png = _plot(result, od)
    (od / "sweep.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (od / "sweep.html").write_text(_html(result, png), encoding="utf-8")
    return result


def _plot(res: dict[str, Any], od: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = res["points"]
    numeric = all(isinstance(p["value"], int | float) and not isinstance(p["value"], bool) for p in pts)
    whole = numeric and all(isinstance(p["value"], int) for p in pts)
    xs = [p["value"] for p in pts] if numeric else list(range(len(pts)))
    name = res["param"]
    fairs = [p["fair_share"] for p in pts]
    bots = list(pts[0]["bots"]) if pts else []
    abilities = list(pts[0]["abilities_per_game"]) if pts else []

    def percent_axis(ax: Any) -> None:
        from matplotlib.ticker import PercentFormatter

        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))

    def fair_line(ax: Any, ys: list[float], col: str) -> None:
        if constant(ys):
            ax.axhline(ys[0], color=col, ls="--", lw=1, label=f"fair share {100 * ys[0]:.1f}%")
        else:
            ax.plot(xs, ys, color=col, ls="--", lw=1, label="fair share")

    def band(ax: Any, ys: list[float], lo: list[float], hi: list[float], label: str, i: int = 0) -> None:
        ax.plot(xs, ys, marker="o", label=label, color=colour(i))
        ax.fill_between(xs, lo, hi, alpha=0.2, color=colour(i))

    def seat0(ax: Any) -> None:
        band(ax, [p["seat0_win_rate"] for p in pts], [p["seat0_ci95"][0] for p in pts],
             [p["seat0_ci95"][1] for p in pts], "seat 0")
        fair_line(ax, fairs, ACCENT)
        percent_axis(ax)
        ax.set_title("first seat's win rate (95% CI)", fontsize=10)
        legend_outside(ax)

    def per_bot(ax: Any) -> None:
        for i, bot in enumerate(bots):
            band(ax, [p["bots"][bot]["win_rate"] for p in pts], [p["bots"][bot]["ci95"][0] for p in pts],
                 [p["bots"][bot]["ci95"][1] for p in pts], bot, i)
        fair_line(ax, fairs, "grey")
        percent_axis(ax)
        ax.set_title("win rate per bot (95% CI)", fontsize=10)
        legend_outside(ax)

    def length(ax: Any) -> None:
        band(ax, [p["turns_mean"] for p in pts], [p["turns_p10"] for p in pts], [p["turns_p90"] for p in pts],
             "mean (10%-90%)")
        ax.set_title("game length: mean, band 10%-90% (right: rounds)", fontsize=10)
        ax.set_ylabel("turns")
        if not isinstance(res["players"], list):
            rounds_axis(ax, res["players"], "y")

    def melds(ax: Any) -> None:
        ax.plot(xs, [p["melds_per_game"] for p in pts], marker="o", color=colour(0))
        ax.set_title("melds per game", fontsize=10)

    def activations(ax: Any) -> None:
        for i, ab in enumerate(abilities):
            ax.plot(xs, [p["abilities_per_game"][ab] for p in pts], marker=".", color=colour(i),
                    ls="-" if i < 8 else "--", label=ab)
        ax.set_title("activations per game (basic solid, advanced dashed)", fontsize=10)
        legend_outside(ax, fontsize=6)

    def draws(ax: Any) -> None:
        ax.plot(xs, [p["draw_rate"] for p in pts], marker="o", color=colour(0))
        ax.set_title("draw rate (turn limit)", fontsize=10)

    # a panel that would be constant says nothing: in self-play every bot wins the fair share, and
    # most variants have no draws
    panels = [seat0, length, melds, activations]
    if len(bots) > 1:
        panels.insert(1, per_bot)
    if not constant([p["draw_rate"] for p in pts]):
        panels.append(draws)
    cols = 3
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(16, 3.8 * rows), squeeze=False)
    for ax, panel in zip([a for row in axes for a in row], panels, strict=False):
        panel(ax)
        ax.set_xlabel(name)
        if not numeric:
            ax.set_xticks(xs, [format_value(p["value"]) for p in pts], rotation=20, fontsize=7)
        elif whole:
            integer_ticks(ax, "x")
    for ax in [a for row in axes for a in row][len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    path = od / "sweep.png"
    fig.savefig(path, dpi=85)
    plt.close(fig)
    return path


def _html(res: dict[str, Any], png: Path) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(format_value(p['value']))}</td><td>{p['games']}</td><td>{100 * p['seat0_win_rate']:.1f}% "
        f"({100 * p['seat0_ci95'][0]:.1f}–{100 * p['seat0_ci95'][1]:.1f}%)</td><td>{p['turns_mean']:.1f}</td>"
        f"<td>{p['melds_per_game']:.2f}</td><td>{100 * p['draw_rate']:.1f}%</td>"
        + "".join(f"<td>{100 * b['win_rate']:.1f}%</td>" for b in p["bots"].values()) + "</tr>"
        for p in res["points"])
    bot_heads = "".join(f"<th>{e(b)} win rate</th>" for b in (res["points"][0]["bots"] if res["points"] else {}))
    img = base64.b64encode(png.read_bytes()).decode("ascii")
    players = res["players"] if not isinstance(res["players"], list) else ", ".join(map(str, res["players"]))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite sweep: {e(res['param'])}</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
img {{ max-width: 100%; }}</style></head><body>
<h1>Sweep of {e(res['param'])}: {e(' vs '.join(res['bots']))}, {players} players, {res['games']} games per value</h1>
<table><tr><th>{e(res['param'])}</th><th>games</th><th>seat 0 win rate (95% CI)</th><th>mean turns</th>
<th>melds/game</th><th>draws</th>{bot_heads}</tr>{rows}</table>
<img alt="metrics against {e(res['param'])}" src="data:image/png;base64,{img}">
<p>Each value's run (records, summary) is in its own folder; <code>civlite report</code> details any of them.</p>
</body></html>
"""
