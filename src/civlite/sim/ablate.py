"""Ablation: what each ability does to the game, and how strong it is.

"Win rate when used" is confounded by when a bot chooses to use an ability. Ablation
changes the rules instead, and plays **the same games** (same seeds, same line-up) again:

* ``mode="off"``: each ability in turn is removed; ``mode="dearer"``: it costs one card
  more. The change against the unchanged rules is the ability's effect on the first seat's
  win rate (the seat edge), on game length and on each bot's win rate. Game ``i`` of the
  changed rules starts from the deal of game ``i`` of the unchanged rules, so the
  comparisons are **paired**: the intervals are those of the game-by-game differences
  (McNemar's exact test for the wins, a paired t-test for the length).
* ``mode="strength"``: how strong the ability is. In game ``i`` one seat (the *focus*
  seat, ``i % players``, so every seat takes it equally) is the only one that may use the
  ability; the same game is played again with the focus seat the only one that may not.
  The **swing** is the focus seat's win rate in the first case minus the second (points),
  paired on the seeds. A seat that may not use an ability never sees it among its legal
  choices; everything else (cards, deck, the opponents' bots) is the same.

Every table tests all abilities at once, so the p-values are corrected over them (Holm by
default, or Benjamini-Hochberg), and an ability counts as significant only after the
correction. Each row is compared with the one unchanged sample, so the rows share its
noise; pairing takes most of it out.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..engine import RuleSet
from .paths import did_you_mean, set_path
from .simulator import SimConfig, run_local, run_ray
from .stats import adjust, paired_binary, paired_mean_diff, paired_t, simultaneous_ci, wilson

MODES = ("off", "dearer", "strength")
CORRECTIONS = ("holm", "fdr_bh")


def ablated(rules: RuleSet, tier: str, letter: str, mode: str) -> RuleSet:
    """``rules`` with one ability removed or one card dearer."""
    if mode == "off":
        return set_path(rules, f"{tier}.{letter}", False, name=f"{rules.name} without {tier}.{letter}")
    ab = rules.to_dict()[tier][letter]
    return set_path(rules, f"{tier}.{letter}.cards", ab["cards"] + 1, name=f"{rules.name} {tier}.{letter} dearer")


def _play(rules: RuleSet, bots: Sequence[str], players: int, games: int, seed: int, workers: int,
          backend: str, restrict: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    """Games 0..games-1 of one rule set, in game order (index ``i`` is game ``i``)."""
    cfg = SimConfig(bots=tuple(bots), players=players, games=games, seed=seed, rules=rules, restrict=restrict)
    idx = list(range(games))
    stream = run_local(cfg, workers, idx) if backend == "local" else run_ray(cfg, workers, None, idx)
    lines = [e for chunk in stream for e in chunk]
    lines.sort(key=lambda e: e["index"])
    return [{"bots": e["bots"], "stats": e["stats"]} for e in lines]


def _uses(lines: Sequence[dict[str, Any]], name: str) -> float:
    return float(sum(acts.count(name) for ln in lines for acts in ln["stats"]["abilities"])) / max(1, len(lines))


def _bot_share(line: dict[str, Any], spec: str) -> float:
    """The share of ``spec``'s seats that won this game (0 or 1 in self-play of one spec)."""
    seats = [s for s, b in enumerate(line["bots"]) if b == spec]
    return float(line["stats"]["winner"] in seats) / len(seats) if seats else 0.0


def _row(name: str, base: Sequence[dict[str, Any]], var: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One ability's paired comparison: game ``i`` of ``var`` against game ``i`` of ``base``."""
    x = [int(ln["stats"]["winner"] == 0) for ln in base]
    y = [int(ln["stats"]["winner"] == 0) for ln in var]
    d, lo, hi, p = paired_binary(x, y)
    p0, plo, phi = wilson(sum(y), len(y))
    ld, llo, lhi, lp = paired_t([ln["stats"]["turns"] for ln in base], [ln["stats"]["turns"] for ln in var])
    bots = {}
    specs = list(dict.fromkeys(b for ln in base for b in ln["bots"]))
    if len(specs) > 1:
        for spec in specs:
            bx = [_bot_share(ln, spec) for ln in base]
            by = [_bot_share(ln, spec) for ln in var]
            bd, blo, bhi = paired_mean_diff(bx, by)
            bots[spec] = {"win_rate": sum(by) / max(1, len(by)), "diff": bd, "ci95": [blo, bhi]}
    return {"ability": name,
            "uses_per_game": {"base": _uses(base, name), "changed": _uses(var, name)},
            "seat0": {"win_rate": p0, "ci95_rate": [plo, phi], "diff": d, "ci95": [lo, hi], "p": p},
            "length": {"mean": sum(ln["stats"]["turns"] for ln in var) / max(1, len(var)), "diff": ld,
                       "ci95": [llo, lhi], "p": lp},
            "bots": bots}


def _strength_row(name: str, only: Sequence[dict[str, Any]], denied: Sequence[dict[str, Any]],
                  players: int) -> dict[str, Any]:
    """The focus seat's win rate when only it may use the ability, and when only it may not."""
    y = [int(ln["stats"]["winner"] == ln["stats"]["focus"]) for ln in only]
    x = [int(ln["stats"]["winner"] == ln["stats"]["focus"]) for ln in denied]
    d, lo, hi, p = paired_binary(x, y)
    po, olo, ohi = wilson(sum(y), len(y))
    pd_, dlo, dhi = wilson(sum(x), len(x))
    focus_uses = sum(ln["stats"]["abilities"][ln["stats"]["focus"]].count(name) for ln in only) / max(1, len(only))
    return {"ability": name, "fair_share": 1 / players,
            "only": {"win_rate": po, "ci95": [olo, ohi]},
            "denied": {"win_rate": pd_, "ci95": [dlo, dhi]},
            "swing": {"diff": d, "ci95": [lo, hi], "p": p},
            "uses_per_game": {"focus_when_only": focus_uses}}


def _correct(rows: list[dict[str, Any]], keys: Sequence[str], method: str) -> None:
    """Adjust each key's p-values over the rows (the abilities); mark what stays significant;
    add ``ci95_adj``, the interval widened for all the rows at once (Bonferroni: each at
    ``1 - 0.05 / rows``), which is what a decision over every ability must read."""
    for key in keys:
        reject, padj = adjust([r[key]["p"] for r in rows], method)
        for r, rej, pa in zip(rows, reject, padj, strict=True):
            r[key]["p_adj"] = pa
            r[key]["significant"] = rej
            lo, hi = simultaneous_ci(r[key]["diff"], r[key]["ci95"], len(rows))
            if key in ("seat0", "swing"):  # a change of a win rate lies within -1 and +1
                lo, hi = max(-1.0, lo), min(1.0, hi)
            r[key]["ci95_adj"] = [lo, hi]


def ablate(rules: RuleSet, bots: Sequence[str], players: int, games: int, seed: int = 1, *, mode: str = "off",
           workers: int = 1, backend: str = "local", only: Sequence[str] | None = None,
           on_ability: Callable[[str], None] | None = None, correction: str = "holm") -> dict[str, Any]:
    """Play the unchanged and each changed rule set on the same seeds; return every figure
    with paired intervals and p-values corrected over the abilities."""
    if mode not in MODES:
        raise ValueError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"--correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    d = rules.to_dict()
    targets = [(tier, letter, ab["name"]) for tier in ("basic", "advanced")
               for letter, ab in d[tier].items() if ab is not False]
    if only:
        wanted = {o.lower() for o in only}
        targets = [t for t in targets if t[2].lower() in wanted or f"{t[0]}.{t[1]}".lower() in wanted]
        missing = wanted - {t[2].lower() for t in targets} - {f"{t[0]}.{t[1]}".lower() for t in targets}
        if missing:
            name = sorted(missing)[0]
            known = [ab["name"] for tier in ("basic", "advanced") for ab in d[tier].values() if ab is not False]
            raise ValueError(f"no ability {name!r} in rule set {rules.name!r}{did_you_mean(name, known)}")
    head = {"rules": rules.name, "mode": mode, "bots": list(bots), "players": players, "games": games,
            "seed": seed, "paired": True, "correction": correction}
    rows = []
    if mode == "strength":
        for tier, letter, name in targets:
            if on_ability:
                on_ability(name)
            path = f"{tier}.{letter}"
            a = _play(rules, bots, players, games, seed, workers, backend, (path, "only"))
            b = _play(rules, bots, players, games, seed, workers, backend, (path, "denied"))
            rows.append({"path": path, **_strength_row(name, a, b, players)})
        _correct(rows, ["swing"], correction)
        return {**head, "rows": rows}
    if on_ability:
        on_ability("unchanged rules")
    base = _play(rules, bots, players, games, seed, workers, backend)
    for tier, letter, name in targets:
        if on_ability:
            on_ability(name)
        var = _play(ablated(rules, tier, letter, mode), bots, players, games, seed, workers, backend)
        rows.append({"path": f"{tier}.{letter}", **_row(name, base, var)})
    _correct(rows, ["seat0", "length"], correction)
    k0 = sum(1 for ln in base if ln["stats"]["winner"] == 0)
    p0, lo, hi = wilson(k0, len(base))
    return {**head, "base": {"seat0": {"win_rate": p0, "ci95": [lo, hi]},
                             "length_mean": sum(ln["stats"]["turns"] for ln in base) / max(1, len(base))},
            "rows": rows}


# -- the chart and the page -----------------------------------------------------------
def chart_data(res: dict[str, Any]) -> list[dict[str, Any]]:
    """What the chart draws, panel by panel: each panel's rows (ability, value, low, high,
    significant), strongest first; the tests check this, not pixels."""
    if res["mode"] == "strength":
        keys = [("swing", "strength: focus seat's win rate, only it may use the ability minus only it may not "
                 "(points)", 100.0)]
    else:
        what = "removed" if res["mode"] == "off" else "one card dearer"
        keys = [("seat0", f"ability {what}: change of seat 0's win rate (points)", 100.0),
                ("length", f"ability {what}: change of mean length (turns)", 1.0)]
    panels = []
    for key, title, scale in keys:
        rows = sorted(res["rows"], key=lambda r: -abs(r[key]["diff"]))
        panels.append({"key": key, "title": title,
                       "rows": [{"ability": r["ability"], "value": scale * r[key]["diff"],
                                 "low": scale * r[key]["ci95"][0], "high": scale * r[key]["ci95"][1],
                                 "significant": bool(r[key]["significant"])} for r in rows]})
    return panels


def chart_png(res: dict[str, Any]) -> bytes:
    """A forest plot per panel: each ability's change with its paired 95% interval; abilities
    significant after the correction in colour, the others grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = chart_data(res)
    n = max(1, len(res["rows"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 1.2 + 0.32 * n), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        rows = panel["rows"][::-1]  # strongest on top
        ys = list(range(len(rows)))
        for y, r in zip(ys, rows, strict=True):
            colour = "#c0392b" if r["significant"] else "#7f8c8d"
            ax.errorbar(r["value"], y, xerr=[[r["value"] - r["low"]], [r["high"] - r["value"]]], fmt="o",
                        color=colour, ecolor=colour, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(ys, [r["ability"] for r in rows])
        ax.set_title(panel["title"], fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(f"{res['rules']}: {res['games']} paired games per rule set, {res['players']} players, "
                 f"{' vs '.join(dict.fromkeys(res['bots']))}; red: significant after {res['correction']}",
                 fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _cell(v: dict[str, Any], scale: float = 100.0, digits: int = 1) -> str:
    sig = " class=sig" if v["significant"] else ""
    return (f"<td{sig}>{scale * v['diff']:+.{digits}f} ({scale * v['ci95'][0]:+.{digits}f}…"
            f"{scale * v['ci95'][1]:+.{digits}f})</td><td>{v['p_adj']:.3g}</td>")


def render_html(res: dict[str, Any], png: bytes | None = None) -> str:
    e = html.escape
    img = f'<p><img alt="ablation chart" src="data:image/png;base64,{base64.b64encode(png).decode()}"></p>' \
        if png else ""
    corr = "Holm" if res["correction"] == "holm" else "Benjamini-Hochberg"
    style = """<style>body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
td:first-child { text-align: left; } .sig { background: #fff3cd; font-weight: bold; }</style>"""
    who = e(" vs ".join(dict.fromkeys(res["bots"])))
    if res["mode"] == "strength":
        rows = [f"<tr><td>{e(r['ability'])} <code>{e(r['path'])}</code></td>"
                f"<td>{100 * r['only']['win_rate']:.1f}% ({100 * r['only']['ci95'][0]:.1f}–"
                f"{100 * r['only']['ci95'][1]:.1f})</td>"
                f"<td>{100 * r['denied']['win_rate']:.1f}% ({100 * r['denied']['ci95'][0]:.1f}–"
                f"{100 * r['denied']['ci95'][1]:.1f})</td>{_cell(r['swing'])}"
                f"<td>{r['uses_per_game']['focus_when_only']:.2f}</td></tr>"
                for r in sorted(res["rows"], key=lambda r: -r["swing"]["diff"])]
        body = f"""<h1>Ability strength in {e(res['rules'])}</h1>
<p>Bots: <b>{who}</b>, {res['players']} players, {res['games']} games per case (the same seeds in both cases).
In game <i>i</i> the focus seat (<i>i</i> mod {res['players']}) is the only one that may use the ability, then the
only one that may not; the fair share is {100 / res['players']:.1f}%. The swing is the difference of the focus
seat's win rates (points), with the paired 95% interval; p adjusted by {corr} over the abilities; highlighted:
significant after the correction.</p>{img}
<table><tr><th>ability</th><th>focus seat wins, only it may use it</th><th>focus seat wins, only it may not</th>
<th>swing (95% CI)</th><th>p adj</th><th>uses per game by the focus seat</th></tr>{''.join(rows)}</table>"""
    else:
        what = "removed" if res["mode"] == "off" else "one card dearer"
        bots = list(res["rows"][0]["bots"]) if res["rows"] else []
        heads = "".join(f"<th>{e(b)} win rate change (95% CI)</th>" for b in bots)
        rows = []
        for r in sorted(res["rows"], key=lambda r: -abs(r["seat0"]["diff"])):
            cells = "".join(f"<td>{_pts(b['diff'])} ({_pts(b['ci95'][0])}…{_pts(b['ci95'][1])})</td>"
                            for b in r["bots"].values())
            rows.append(f"<tr><td>{e(r['ability'])} <code>{e(r['path'])}</code></td>{_cell(r['seat0'])}"
                        f"{_cell(r['length'], 1.0, 2)}{cells}</tr>")
        b = res["base"]
        body = f"""<h1>Ablation of {e(res['rules'])}: each ability {what}</h1>
<p>Bots: <b>{who}</b>, {res['players']} players, {res['games']} games per rule set (the same seeds for every rule
set). Unchanged rules: the first seat wins {100 * b['seat0']['win_rate']:.1f}% of games
(95% CI {100 * b['seat0']['ci95'][0]:.1f}–{100 * b['seat0']['ci95'][1]:.1f}%); games last {b['length_mean']:.1f}
turns on average. Changes are in points (win rates) and turns (length), paired game by game with 95% intervals
(McNemar's exact test for wins, a paired t-test for length); p adjusted by {corr} over the abilities;
highlighted: significant after the correction.</p>{img}
<table><tr><th>ability</th><th>seat 0 win rate change</th><th>p adj</th><th>mean length change</th><th>p adj</th>
{heads}</tr>{''.join(rows)}</table>"""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite ablation</title>
{style}</head><body>{body}</body></html>
"""


def write_ablation(res: dict[str, Any], out: str | Path) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    png = chart_png(res) if res["rows"] else None
    if png:
        (d / "ablation.png").write_bytes(png)
    (d / "ablation.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    (d / "ablation.html").write_text(render_html(res, png), encoding="utf-8")
