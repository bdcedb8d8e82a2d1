"""The balance matrix: one rule set at every table size and skill level, in one report.

``matrix(counts, skills, ...)`` plays :func:`civlite.sim.balance.balance` at each player count
(``p<N>/``: self-play per level and, unless ``mixed`` is off, the mixed tables) and writes
``matrix.json``, ``matrix.md``, ``matrix.html`` and ``matrix.png``: per cell (table size ×
skill level) every seat's win rate with its 95% Wilson interval and a **verdict** against the
goal (every seat within its fair share ± ``edge`` points):

* ``fair``: every seat's whole interval lies inside the band;
* ``unfair``: some seat's whole interval lies outside it;
* ``open``: neither yet; the cell needs about :func:`civlite.sim.stats.confirm_games` games.

It also gives the game's shape per cell (:mod:`civlite.sim.measures`) and the **skill depth
curve**: at each table size, the win rate of one seat of each level against the level below
it in all the other seats (from the mixed tables), against the fair share.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..engine import RuleSet
from .balance import _md_table_html, balance
from .stats import confirm_games

VERDICTS = ("fair", "open", "unfair")


def verdict(seats: Sequence[dict[str, Any]], players: int, edge: float) -> str:
    """``fair``, ``unfair`` or ``open`` for one cell's seats (each with ``ci95``) against fair ± ``edge`` points."""
    fair = 1 / players
    tol = edge / 100 + 1e-9
    if any(s["ci95"][0] > fair + tol or s["ci95"][1] < fair - tol for s in seats):
        return "unfair"
    if all(fair - tol <= s["ci95"][0] and s["ci95"][1] <= fair + tol for s in seats):
        return "fair"
    return "open"


def cell_of(level: dict[str, Any], players: int, edge: float) -> dict[str, Any]:
    """One cell of the matrix from one level of a balance report."""
    fair = 1 / players
    worst = max(level["seats"], key=lambda s: abs(s["win_rate"] - fair))
    return {"players": players, "bot": level["bot"], "games": level["games"], "draws": level["draws"],
            "seats": level["seats"], "verdict": verdict(level["seats"], players, edge),
            "worst_seat": worst["seat"], "worst_points": 100 * (worst["win_rate"] - fair),
            "games_needed": confirm_games(edge, players), "length": level["length"],
            "shape": level.get("shape"), "same_games_as": level.get("same_games_as")}


def depth_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The skill depth curve at one table size: each level in one seat against the level below."""
    skills = doc["skills"]
    out = []
    for t in doc["mixed"]:
        if skills.index(t["strong"]) == skills.index(t["weak"]) + 1:
            out.append({"players": doc["players"], "strong": t["strong"], "weak": t["weak"], "games": t["games"],
                        "win_rate": t["win_rate"], "ci95": t["ci95"], "fair_share": t["fair_share"]})
    return out


def matrix(counts: Sequence[int], skills: Sequence[str], games: int, seed: int, rules: RuleSet, out: str | Path, *,
           edge: float = 1.5, workers: int | None = None, backend: str = "local", mixed: bool = True,
           mixed_games: int | None = None, resume: bool = False,
           on_run: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play the balance report at every count of ``counts`` and write the matrix report into ``out``."""
    if not counts or len(set(counts)) != len(counts):
        raise ValueError("--players: give each player count once, e.g. 2,3,4,6")
    d = Path(out)
    docs = []
    for n in counts:
        say = (lambda s, n=n: on_run(f"{n} players: {s}")) if on_run is not None else None
        docs.append(balance(skills, n, games, seed, rules, d / f"p{n}", workers=workers, backend=backend,
                            mixed=mixed, mixed_games=mixed_games, on_run=say, resume=resume))
    doc = {"rules": rules.name, "players": list(counts), "skills": list(skills), "games": games, "seed": seed,
           "edge": edge, "cells": [cell_of(lv, bd["players"], edge) for bd in docs for lv in bd["levels"]],
           "depth": [row for bd in docs for row in depth_of(bd)]}
    write_matrix(doc, d)
    return doc


# -- output ---------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _seat(s: dict[str, Any]) -> str:
    return f"{_pct(s['win_rate'])} ({100 * s['ci95'][0]:.1f}–{100 * s['ci95'][1]:.1f})"


def matrix_md(doc: dict[str, Any]) -> str:
    """The matrix report in Markdown (what ``civlite balance`` prints for several player counts)."""
    e = doc["edge"]
    cells = {(c["players"], c["bot"]): c for c in doc["cells"]}
    out = [f"# Balance matrix: rule set {doc['rules']}", "",
           f"{doc['games']} self-play games per cell, seed {doc['seed']} (every level plays the same deals). Verdict "
           f"against the goal of every seat within its fair share ± {e:g} points: **fair** when every seat's 95% "
           "interval lies inside that band, **unfair** when some seat's interval lies wholly outside it, **open** "
           "when the games cannot tell yet (the games a cell needs to tell: each seat's interval half as wide "
           "as the band).", "",
           "## Verdicts", "",
           "| players | fair share | " + " | ".join(doc["skills"]) + " | games to tell |",
           "|---|---|" + "---|" * len(doc["skills"]) + "---|"]
    for n in doc["players"]:
        row = []
        for bot in doc["skills"]:
            c = cells[(n, bot)]
            row.append(f"**{c['verdict']}** (seat {c['worst_seat']} {c['worst_points']:+.1f})")
        out.append(f"| {n} | {100 / n:.1f}% | " + " | ".join(row) + f" | {cells[(n, doc['skills'][0])]['games_needed']} |")
    out += ["", "Each cell: the verdict and the seat furthest from its fair share (points).", ""]
    for n in doc["players"]:
        out += [f"## {n} players (fair share {100 / n:.1f}%)", "",
                "Win rate of each seat (95% CI) at each skill level:", "",
                "| seat | " + " | ".join(doc["skills"]) + " |", "|---|" + "---|" * len(doc["skills"])]
        for s in range(n):
            out.append(f"| {s} | " + " | ".join(_seat(cells[(n, bot)]["seats"][s]) for bot in doc["skills"]) + " |")
        out.append("| verdict | " + " | ".join(cells[(n, bot)]["verdict"] for bot in doc["skills"]) + " |")
        out.append("| median length (rounds) | " + " | ".join(
            f"{cells[(n, bot)]['length']['rounds_p50']:.1f}" for bot in doc["skills"]) + " |")
        out += [f"{c['bot']} played exactly the games of {c['same_games_as']} at {n} players." for c in doc["cells"]
                if c["players"] == n and c.get("same_games_as")]
        out.append("")
    shaped = [c for c in doc["cells"] if c.get("shape")]
    if shaped:
        out += ["## The game's shape", "",
                "Lead changes: how often the CT leader at the end of a round changes, per game. Comeback: the "
                "share of games won by a seat behind the leader at half time. Leader wins: the chance that the "
                "leader after round 5 (and 10) wins. Last place: the longest stretch, in rounds, that the seat "
                "which ends last goes without a meld, and how often it never melds.", "",
                "| players | level | lead changes | comeback | leader after round 5 wins | after round 10 "
                "| last place: rounds without a meld | never melds |", "|---|---|---|---|---|---|---|---|"]
        for c in shaped:
            sh = c["shape"]
            curve = {p["round"]: p for p in sh["decisiveness"]}

            def at(r: int, curve: dict[int, Any] = curve) -> str:
                p = curve.get(r)
                return f"{_pct(p['leader_wins'])} ({100 * p['ci95'][0]:.0f}–{100 * p['ci95'][1]:.0f})" if p else "–"

            lc, cb, lp = sh["lead_changes"], sh["comeback"], sh["last_place"]
            out.append(f"| {c['players']} | {c['bot']} | {lc['mean']:.2f} ({lc['ci95'][0]:.2f}–{lc['ci95'][1]:.2f}) | "
                       f"{_pct(cb['rate'])} ({100 * cb['ci95'][0]:.1f}–{100 * cb['ci95'][1]:.1f}) | {at(5)} | {at(10)} | "
                       f"{lp['longest_without_meld_rounds']:.1f} ({lp['ci95'][0]:.1f}–{lp['ci95'][1]:.1f}) | "
                       f"{_pct(lp['never_melded'])} |")
        out.append("")
    if doc["depth"]:
        out += ["## Skill depth", "",
                "One seat of a level against the level below it in every other seat (seats rotated): its win rate "
                "against the fair share. Above the fair share, playing better pays at that table size.", "",
                "| players | one seat | the others | games | win rate (95% CI) | fair share | × fair |",
                "|---|---|---|---|---|---|---|"]
        for r in doc["depth"]:
            out.append(f"| {r['players']} | {r['strong']} | {r['weak']} | {r['games']} | {_pct(r['win_rate'])} "
                       f"({100 * r['ci95'][0]:.1f}–{100 * r['ci95'][1]:.1f}) | {_pct(r['fair_share'])} | "
                       f"{r['win_rate'] / r['fair_share']:.2f} |")
        out.append("")
    return "\n".join(out)


def write_matrix(doc: dict[str, Any], out: str | Path) -> None:
    """``matrix.json``, ``matrix.md``, ``matrix.png`` and ``matrix.html`` (self-contained) in ``out``."""
    from .charts import matrix_chart

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "matrix.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    md = matrix_md(doc)
    matrix_chart(doc, d / "matrix.png")
    (d / "matrix.md").write_text(md + "\n![every seat's win rate at every table size and skill level](matrix.png)\n",
                                 encoding="utf-8")
    img = base64.b64encode((d / "matrix.png").read_bytes()).decode("ascii")
    (d / "matrix.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite: balance matrix</title>'
        "<style>body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; } table { "
        "border-collapse: collapse; margin: 0.5em 0 1.5em; } td, th { border: 1px solid #ccc; padding: 3px 8px; "
        "text-align: right; } td:first-child, th:first-child { text-align: left; } img { max-width: 100%; }"
        "</style></head><body>\n" + _md_table_html(md.replace("**", ""))
        + f'\n<img alt="every seat\'s win rate at every table size and skill level" src="data:image/png;base64,{img}">\n'
        "</body></html>\n", encoding="utf-8")
