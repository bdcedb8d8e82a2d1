"""Two balance reports cell by cell (``civlite compare`` on two ``civlite balance`` outputs): for
every table size and skill level that both hold, each seat's win rate in A and in B, the
change with its Newcombe interval and a two-proportion test, corrected over every seat of
every cell (Holm by default), and each cell's verdict in A and in B."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .compare import _prop_row, correct
from .matrix import cell_of


def is_balance_dir(d: Path) -> bool:
    return (d / "matrix.json").exists() or (d / "balance.json").exists()


def load_cells(d: Path, edge: float | None = None) -> tuple[dict[tuple[int, str], dict[str, Any]], float, str]:
    """A balance report's cells by (players, level), its goal and its rule set's name."""
    if (d / "matrix.json").exists():
        doc = json.loads((d / "matrix.json").read_text(encoding="utf-8"))
        e = edge if edge is not None else float(doc["edge"])
        cells = [cell_of_matrix(c, e) for c in doc["cells"]]
    else:
        doc = json.loads((d / "balance.json").read_text(encoding="utf-8"))
        e = edge if edge is not None else 1.5
        cells = [cell_of(lv, doc["players"], e) for lv in doc["levels"]]
    return {(c["players"], c["bot"]): c for c in cells}, e, str(doc["rules"])


def cell_of_matrix(c: dict[str, Any], edge: float) -> dict[str, Any]:
    from .matrix import verdict

    return {**c, "verdict": verdict(c["seats"], c["players"], edge)}


def compare_balance(a: Path, b: Path, correction: str = "holm", edge: float | None = None) -> dict[str, Any]:
    """Every seat of every cell both reports hold, A against B."""
    ca, ea, ra = load_cells(a, edge)
    cb, _, rb = load_cells(b, ea)
    shared = [k for k in ca if k in cb]
    if not shared:
        raise ValueError(f"{a} and {b} share no table size and skill level")
    rows = []
    for n, bot in sorted(shared):
        x, y = ca[(n, bot)], cb[(n, bot)]
        dx, dy = x["games"] - x["draws"], y["games"] - y["draws"]
        for s in range(n):
            row = _prop_row(f"{n}p {bot} seat {s}", int(x["seats"][s]["wins"]), dx, int(y["seats"][s]["wins"]), dy)
            row.update(players=n, bot=bot, seat=s, fair_share=1 / n)
            rows.append(row)
    correct(rows, correction)
    cells = [{"players": n, "bot": bot, "verdict_a": ca[(n, bot)]["verdict"], "verdict_b": cb[(n, bot)]["verdict"],
              "worst_a": ca[(n, bot)]["worst_points"], "worst_b": cb[(n, bot)]["worst_points"]}
             for n, bot in sorted(shared)]
    return {"a": {"dir": str(a), "rules": ra}, "b": {"dir": str(b), "rules": rb}, "edge": ea,
            "correction": correction, "cells": cells, "rows": rows,
            "only_a": [list(k) for k in ca if k not in cb], "only_b": [list(k) for k in cb if k not in ca]}


def compare_balance_md(res: dict[str, Any]) -> str:
    """The comparison in Markdown: verdicts per cell, then every seat."""
    out = [f"# {res['a']['rules']} (A) against {res['b']['rules']} (B), cell by cell", "",
           f"Verdicts against every seat within its fair share ± {res['edge']:g} points; seat changes with 95% "
           f"Newcombe intervals, p corrected by {res['correction']} over all {len(res['rows'])} seats.", "",
           "| players | level | A | B |", "|---|---|---|---|"]
    out += [f"| {c['players']} | {c['bot']} | {c['verdict_a']} ({c['worst_a']:+.1f}) | "
            f"{c['verdict_b']} ({c['worst_b']:+.1f}) |" for c in res["cells"]]
    out += ["", "| players | level | seat | A | B | B − A (95% CI) | p adj |", "|---|---|---|---|---|---|---|"]
    out += [f"| {r['players']} | {r['bot']} | {r['seat']} | {100 * r['a']:.1f}% | {100 * r['b']:.1f}% | "
            f"{100 * r['diff']:+.1f} ({100 * r['ci95'][0]:+.1f} to {100 * r['ci95'][1]:+.1f}) | {r['p_adj']:.3g}"
            f"{' *' if r['significant'] else ''} |" for r in res["rows"]]
    return "\n".join(out) + "\n"
