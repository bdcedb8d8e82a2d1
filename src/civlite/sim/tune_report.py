"""What the tuner writes: the header of a confirmed ``best-N.toml`` and ``tune.md``."""

from __future__ import annotations

from typing import Any

from .paths import format_value
from .tune_space import Space, show


def _ci_pair(ci: list[float] | None, digits: int) -> str:
    return f" ({ci[0]:+.{digits}f} … {ci[1]:+.{digits}f})" if ci else ""


def seats_text(rec: dict[str, Any]) -> str:
    """Each seat's win rate with its 95% interval, in points rounded to one decimal."""
    return ", ".join(f"{100 * s['win_rate']:.1f}% [{100 * s['ci95'][0]:.1f}–{100 * s['ci95'][1]:.1f}]"
                     for s in rec["seats"])


def _rounds(turns: float, players: int) -> str:
    return f"{turns / players:.1f}"


def _counts(players: list[int] | tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in players) + " players"


def toml_header(rec: dict[str, Any], space: Space) -> str:
    """The comment block of a confirmed variant's TOML: what changed and its confirmed figures."""
    conf = rec["confirmation"]
    games = ", ".join(f"{space.confirm_games(n)} at {n} players" for n in space.players)
    lines = [f"# Found by civlite tune: {show(rec['params'])}",
             f"# {_counts(space.players)}; passed its confirmation on fresh games per line-up ({games}; "
             f"seed {conf['seed']}, which the search never used):"]
    lines += [f"#   {run['players']} players, {', '.join(run['bots'])}: seat win rates (95% CI) {seats_text(run)}; "
              f"median length {run['median_length']:g} turns ({_rounds(run['median_length'], run['players'])} rounds)"
              for run in conf["runs"]]
    if conf.get("ablation_max_points") is not None:
        lines.append(f"#   ablation: no ability's removal moves seat 0 by more than {space.goal.ablation:g} points "
                     f"beyond doubt (largest measured change {conf['ablation_max_points']:.1f} points)")
    lines.append(f"# (the search measured it over {rec['games']} games; those figures are biased by the selection, "
                 "the confirmed ones are not)")
    return "\n".join(lines) + "\n"


def render_md(res: dict[str, Any]) -> str:
    """``tune.md``: the goal, the confirmation (fresh games) and the search, every figure with its interval."""
    conf = res["confirm"]
    counts = res["players"]
    fair = ", ".join(f"{100 / n:.1f}% at {n} players" for n in counts)
    sizes = "; ".join(f"{conf['games'][str(n)]} games at {n} players"
                      + (f" (the goal needs {conf['needed'][str(n)]})"
                         if conf["games"][str(n)] < conf["needed"][str(n)] else "") for n in counts)
    lines = [f"# civlite tune: {_counts(counts)}, bots {', '.join(res['bots'])}", "",
             f"Goal: every seat's win rate within its fair share ({fair}) ± {res['goal']['seat_edge']:g} points"
             + (f"; median length in {res['goal']['length']} turns" if res["goal"]["length"] else "")
             + (f"; no ability's removal moves seat 0 by more than {res['goal']['ablation']:g} points"
                if res["goal"]["ablation"] else "") + ". "
             + ("A variant's loss is that of its worst table size." if len(counts) > 1 else ""), "",
             f"Search: {res['sampler']}, {len(res['trials'])} variants; the best {len(conf['finalists'])} confirmed "
             f"on fresh games (seed {conf['seed']}): {sizes}, under each of "
             + "; ".join(", ".join(lu) for lu in conf["lineups"])
             + f". {res['games_played']} games in all, {res['seconds']:.0f} s. Base values: "
             + ", ".join(f"`{p['path']}` = {format_value(p['base'])}" for p in res["params"]), "",
             "A confirmation passes when every seat's whole 95% interval lies inside the band, at every table "
             "size and skill level. Its games come from a power calculation: each seat's interval half as wide "
             "as the band, so a fair variant passes and one at the band's edge cannot.", ""]
    if any(conf["games"][str(n)] < conf["needed"][str(n)] for n in counts):
        lines += ["**Warning: the confirmation plays fewer games than the goal needs**: even a fair variant "
                  "will most likely fail it.", ""]
    best = sorted((r for r in res["trials"] if "file" in r), key=lambda r: r["file"])
    if best:
        lines += ["**Passed the confirmation** (playable rule sets, ranked by their confirmed loss): "
                  + ", ".join(f"`{r['file']}` (variant {r['trial']}: {show(r['params'])})" for r in best), ""]
    elif res.get("interrupted") and not conf["finalists"]:
        lines += ["**Interrupted before the confirmation: no variant is written as `best-N`.**", ""]
    elif res.get("interrupted"):
        lines += ["**Interrupted during the confirmation: no variant is written as `best-N`.** The search's "
                  "figures below are not evidence of fairness: they are the luckiest of many measurements.", ""]
    else:
        lines += ["**No variant passed the confirmation: none is written as `best-N`.** The search's figures "
                  "below are not evidence of fairness: they are the luckiest of many measurements.", ""]
    lines += ["## Confirmation (fresh games)", "",
              "| variant | changes | players | bots | games | seat win rates (95% CI) | median turns (rounds) | loss "
              "| goal |", "|---|---|---|---|---|---|---|---|---|"]
    for r in res["trials"]:
        c = r.get("confirmation")
        if not c:
            continue
        for run in c["runs"]:
            goal = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in run["goal"].items())
            lines.append(f"| {r['trial']} | {show(r['params'])} | {run['players']} | {', '.join(run['bots'])} | "
                         f"{run['games']} | {seats_text(run)} | {run['median_length']:g} "
                         f"({_rounds(run['median_length'], run['players'])}) | {run['loss']:.2f} | {goal} |")
        verdict = "passed" if c.get("passed") else "interrupted" if c.get("interrupted") else "failed"
        if c.get("ablation_max_points") is not None:
            verdict += (f" (ablation: largest seat-0 change {c['ablation_max_points']:.1f} points; "
                        + ("none surely beyond the goal" if c["ablation_ok"] else
                           "an ability's change is beyond the goal even on its corrected interval") + ")")
        lines.append(f"| {r['trial']} | | | **{verdict}** | | | | | |")
    lines += ["", "## Search (games the finalists were chosen on)", "",
              "| variant | changes | state | players | games | seat win rates (95% CI) | median turns | loss | goal |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(res["trials"], key=lambda r: (r["state"] != "complete", r.get("loss", 1e9))):
        for cell in r.get("cells") or [r]:
            goal = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in cell.get("goal", {}).items())
            lines.append(f"| {r['trial']} | {show(r['params'])} | {r['state']} | {cell.get('players', '')} | "
                         f"{cell.get('games', 0)} | {seats_text(cell) if 'seats' in cell else ''} | "
                         f"{cell.get('median_length', '')} | {cell.get('loss', float('nan')):.2f} | {goal} |")
    lines += ["", "`seat_edge`: every seat within the band and its 95% interval holding the fair share (what the "
              "search ranks by); `seat_edge_strict`: every seat's whole interval inside the band (what the "
              "confirmation requires)."]
    for r in res["trials"]:
        ab = (r.get("confirmation") or {}).get("ablation")
        if ab:
            lines += ["", f"Ablation of variant {r['trial']} at {counts[0]} players (each ability removed, paired on "
                      "the same fresh seeds; change of the first seat's win rate in points, of mean length in "
                      "turns; p adjusted by Holm over the abilities; the corrected interval holds for all the "
                      "abilities at once (Bonferroni), and only a change beyond the goal on it fails the variant):",
                      "", "| ability | seat 0 change (95% CI) | corrected interval | p (Holm) | length change (95% CI) |",
                      "|---|---|---|---|---|"]
            lines += [f"| {a['ability']} | {a['seat0_diff_points']:+.1f}{_ci_pair(a.get('seat0_ci95_points'), 1)} | "
                      f"{_ci_pair(a.get('seat0_ci95_adj_points'), 1).strip(' ()')} | "
                      f"{a['seat0_p_adj']:.3g} | {a['length_diff']:+.2f}{_ci_pair(a.get('length_ci95'), 2)} |"
                      for a in sorted(ab, key=lambda a: -abs(a["seat0_diff_points"]))]
    lines.append("")
    return "\n".join(lines)
