"""The body of ``civlite review RECORD --seat N`` (``civlite.cli`` keeps a thin wrapper)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .game import GameReview, load_record, review_record
from .rating import MARKS, ReviewError, check_budget

Fail = Callable[..., Exception]

#: eight heights of a text sparkline, lowest first
BARS = "▁▂▃▄▅▆▇█"
#: the mark's colour on a terminal
MARK_STYLE = {"best": "green", "good": "cyan", "inaccuracy": "yellow", "mistake": "dark_orange",
              "blunder": "bold red"}
#: the mark's sign beside a decision (chess's annotation symbols)
MARK_SIGN = {"best": "", "good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def sparkline(values: Sequence[float]) -> str:
    """Win probabilities (0..1) as one line of block characters."""
    return "".join(BARS[min(len(BARS) - 1, max(0, int(v * len(BARS))))] for v in values)


def _action_text(action: dict[str, object]) -> str:
    do = str(action.get("do"))
    cards = action.get("cards")
    card = action.get("card")
    text = do
    if isinstance(cards, list) and cards:
        text += " " + ", ".join(str(c) for c in cards)
    elif card:
        text += f" {card}"
    if action.get("target") is not None:
        text += f" -> seat {action['target']}"
    return text


def review_table(review: GameReview) -> Table:
    """Every decision: turn, kind, what was chosen, its mark and loss, the best option, the
    seat's chance of winning after it."""
    name = review.players[review.seat] if review.seat < len(review.players) else f"seat {review.seat}"
    table = Table(title=f"Review of {name} (seat {review.seat}), budget {review.budget}, seed {review.seed}")
    for col in ("#", "turn", "decision", "chosen", "mark", "loss", "best", "win"):
        table.add_column(col, justify="right" if col in ("#", "turn", "loss", "win") else "left")
    for d in review.decisions:
        best = d.rating.best
        shown = "forced" if d.forced else f"[{MARK_STYLE[d.mark]}]{d.mark}{MARK_SIGN[d.mark]}[/]"
        table.add_row(
            str(d.index), str(d.rating.turn), d.rating.kind.replace("_", " "),
            d.rating.options[d.chosen_index].label, shown, "" if d.forced else f"{d.loss:.2f}",
            "" if d.mark == "best" else f"{best.label} ({best.win:.0%})", f"{d.chosen_win:.0%}",
        )
    return table


def summary(review: GameReview) -> str:
    counts = review.counts()
    return ", ".join(f"{counts[m]} {m}" for m in MARKS)


def review_command(*, file: Path, seat: int, budget: int, seed: int, json_out: bool, workers: int | None,
                   fail: Fail, console: Console | None = None) -> None:
    """Review ``file`` for ``seat``; print a table (or ``--json``: one object). Errors go
    through ``fail`` (one line, exit 2) before any output."""
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1 (leave it out to use all cores), got {workers}")
    progress = console is None and not json_out and sys.stderr.isatty()
    err = Console(stderr=True)
    try:
        check_budget(budget)
        record = load_record(file)

        def tell(done: int, total: int) -> None:
            if progress:
                err.print(f"rated {done}/{total} decisions", end="\r", highlight=False)

        review = review_record(record, seat, budget=budget, seed=seed, workers=workers, progress=tell)
    except ReviewError as e:
        raise fail(str(e)) from None
    if json_out:
        sys.stdout.write(json.dumps(review.to_json()) + "\n")
        return
    out = console or Console(highlight=False)
    out.print(review_table(review))
    out.print(f"win: {sparkline(review.win)}  ({summary(review)})")
