"""Ablation: the causal strength of each ability.

"Win rate when used" is confounded by when a bot chooses to use an ability. Ablation
changes the rules instead: each ability in turn is removed (``mode="off"``) or made one
card dearer (``mode="dearer"``), and the same games (same seeds, same line-up) are
played again. The change against the unchanged rules, with 95% intervals, is the
ability's effect on the first seat's win rate (the seat edge), on game length, and on
each bot's win rate (when the line-up mixes bots).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..engine import RuleSet
from .compare import _bot_counts
from .paths import set_path
from .simulator import SimConfig, run_local, run_ray
from .stats import diff_ci, mean_diff_ci, wilson

MODES = ("off", "dearer")


def ablated(rules: RuleSet, tier: str, letter: str, mode: str) -> RuleSet:
    """``rules`` with one ability removed or one card dearer."""
    if mode == "off":
        return set_path(rules, f"{tier}.{letter}", False, name=f"{rules.name} without {tier}.{letter}")
    ab = rules.to_dict()[tier][letter]
    return set_path(rules, f"{tier}.{letter}.cards", ab["cards"] + 1, name=f"{rules.name} {tier}.{letter} dearer")


def _play(rules: RuleSet, bots: Sequence[str], players: int, games: int, seed: int, workers: int,
          backend: str) -> list[dict[str, Any]]:
    cfg = SimConfig(bots=tuple(bots), players=players, games=games, seed=seed, rules=rules)
    idx = list(range(games))
    stream = run_local(cfg, workers, idx) if backend == "local" else run_ray(cfg, workers, None, idx)
    lines = [e for chunk in stream for e in chunk]
    lines.sort(key=lambda e: e["index"])
    return [{"bots": e["bots"], "stats": e["stats"]} for e in lines]


def _figures(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    decided = [ln for ln in lines if ln["stats"]["winner"] is not None]
    seat0 = sum(1 for ln in decided if ln["stats"]["winner"] == 0)
    inst, wins = _bot_counts(lines)
    uses: dict[str, int] = {}
    for ln in lines:
        for acts in ln["stats"]["abilities"]:
            for a in acts:
                uses[a] = uses.get(a, 0) + 1
    return {"decided": len(decided), "seat0_wins": seat0, "turns": [ln["stats"]["turns"] for ln in lines],
            "bot_seats": inst, "bot_wins": wins, "uses": uses, "games": len(lines)}


def _row(name: str, base: dict[str, Any], var: dict[str, Any]) -> dict[str, Any]:
    d, lo, hi = diff_ci(base["seat0_wins"], base["decided"], var["seat0_wins"], var["decided"])
    p0, plo, phi = wilson(var["seat0_wins"], var["decided"])
    ld, llo, lhi, lp = mean_diff_ci(base["turns"], var["turns"])
    bots = {}
    if len(base["bot_seats"]) > 1:
        for spec, n in base["bot_seats"].items():
            m = var["bot_seats"].get(spec, 0)
            bd, blo, bhi = diff_ci(base["bot_wins"].get(spec, 0), n, var["bot_wins"].get(spec, 0), m)
            bots[spec] = {"win_rate": var["bot_wins"].get(spec, 0) / m if m else 0.0, "diff": bd, "ci95": [blo, bhi]}
    return {"ability": name,
            "uses_per_game": {"base": base["uses"].get(name, 0) / max(1, base["games"]),
                              "changed": var["uses"].get(name, 0) / max(1, var["games"])},
            "seat0": {"win_rate": p0, "ci95_rate": [plo, phi], "diff": d, "ci95": [lo, hi],
                      "significant": lo > 0 or hi < 0},
            "length": {"mean": sum(var["turns"]) / max(1, len(var["turns"])), "diff": ld, "ci95": [llo, lhi], "p": lp,
                       "significant": llo > 0 or lhi < 0},
            "bots": bots}


def ablate(rules: RuleSet, bots: Sequence[str], players: int, games: int, seed: int = 1, *, mode: str = "off",
           workers: int = 1, backend: str = "local", only: Sequence[str] | None = None,
           on_ability: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play the default and each ablated rule set (same seeds); return every figure with intervals."""
    if mode not in MODES:
        raise ValueError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    d = rules.to_dict()
    targets = [(tier, letter, ab["name"]) for tier in ("basic", "advanced")
               for letter, ab in d[tier].items() if ab is not False]
    if only:
        wanted = {o.lower() for o in only}
        targets = [t for t in targets if t[2].lower() in wanted or f"{t[0]}.{t[1]}".lower() in wanted]
        missing = wanted - {t[2].lower() for t in targets} - {f"{t[0]}.{t[1]}".lower() for t in targets}
        if missing:
            raise ValueError(f"no ability {sorted(missing)[0]!r} in rule set {rules.name!r}")
    if on_ability:
        on_ability("unchanged rules")
    base_lines = _play(rules, bots, players, games, seed, workers, backend)
    base = _figures(base_lines)
    p0, lo, hi = wilson(base["seat0_wins"], base["decided"])
    rows = []
    for tier, letter, name in targets:
        if on_ability:
            on_ability(name)
        var = _figures(_play(ablated(rules, tier, letter, mode), bots, players, games, seed, workers, backend))
        rows.append({"path": f"{tier}.{letter}", **_row(name, base, var)})
    return {"rules": rules.name, "mode": mode, "bots": list(bots), "players": players, "games": games, "seed": seed,
            "base": {"seat0": {"win_rate": p0, "ci95": [lo, hi]},
                     "length_mean": sum(base["turns"]) / max(1, len(base["turns"]))},
            "rows": rows}


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def render_html(res: dict[str, Any]) -> str:
    e = html.escape
    what = "removed" if res["mode"] == "off" else "one card dearer"
    bots = list(res["rows"][0]["bots"]) if res["rows"] else []
    heads = "".join(f"<th>{e(b)} win rate change (95% CI)</th>" for b in bots)
    rows = []
    for r in sorted(res["rows"], key=lambda r: -abs(r["seat0"]["diff"])):
        s, ln = r["seat0"], r["length"]
        cells = "".join(f"<td>{_pts(b['diff'])} ({_pts(b['ci95'][0])}…{_pts(b['ci95'][1])})</td>"
                        for b in r["bots"].values())
        rows.append(f"<tr><td>{e(r['ability'])} <code>{e(r['path'])}</code></td>"
                    f"<td{' class=sig' if s['significant'] else ''}>{_pts(s['diff'])} "
                    f"({_pts(s['ci95'][0])}…{_pts(s['ci95'][1])})</td>"
                    f"<td{' class=sig' if ln['significant'] else ''}>{ln['diff']:+.2f} "
                    f"({ln['ci95'][0]:+.2f}…{ln['ci95'][1]:+.2f})</td>{cells}</tr>")
    b = res["base"]
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite ablation</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
td:first-child {{ text-align: left; }} .sig {{ background: #fff3cd; font-weight: bold; }}</style></head><body>
<h1>Ablation of {e(res['rules'])}: each ability {what}</h1>
<p>Bots: <b>{e(' vs '.join(dict.fromkeys(res['bots'])))}</b>, {res['players']} players, {res['games']} games per rule
set (the same seeds for every rule set). Unchanged rules: the first seat wins {100 * b['seat0']['win_rate']:.1f}%
(95% CI {100 * b['seat0']['ci95'][0]:.1f}–{100 * b['seat0']['ci95'][1]:.1f}%); games last {b['length_mean']:.1f}
turns on average. Changes are in points (win rates) and turns (length), with 95% intervals (Newcombe for rates,
Welch for means); highlighted ones exclude zero.</p>
<table><tr><th>ability</th><th>first-seat win rate change</th><th>mean length change</th>{heads}</tr>
{''.join(rows)}</table></body></html>
"""


def write_ablation(res: dict[str, Any], out: str | Path) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "ablation.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    (d / "ablation.html").write_text(render_html(res), encoding="utf-8")
