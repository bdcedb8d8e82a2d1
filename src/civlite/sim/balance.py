"""Fairness at every skill level: the same rule set played in self-play by each bot of a list of
skill levels (weakest first), and in mixed tables where one seat is a bot of another level than the others.

``balance(skills, players, games, seed, rules, out)`` plays one run per level (``self-<level>/``)
and, for every pair of levels, one mixed run (``mixed-<later>-vs-<earlier>/``: the later level's bot
in one seat, the earlier level's in all the others, seats rotated so the single bot plays every seat
equally; listed weakest first, that is a strong seat against weaker others).
Every run is an ordinary run directory (``civlite report`` reads it). Every level plays the same
deals (game ``i`` is seeded from ``(seed, i)``), so the levels differ only by how the bots play.

Per level: the seat edge (the first seat's share of decided games minus the fair share, with its
95% Wilson interval), each seat's win rate, draws, the length in turns and in rounds (turns per
seat, extra turns counted) with a t interval of the mean, and each ability's activations per game
with a t interval. Per mixed table: the single bot's win rate overall and in each seat it played
(Wilson intervals), against the fair share. Written: ``balance.json`` (every number),
``balance.md`` and ``balance.html`` (tables and the chart ``skills.png``: edge, length and the
mixed tables against skill).
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..engine import RuleSet
from .charts import PALETTE16, legend_outside
from .measures import game_shape
from .simulator import SimConfig, simulate
from .stats import mean_ci, quantile, wilson

#: the default skill levels, weakest first: heuristic (medium), policy (a small learned policy), expert (hard)
DEFAULT_SKILLS = ("heuristic", "policy", "expert")

def slug(spec: str) -> str:
    """A directory name for a bot spec: ``ismcts:iterations=200`` -> ``ismcts-iterations-200``."""
    return re.sub(r"[^A-Za-z0-9_.]+", "-", spec).strip("-") or "bot"


def level_figures(lines: Sequence[dict[str, Any]], players: int, abilities: Sequence[str]) -> dict[str, Any]:
    """The figures of one self-play run (its light game lines)."""
    g = len(lines)
    n = players
    fair = 1.0 / n
    winners = [ln["stats"]["winner"] for ln in lines]
    decided = sum(1 for w in winners if w is not None)
    seats: list[dict[str, Any]] = []
    for s in range(n):
        k = sum(1 for w in winners if w == s)
        p, lo, hi = wilson(k, decided)
        seats.append({"seat": s, "wins": k, "win_rate": p, "ci95": [lo, hi]})
    s0: dict[str, Any] = seats[0]
    turns = sorted(float(ln["stats"]["turns"]) for ln in lines)
    rounds = [t / n for t in turns]
    t_mean, t_lo, t_hi = mean_ci(turns)
    r_mean, r_lo, r_hi = mean_ci(rounds)
    use = {}
    for name in abilities:
        per_game = [float(sum(acts.count(name) for acts in ln["stats"]["abilities"])) for ln in lines]
        m, lo, hi = mean_ci(per_game)
        use[name] = {"per_game": m, "ci95": [max(0.0, lo), hi] if g > 1 else [m, m]}
    return {"games": g, "decided": decided, "draws": g - decided, "fair_share": fair, "seats": seats,
            "edge": {"points": 100 * (s0["win_rate"] - fair),
                     "ci95": [100 * (s0["ci95"][0] - fair), 100 * (s0["ci95"][1] - fair)],
                     "significant": s0["ci95"][0] > fair or s0["ci95"][1] < fair},
            "length": {"turns_p50": quantile(turns, 0.5), "turns_mean": t_mean, "turns_ci95": [t_lo, t_hi],
                       "rounds_p50": quantile(rounds, 0.5), "rounds_mean": r_mean, "rounds_ci95": [r_lo, r_hi]},
            "abilities": use}


def mixed_figures(lines: Sequence[dict[str, Any]], strong: str, players: int) -> dict[str, Any]:
    """The single bot's (``strong``) win rate overall and in each seat it played (one mixed run)."""
    by_seat = []
    total_k = total_n = 0
    for s in range(players):
        games = [ln for ln in lines if ln["bots"][s] == strong]
        k = sum(1 for ln in games if ln["stats"]["winner"] == s)
        p, lo, hi = wilson(k, len(games))
        by_seat.append({"seat": s, "games": len(games), "wins": k, "win_rate": p, "ci95": [lo, hi]})
        total_k += k
        total_n += len(games)
    p, lo, hi = wilson(total_k, total_n)
    return {"games": len(lines), "wins": total_k, "win_rate": p, "ci95": [lo, hi], "fair_share": 1.0 / players,
            "by_seat": by_seat}


def balance(skills: Sequence[str], players: int, games: int, seed: int, rules: RuleSet, out: str | Path, *,
            workers: int | None = None, backend: str = "local", mixed: bool = True,
            mixed_games: int | None = None, on_run: Callable[[str], None] | None = None,
            resume: bool = False) -> dict[str, Any]:
    """Play every level's self-play run and (``mixed``) every pair's mixed run; write the report."""
    if len(skills) < 1:
        raise ValueError("--skills: give at least one bot spec")
    if len(set(skills)) != len(skills):
        raise ValueError(f"--skills {','.join(skills)}: a level is named twice")
    d = Path(out)
    names = [a.name for a in rules.abilities]
    levels: list[dict[str, Any]] = []
    seen: list[list[Any]] = []  # each level's games, to tell when two levels play alike
    for spec in skills:
        cfg = SimConfig(bots=(spec,), players=players, games=games, seed=seed, rules=rules)
        if on_run is not None:
            on_run(f"{spec}: self-play, {games} games")
        res = simulate(cfg, out=d / f"self-{slug(spec)}", workers=workers, backend=backend, resume=resume)
        if res.interrupted:
            raise KeyboardInterrupt
        played = [(ln["stats"]["winner"], ln["stats"]["turns"], ln["stats"]["abilities"]) for ln in res.lines]
        same = next((lv["bot"] for lv, games_of in zip(levels, seen, strict=True) if games_of == played), None)
        seen.append(played)
        levels.append({"bot": spec, "dir": f"self-{slug(spec)}", "same_games_as": same,
                       **level_figures(res.lines, players, names), "shape": game_shape(res.lines, players)})
    tables = []
    if mixed:
        mg = mixed_games or games
        for i, weak in enumerate(skills):
            for strong in skills[i + 1:]:
                cfg = SimConfig(bots=(strong, weak), players=players, games=mg, seed=seed, rules=rules)
                name = f"mixed-{slug(strong)}-vs-{slug(weak)}"
                if on_run is not None:
                    on_run(f"{strong} in one seat, {weak} in {players - 1}: {mg} games")
                res = simulate(cfg, out=d / name, workers=workers, backend=backend, resume=resume)
                if res.interrupted:
                    raise KeyboardInterrupt
                tables.append({"strong": strong, "weak": weak, "dir": name,
                               **mixed_figures(res.lines, strong, players)})
    doc = {"players": players, "games": games, "seed": seed, "rules": rules.name, "skills": list(skills),
           "levels": levels, "mixed": tables}
    write_balance(doc, d)
    return doc


# -- output ---------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _iv(ci: Sequence[float], pct: bool = True, fmt: str = ".1f") -> str:
    lo, hi = ci
    if pct:
        return f"{100 * lo:{fmt}}–{100 * hi:{fmt}}%"
    return f"{lo:{fmt}}–{hi:{fmt}}"


def tables_md(doc: dict[str, Any]) -> str:
    """The report's tables in Markdown (also what ``civlite balance`` prints)."""
    n = doc["players"]
    fair = 100 / n
    out = [f"# Fairness at every skill level: {n} players, rule set {doc['rules']}", "",
           f"{doc['games']} games a level, seed {doc['seed']}; every level plays the same deals. Seat edge: the "
           f"first seat's share of decided games minus the fair share ({fair:.1f}%), with 95% Wilson intervals. "
           "A round is one turn per seat.", "",
           "## Self-play", "",
           "| level | seat 0 wins | seat edge (pts) | " + " | ".join(f"seat {s}" for s in range(1, n))
           + " | draws | turns: median (mean, 95% CI) | rounds: median (mean, 95% CI) |",
           "|---|---|---|" + "---|" * (n - 1) + "---|---|---|"]
    for lv in doc["levels"]:
        s0 = lv["seats"][0]
        e = lv["edge"]
        ln = lv["length"]
        others = " | ".join(f"{_pct(s['win_rate'])} ({_iv(s['ci95'])})" for s in lv["seats"][1:])
        out.append(f"| {lv['bot']} | {_pct(s0['win_rate'])} ({_iv(s0['ci95'])}) | "
                   f"{e['points']:+.1f} ({e['ci95'][0]:+.1f} to {e['ci95'][1]:+.1f}){' *' if e['significant'] else ''}"
                   f" | {others} | {lv['draws']} | {ln['turns_p50']:g} ({ln['turns_mean']:.1f}, "
                   f"{_iv(ln['turns_ci95'], False)}) | {ln['rounds_p50']:.1f} ({ln['rounds_mean']:.1f}, "
                   f"{_iv(ln['rounds_ci95'], False, '.2f')}) |")
    out += ["", "`*`: the interval excludes a fair first seat."]
    out += [f"{lv['bot']} played exactly the games of {lv['same_games_as']} at this player count (the same "
            "moves: it is not another skill level here, e.g. a network trained for another number of players "
            "that falls back to that bot)." for lv in doc["levels"] if lv.get("same_games_as")]
    out += ["", "## Ability use (activations per game, 95% CI)",
            "", "| ability | " + " | ".join(lv["bot"] for lv in doc["levels"]) + " |",
            "|---|" + "---|" * len(doc["levels"])]
    names = list(doc["levels"][0]["abilities"]) if doc["levels"] else []
    for name in names:
        cells = []
        for lv in doc["levels"]:
            u = lv["abilities"][name]
            cells.append(f"{u['per_game']:.2f} ({_iv(u['ci95'], False, '.2f')})")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    if doc["mixed"]:
        out += ["", "## Mixed tables (one seat of a later level, the others of an earlier one)", "",
                f"The single seat's win rate (fair share {fair:.1f}%), overall and by the seat it played; above the "
                "fair share, the later level is the stronger one at this table.", "",
                "| one seat | the others | games | overall | " + " | ".join(f"in seat {s}" for s in range(n))
                + " |", "|---|---|---|---|" + "---|" * n]
        for t in doc["mixed"]:
            seats = " | ".join(f"{_pct(s['win_rate'])} ({_iv(s['ci95'])})" for s in t["by_seat"])
            out.append(f"| {t['strong']} | {t['weak']} ×{n - 1} | {t['games']} | {_pct(t['win_rate'])} "
                       f"({_iv(t['ci95'])}) | {seats} |")
    return "\n".join(out) + "\n"


def _chart(doc: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = doc["levels"]
    n = doc["players"]
    panels = 3 if doc["mixed"] else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.8 * panels, 3.8))
    xs = list(range(len(levels)))
    labels = [lv["bot"] for lv in levels]
    ax = axes[0]
    shown = range(1) if n == 2 else range(n)  # two seats: seat 1 mirrors seat 0
    for s in shown:
        ys = [100 * (lv["seats"][s]["win_rate"] - lv["fair_share"]) for lv in levels]
        lo = [y - 100 * (lv["seats"][s]["ci95"][0] - lv["fair_share"]) for y, lv in zip(ys, levels, strict=True)]
        hi = [100 * (lv["seats"][s]["ci95"][1] - lv["fair_share"]) - y for y, lv in zip(ys, levels, strict=True)]
        off = (s - (len(shown) - 1) / 2) * 0.08
        ax.errorbar([x + off for x in xs], ys, yerr=[lo, hi], fmt="o-", capsize=4, color=PALETTE16[s % 16],
                    label=f"seat {s}")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(xs, labels, fontsize=8)
    ax.set_xlabel("skill level (weakest first)")
    ax.set_ylabel("win rate − fair share (points)")
    ax.set_title("seat edge against skill (95% CI)", fontsize=10)
    legend_outside(ax)
    ax = axes[1]
    med = [lv["length"]["rounds_mean"] for lv in levels]
    err = [[m - lv["length"]["rounds_ci95"][0] for m, lv in zip(med, levels, strict=True)],
           [lv["length"]["rounds_ci95"][1] - m for m, lv in zip(med, levels, strict=True)]]
    ax.errorbar(xs, med, yerr=err, fmt="o-", capsize=4, color=PALETTE16[0], label="rounds (mean)")
    ax.plot(xs, [lv["length"]["rounds_p50"] for lv in levels], "s--", color=PALETTE16[1], label="rounds (median)")
    ax.set_xticks(xs, labels, fontsize=8)
    ax.set_xlabel("skill level (weakest first)")
    ax.set_ylabel(f"rounds (turns / {n})")
    ax.set_title("game length against skill", fontsize=10)
    legend_outside(ax)
    if doc["mixed"]:
        ax = axes[2]
        width = 0.8 / n
        for s in range(n):
            ps = [t["by_seat"][s]["win_rate"] for t in doc["mixed"]]
            lo = [p - t["by_seat"][s]["ci95"][0] for p, t in zip(ps, doc["mixed"], strict=True)]
            hi = [t["by_seat"][s]["ci95"][1] - p for p, t in zip(ps, doc["mixed"], strict=True)]
            ax.bar([i + (s - (n - 1) / 2) * width for i in range(len(ps))], [100 * p for p in ps], width,
                   yerr=[[100 * x for x in lo], [100 * x for x in hi]], capsize=2, color=PALETTE16[s % 16],
                   label=f"the one in seat {s}")
        ax.axhline(100 / n, color="black", ls="--", lw=0.8, label=f"fair share {100 / n:.0f}%")
        ax.set_xticks(range(len(doc["mixed"])), [f"{t['strong']} ×1\nvs {t['weak']} ×{n - 1}" for t in doc["mixed"]],
                      fontsize=7, rotation=30 if len(doc["mixed"]) > 2 else 0, ha="right" if len(doc["mixed"]) > 2 else "center")
        tops = [100 * t["by_seat"][s]["ci95"][1] for t in doc["mixed"] for s in range(n)]
        ax.set_ylim(0, max([*tops, 100 / n]) * 1.08)  # bars start at 0; the top follows the data
        ax.set_ylabel("the single seat's win rate (%)")
        ax.set_title("mixed tables: one seat of a later level", fontsize=10)
        legend_outside(ax, fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _md_table_html(md: str) -> str:
    """A minimal Markdown-to-HTML for the report's own tables, headings and paragraphs."""
    e = html.escape
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, body = rows[0], rows[2:]
            out.append("<table><tr>" + "".join(f"<th>{e(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in body)
                       + "</table>")
            rows.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
            continue
        flush()
        if line.startswith("## "):
            out.append(f"<h2>{e(line[3:])}</h2>")
        elif line.startswith("# "):
            out.append(f"<h1>{e(line[2:])}</h1>")
        elif line.strip():
            out.append(f"<p>{e(line)}</p>")
    flush()
    return "\n".join(out)


def write_balance(doc: dict[str, Any], out: str | Path) -> None:
    """``balance.json``, ``balance.md``, ``skills.png`` and ``balance.html`` (self-contained) in ``out``."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "balance.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    md = tables_md(doc)
    (d / "balance.md").write_text(md + "\n![seat edge, length and mixed tables against skill](skills.png)\n",
                                  encoding="utf-8")
    _chart(doc, d / "skills.png")
    img = base64.b64encode((d / "skills.png").read_bytes()).decode("ascii")
    (d / "balance.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite: fairness at every skill '
        'level</title><style>body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; }'
        " table { border-collapse: collapse; margin: 0.5em 0 1.5em; } td, th { border: 1px solid #ccc; "
        "padding: 3px 8px; text-align: right; } td:first-child, th:first-child { text-align: left; } "
        "img { max-width: 100%; }</style></head><body>\n" + _md_table_html(md)
        + f'\n<img alt="seat edge, length and mixed tables against skill" src="data:image/png;base64,{img}">\n'
        "</body></html>\n", encoding="utf-8")
