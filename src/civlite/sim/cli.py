"""Bodies of the ``civlite sim|report|compare|sweep`` commands (``civlite.cli`` keeps thin wrappers)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..engine import RuleSet, RuleSetError

Fail = Callable[..., Exception]


def _specs(bots: str) -> tuple[str, ...]:
    from .simulator import split_bots

    return split_bots(bots)


def sim_command(*, bots: str, players: int, games: int, seed: int, rules: RuleSet, workers: int | None,
                backend: str, ray_address: str | None, out: Path, json_out: bool, fail: Fail,
                resume: bool = False) -> None:
    from .simulator import SimConfig, simulate

    try:
        cfg = SimConfig(bots=_specs(bots), players=players, games=games, seed=seed, rules=rules)
    except ValueError as e:
        raise fail(str(e)) from None
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    err = Console(stderr=True)
    try:
        res = simulate(cfg, out=out, workers=workers, backend=backend, ray_address=ray_address,
                       progress=sys.stderr.isatty() or not json_out, resume=resume)
    except (RuntimeError, ValueError) as e:
        raise fail(str(e)) from None
    g = res.summary["games"]
    played = g - res.resumed
    rate = played / res.seconds if res.seconds > 0 else 0.0
    note = " (interrupted: finished games kept)" if res.interrupted else ""
    kept = f" + {res.resumed} resumed" if res.resumed else ""
    err.print(f"{played} games{kept} in {res.seconds:.1f} s ({rate:.1f} games/s){note} -> {out}/", highlight=False)
    if json_out:
        sys.stdout.write(json.dumps(res.summary) + "\n")
    else:
        wins = ", ".join(f"{k}: {v}" for k, v in res.summary["wins"].items())
        err.print(f"wins: {wins}; draws: {res.summary['draws']}; seat wins: {res.summary['seat_wins']}",
                  highlight=False)
    if res.interrupted:
        raise SystemExit(130)


def report_command(run: Path, out: Path | None, *, fail: Fail) -> None:
    from .report import build_report

    if not (run / "summary.json").exists():
        raise fail(f"{run}: no summary.json (is it a directory written by civlite sim?)")
    try:
        a = build_report(run, out)
    except (ValueError, KeyError) as e:
        raise fail(f"{run}: {e}") from None
    con = Console(stderr=True)
    con.print(a["first_player"], highlight=False)
    for b in a["bots"]:
        lo, hi = b["ci95"]
        con.print(f"  {b['bot']}: {100 * b['win_rate']:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%)", highlight=False)
    sys.stdout.write(a["files"]["report.html"] + "\n")


def compare_command(run_a: Path, run_b: Path, out: Path | None, json_out: bool, *, fail: Fail) -> None:
    from .compare import compare_runs, fmt, write_compare

    for r in (run_a, run_b):
        if not (r / "summary.json").exists():
            raise fail(f"{r}: no summary.json (is it a directory written by civlite sim?)")
    res = compare_runs(run_a, run_b)
    if out is not None:
        write_compare(res, out)
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")
        return
    con = Console()
    if res["rules_diff"]:
        con.print("rule-set differences: " + "; ".join(res["rules_diff"]), highlight=False)
    t = Table(title=f"A: {run_a} ({res['a']['games']} games)   B: {run_b} ({res['b']['games']} games)")
    for col in ("metric", "A", "B", "B − A", "p", "significant"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for r in res["rows"]:
        style = "bold yellow" if r["significant"] else None
        t.add_row(r["metric"], fmt(r, "a"), fmt(r, "b"), fmt(r, "diff"), f"{r['p']:.3g}",
                  "yes" if r["significant"] else "", style=style)
    con.print(t)


def sweep_command(*, param: str, bots: str, players: int, games: int, seed: int, rules: RuleSet,
                  workers: int | None, backend: str, out: Path, json_out: bool, fail: Fail) -> None:
    from .sweep import parse_param, sweep

    try:
        name, values = parse_param(param)
        for v in values:
            rules.with_changes(**{name: v})
    except (ValueError, RuleSetError) as e:
        raise fail(str(e)) from None
    specs = _specs(bots)
    if len(specs) == 1 and players > 1:
        specs = specs * 1
    con = Console(stderr=True)

    def on_value(v: int) -> None:
        con.print(f"[bold]{name} = {v}[/]")

    try:
        res: dict[str, Any] = sweep(name, values, specs, players, games, seed, rules, out, workers=workers,
                                    backend=backend, progress=sys.stderr.isatty() or not json_out,
                                    on_value=on_value)
    except ValueError as e:
        raise fail(str(e)) from None
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")
    else:
        con.print(f"sweep written to {out}/sweep.html", highlight=False)
