"""The balance report of a simulation run: numbers (``analyze``), charts and one HTML page.

``build_report(run_dir)`` writes into the run directory (or ``out``):
``report.html`` (self-contained: the charts are embedded), the charts as PNGs
(``winrates.png``, ``turns.png``, ``ct_race.png``, ``abilities.png``,
``melds.png``) and ``report.json`` (every number of the page).
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .charts import ACCENT, colour, data_limits, int_bins, integer_ticks, legend_outside, rounds_axis
from .simulator import load_run
from .stats import binomial_test, games_to_detect, quantile, tally_abilities, wilson

PNGS = ("winrates.png", "turns.png", "ct_race.png", "abilities.png", "melds.png")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def lineup_text(bots: Sequence[str]) -> str:
    """Which bots played: ``"heuristic (all 4 seats)"`` or ``"heuristic vs random"``."""
    specs = list(dict.fromkeys(bots))
    if not specs:
        return "?"
    if len(specs) == 1:
        return f"{specs[0]} (self-play, all {len(bots)} seats)"
    return " vs ".join(f"{s} ×{list(bots).count(s)}" if list(bots).count(s) > 1 else s for s in specs) + \
        " (seats rotated)"


def analyze(summary: dict[str, Any], lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every number of the report, from a summary and the game lines."""
    n = int(summary["players"])
    g = len(lines)
    draws = sum(1 for ln in lines if ln["stats"]["winner"] is None)
    decided = g - draws
    # bots: per seat-instance win rate, against the fair share 1/n
    instances: dict[str, int] = {}
    wins: dict[str, int] = {}
    for ln in lines:
        for spec in ln["bots"]:
            instances[spec] = instances.get(spec, 0) + 1
        w = ln["stats"]["winner"]
        if w is not None:
            spec = ln["bots"][w]
            wins[spec] = wins.get(spec, 0) + 1
    bots = []
    for spec, inst in instances.items():
        k = wins.get(spec, 0)
        p, lo, hi = wilson(k, inst)
        bots.append({"bot": spec, "wins": k, "seats_played": inst, "games": g,
                     "win_rate": p, "ci95": [lo, hi], "fair_share": 1.0 / n,
                     "significant": lo > 1.0 / n or hi < 1.0 / n})
    # seats: share of decided games
    seat_wins = [0] * n
    for ln in lines:
        w = ln["stats"]["winner"]
        if w is not None:
            seat_wins[w] += 1
    seats = []
    for s in range(n):
        p, lo, hi = wilson(seat_wins[s], decided)
        seats.append({"seat": s, "wins": seat_wins[s], "win_rate": p, "ci95": [lo, hi]})
    fair = 1.0 / n
    if decided == 0:
        fpa = "No game was decided, so the first-player advantage cannot be measured."
    else:
        p0, lo, hi = wilson(seat_wins[0], decided)
        diff = p0 - fair
        where = (f"The first player (seat 0) wins {_pct(p0)} of decided games "
                 f"(95% CI {_pct(lo)}–{_pct(hi)}), against a fair share of {_pct(fair)}")
        if lo > fair:
            fpa = where + f": a significant first-player advantage of {100 * diff:+.1f} points."
        elif hi < fair:
            fpa = where + f": a significant first-player disadvantage of {100 * diff:+.1f} points."
        else:
            fpa = where + f": no significant first-player advantage at this sample size ({decided} games)."
        fpa += (f" Exact binomial test against {_pct(fair)}: p = {binomial_test(seat_wins[0], decided, fair):.3g}."
                f" Detecting an edge of 2 points takes about {games_to_detect(2, fair)} games, of 1 point about "
                f"{games_to_detect(1, fair)} (80% power).")
    # game length
    turns = sorted(int(ln["stats"]["turns"]) for ln in lines)
    length = {"mean": sum(turns) / g if g else 0.0, "p10": quantile(turns, 0.1), "p50": quantile(turns, 0.5),
              "p90": quantile(turns, 0.9), "min": turns[0] if turns else 0, "max": turns[-1] if turns else 0}
    # CT race: CT at the start of turn t (the final CT carried after the end), per bot, per seat and
    # for the winner against the losers (decided games)
    horizon = int(quantile(turns, 0.95)) + 2 if turns else 0
    per_bot: dict[str, list[list[int]]] = {spec: [[] for _ in range(horizon)] for spec in instances}
    per_seat: dict[str, list[list[int]]] = {f"seat {s}": [[] for _ in range(horizon)] for s in range(n)}
    outcome: dict[str, list[list[int]]] = {k: [[] for _ in range(horizon)] for k in ("winner", "losers")}
    for ln in lines:
        cts = ln["stats"]["ct"]
        w = ln["stats"]["winner"]
        last = len(cts) - 1
        for s, spec in enumerate(ln["bots"]):
            for t in range(horizon):
                v = cts[min(t, last)][s]
                per_bot[spec][t].append(v)
                per_seat[f"seat {s}"][t].append(v)
                if w is not None:
                    outcome["winner" if s == w else "losers"][t].append(v)
    race = _bands(per_bot)
    race_seats = _bands(per_seat)
    race_outcome = _bands(outcome)
    # abilities: activations per game, win rate of the seats that used it (>= once)
    names = list(summary.get("abilities", {}))
    used, users, user_wins = tally_abilities(lines, names)
    abilities = []
    for a in used:
        p, lo, hi = wilson(user_wins.get(a, 0), users.get(a, 0))
        abilities.append({"ability": a, "used": used[a], "per_game": used[a] / g if g else 0.0,
                          "seats_using": users.get(a, 0), "win_rate_when_used": p if users.get(a) else None,
                          "ci95": [lo, hi]})
    # melds
    meld_turns = sorted(t for ln in lines for _, t in ln["stats"]["melds"])
    first = sorted(min(t for _, t in ln["stats"]["melds"]) for ln in lines if ln["stats"]["melds"])
    melds = {"per_game": len(meld_turns) / g if g else 0.0, "turn_p50": quantile(meld_turns, 0.5),
             "first_meld_p50": quantile(first, 0.5), "games_without_meld": g - len(first),
             "turns": meld_turns}
    return {"games": g, "players": n, "draws": draws, "lineup": lineup_text(summary.get("bots", [])),
            "bots": bots, "seats": seats,
            "first_player": fpa, "length": length, "turns": turns, "ct_race": race, "ct_race_seats": race_seats,
            "ct_race_outcome": race_outcome,
            "abilities": abilities, "melds": melds, "seed": summary.get("seed"),
            "rules": summary.get("rules", {}).get("name", "?")}


def _bands(series: dict[str, list[list[int]]]) -> dict[str, dict[str, list[float]]]:
    """Median and interquartile range of each series, turn by turn."""
    out: dict[str, dict[str, list[float]]] = {}
    for key, cols in series.items():
        med: list[float] = []
        q1: list[float] = []
        q3: list[float] = []
        for values in cols:
            values.sort()
            med.append(quantile(values, 0.5))
            q1.append(quantile(values, 0.25))
            q3.append(quantile(values, 0.75))
        out[key] = {"median": med, "q25": q1, "q75": q3}
    return out


def _bar_width(edges: Sequence[float]) -> str:
    """What one bar of a whole-number histogram holds: ``turn`` or ``2 turns``."""
    w = round(edges[1] - edges[0]) if len(edges) > 1 else 1
    return "turn (one bar each)" if w == 1 else f"{w} turns (one bar each)"


def _plots(a: dict[str, Any], out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files: dict[str, Path] = {}
    fair = 1.0 / a["players"]

    # win rates: seats (and bots, when more than one bot played: in self-play every bot's rate is the
    # fair share by construction, a constant panel), with 95% CIs
    panels = [(a["seats"], "seat", "each seat's share of the decided games (95% CI)")]
    if len(a["bots"]) > 1:
        panels.insert(0, (a["bots"], "bot", "each bot's win rate per seat it played (95% CI)"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels) + 1.5, 3.6), squeeze=False)
    for ax, (rows, key, title) in zip(axes[0], panels, strict=True):
        labels = [f"seat {r[key]}" if key == "seat" else str(r[key]) for r in rows]
        ps = [100 * r["win_rate"] for r in rows]
        lo = [100 * r["ci95"][0] for r in rows]
        hi = [100 * r["ci95"][1] for r in rows]
        err = [[max(0.0, p - x) for p, x in zip(ps, lo, strict=True)], [max(0.0, x - p) for p, x in zip(ps, hi, strict=True)]]
        ax.errorbar(range(len(rows)), ps, yerr=err, fmt="o", ms=6, capsize=5, color=colour(0), label="win rate")
        ax.axhline(100 * fair, color=ACCENT, ls="--", lw=1, label=f"fair share {100 * fair:.1f}%")
        ax.set_xticks(range(len(rows)), labels, rotation=15 if key == "bot" else 0, fontsize=8)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.set_ylim(*data_limits(lo + hi, include=[100 * fair]))  # the data's range, not 0-100: 22% vs 12.5% shows
        ax.set_ylabel("win rate (%)")
        ax.set_title(title, fontsize=10)
        legend_outside(ax)
    fig.tight_layout()
    files["winrates.png"] = out / "winrates.png"
    fig.savefig(files["winrates.png"], dpi=90)
    plt.close(fig)

    n = a["players"]
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    turns = a["turns"]
    bins = int_bins(turns) if turns else [0.0, 1.0]
    if turns:
        ax.hist(turns, bins=bins, color=colour(0))
    ax.axvline(a["length"]["p50"], color=ACCENT, ls="--", lw=1,
               label=f"median {a['length']['p50']:g} turns\n({a['length']['p50'] / n:.1f} rounds)")
    ax.set_xlabel("turns (extra turns counted)")
    ax.set_ylabel("games")
    integer_ticks(ax, "x")
    integer_ticks(ax, "y")
    rounds_axis(ax, n)
    ax.set_title(f"game length: games per {_bar_width(bins)}", fontsize=10)
    legend_outside(ax)
    fig.tight_layout()
    files["turns.png"] = out / "turns.png"
    fig.savefig(files["turns.png"], dpi=90)
    plt.close(fig)

    races = [(a["ct_race_seats"], "per seat"), (a["ct_race_outcome"], "winner against losers (decided games)")]
    if len(a["ct_race"]) > 1:  # one bot: the per-bot line is every seat pooled
        races.append((a["ct_race"], "per bot"))
    fig, axes = plt.subplots(1, len(races), figsize=(6.2 * len(races), 3.9), squeeze=False)
    victory = a.get("victory_ct")
    for ax, (race, what) in zip(axes[0], races, strict=True):
        bands = len(race) < 4  # at 4 seats and more, overlapping bands hide each other: lines only
        for i, (key, r) in enumerate(race.items()):
            xs = list(range(len(r["median"])))
            ax.plot(xs, r["median"], color=colour(i), lw=1.6, label=f"{key}")
            if bands:
                ax.fill_between(xs, r["q25"], r["q75"], alpha=0.18, color=colour(i))
        if victory:
            ax.axhline(victory, color="grey", ls=":", lw=1, label=f"victory {victory} CT")
        ax.set_xlabel("turn")
        ax.set_ylabel("CT")
        integer_ticks(ax, "x")
        integer_ticks(ax, "y")
        rounds_axis(ax, n)
        ax.set_title(f"CT race {what}: median" + (" and interquartile range" if bands else " CT per turn"),
                     fontsize=9)
        legend_outside(ax, fontsize=7)
    fig.tight_layout()
    files["ct_race.png"] = out / "ct_race.png"
    fig.savefig(files["ct_race.png"], dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ab = a["abilities"]
    names = [r["ability"] for r in ab]
    axes[0].barh(range(len(ab)), [r["per_game"] for r in ab], color=colour(0))
    axes[0].set_yticks(range(len(ab)), names, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_title("activations per game (all seats)", fontsize=10)
    wr = [r["win_rate_when_used"] or 0.0 for r in ab]
    err = [[max(0.0, w - r["ci95"][0]) if r["win_rate_when_used"] is not None else 0.0 for w, r in zip(wr, ab, strict=True)],
           [max(0.0, r["ci95"][1] - w) if r["win_rate_when_used"] is not None else 0.0 for w, r in zip(wr, ab, strict=True)]]
    axes[1].errorbar([100 * w for w in wr], range(len(ab)), xerr=[[100 * e for e in err[0]], [100 * e for e in err[1]]],
                     fmt="o", capsize=3, color=colour(3), label="seats that used it")
    axes[1].axvline(100 * fair, color=ACCENT, ls="--", lw=1, label=f"fair share {100 * fair:.1f}%")
    axes[1].set_yticks(range(len(ab)), names, fontsize=8)
    axes[1].invert_yaxis()
    axes[1].set_xlim(*data_limits([100 * (w - e) for w, e in zip(wr, err[0], strict=True)]
                                  + [100 * (w + e) for w, e in zip(wr, err[1], strict=True)], include=[100 * fair]))
    axes[1].set_xlabel("win rate (%)")
    axes[1].set_title("win rate of seats that used it at least once (95% CI):\nnot its strength; "
                      "winning seats use more (see civlite ablate)", fontsize=9)
    legend_outside(axes[1])
    fig.tight_layout()
    files["abilities.png"] = out / "abilities.png"
    fig.savefig(files["abilities.png"], dpi=90)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    mt = a["melds"]["turns"]
    mbins = int_bins(mt) if mt else [0.0, 1.0]
    if mt:
        ax.hist(mt, bins=mbins, color=colour(1))
    ax.set_xlabel("turn of the meld")
    ax.set_ylabel("melds")
    integer_ticks(ax, "x")
    integer_ticks(ax, "y")
    rounds_axis(ax, n)
    ax.set_title(f"meld timing: melds per {_bar_width(mbins)} ({a['melds']['per_game']:.2f} melds a game)",
                 fontsize=10)
    fig.tight_layout()
    files["melds.png"] = out / "melds.png"
    fig.savefig(files["melds.png"], dpi=90)
    plt.close(fig)
    return files


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _ci(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{_pct(lo)}–{_pct(hi)}"


def render_html(a: dict[str, Any], files: dict[str, Path], title: str) -> str:
    e = html.escape
    rows_b = "".join(
        f"<tr><td>{e(r['bot'])}</td><td>{r['wins']}</td><td>{r['seats_played']}</td><td>{_pct(r['win_rate'])}</td>"
        f"<td>{_ci(r)}</td><td>{_pct(r['fair_share'])}</td><td>{'yes' if r['significant'] else 'no'}</td></tr>"
        for r in a["bots"])
    rows_s = "".join(
        f"<tr><td>{r['seat']}</td><td>{r['wins']}</td><td>{_pct(r['win_rate'])}</td><td>{_ci(r)}</td></tr>"
        for r in a["seats"])
    rows_a = "".join(
        f"<tr><td>{e(r['ability'])}</td><td>{r['used']}</td><td>{r['per_game']:.2f}</td><td>{r['seats_using']}</td>"
        f"<td>{_pct(r['win_rate_when_used']) if r['win_rate_when_used'] is not None else '–'}</td>"
        f"<td>{_ci(r) if r['win_rate_when_used'] is not None else '–'}</td></tr>"
        for r in a["abilities"])
    ln = a["length"]
    m = a["melds"]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
.lead {{ font-size: 1.1em; background: #f4f6fa; padding: 0.6em 1em; border-left: 4px solid #4c78a8; }}
img {{ max-width: 100%; }}
</style></head><body>
<h1>{e(title)}</h1>
<p>Bots: <b>{e(a['lineup'])}</b>. The figures measure the game as these bots play it: a bot that is easy
to exploit can make a rule look stronger or weaker than it is for people.</p>
<p>{a['games']} games, {a['players']} players, rule set <b>{e(str(a['rules']))}</b>, seed {e(str(a['seed']))};
{a['draws']} draws (turn limit). Seats were rotated so every bot played every seat equally.
Intervals are 95% Wilson score intervals.</p>
<p class="lead">{e(a['first_player'])}</p>
<h2>Win rate per bot</h2>
<table><tr><th>bot</th><th>wins</th><th>seats played</th><th>win rate</th><th>95% CI</th><th>fair share</th><th>differs from fair?</th></tr>{rows_b}</table>
<h2>Win rate per seat</h2>
<table><tr><th>seat</th><th>wins</th><th>win rate (decided games)</th><th>95% CI</th></tr>{rows_s}</table>
{_img(files['winrates.png'], 'win rates')}
<h2>Game length</h2>
<p>Mean {ln['mean']:.1f} turns ({ln['mean'] / a['players']:.1f} rounds); median {ln['p50']:g} turns
({ln['p50'] / a['players']:.1f} rounds); 10%–90% of games last {ln['p10']:.0f}–{ln['p90']:.0f} turns
({ln['p10'] / a['players']:.1f}–{ln['p90'] / a['players']:.1f} rounds; shortest {ln['min']}, longest {ln['max']} turns).
A round is one turn per seat; extra turns count as turns.</p>
{_img(files['turns.png'], 'game length histogram')}
<h2>CT race</h2>
<p>CT at the start of each turn: per seat, and for the eventual winner against the losers (per bot too when
several bots played).</p>
{_img(files['ct_race.png'], 'CT over turns')}
<h2>Abilities</h2>
<p>"Win rate when used": the share of seats that activated the ability at least once in a game and won that game.
Compare it with the fair share; an ability far above it may be too strong (or used mostly by the stronger bot).</p>
<table><tr><th>ability</th><th>activations</th><th>per game</th><th>seats using</th><th>win rate when used</th><th>95% CI</th></tr>{rows_a}</table>
{_img(files['abilities.png'], 'ability usage and win rates')}
<h2>Melds</h2>
<p>{m['per_game']:.2f} melds per game; the median meld is played on turn {m['turn_p50']:.0f}, a game's first meld on
turn {m['first_meld_p50']:.0f}; {m['games_without_meld']} games had no meld.</p>
{_img(files['melds.png'], 'meld timing')}
</body></html>
"""


def build_report(run: str | Path, out: str | Path | None = None) -> dict[str, Any]:
    """Write report.html, the PNGs and report.json for the run directory ``run``."""
    summary, lines = load_run(run, light=True)
    if not lines:
        raise ValueError(f"{run}: no games in games.jsonl")
    od = Path(out) if out is not None else Path(run)
    od.mkdir(parents=True, exist_ok=True)
    a = analyze(summary, lines)
    a["victory_ct"] = summary.get("rules", {}).get("victory_ct")
    files = _plots(a, od)
    bots = " vs ".join(dict.fromkeys(summary.get("bots", [])))
    title = f"Civ Lite balance report: {bots}, {a['players']} players"
    (od / "report.html").write_text(render_html(a, files, title), encoding="utf-8")
    slim = {k: v for k, v in a.items() if k not in ("turns",)}
    slim["melds"] = {k: v for k, v in a["melds"].items() if k != "turns"}
    (od / "report.json").write_text(json.dumps(slim, indent=1) + "\n", encoding="utf-8")
    a["files"] = {name: str(p) for name, p in files.items()} | {"report.html": str(od / "report.html")}
    return a
