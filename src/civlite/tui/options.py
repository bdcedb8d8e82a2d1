"""What the screens share: the bot delays on offer, the message that changes the delay, the key lists.

One key means one thing at the table and in the replay (``v`` is the discard pile in both)."""

from __future__ import annotations

import math

from textual.message import Message

#: bot delays (seconds) offered by the speed setting, fastest first
SPEEDS: tuple[float, ...] = (0.0, 0.1, 0.3, 0.6, 1.0, 2.0)
#: the longest bot delay accepted (seconds): a longer one would look like a bot that never moves
MAX_DELAY = 60.0


def delay_error(delay: float) -> str | None:
    """Why ``delay`` is not a bot delay (a number of seconds from 0 to :data:`MAX_DELAY`), or ``None``."""
    if not math.isfinite(delay) or not 0 <= delay <= MAX_DELAY:
        return f"the bot delay must be between 0 and {MAX_DELAY:g} seconds, not {delay:g}"
    return None


def step_speed(delay: float, step: int) -> float:
    """The offered delay ``step`` places from the one nearest ``delay``: -1 faster, +1 slower."""
    idx = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - delay))
    return SPEEDS[max(0, min(len(SPEEDS) - 1, idx + step))]


class BotDelayChanged(Message):
    """The player chose another bot delay (seconds); the app keeps it for the tables to come."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay


#: the keys of the table, shown by its help screen
TABLE_KEYS: list[tuple[str, str]] = [
    ("1 … 9, f h i j k o u x z", "answer with that choice (the key is shown beside it)"),
    ("↑ ↓ enter", "move in the choice list and answer"),
    ("p", "pass (action or meld phase)"),
    ("m", "open the meld builder (meld phase)"),
    ("y", "choose which cards pay for the highlighted ability"),
    ("space", "pick / unpick a card (discard picker, meld builder, pay picker)"),
    ("c", "confirm the picked cards"),
    ("esc", "leave the meld builder or the pay picker"),
    ("d / l / tab", "focus the decision / the log / the next panel"),
    ("v", "the whole discard pile (it is public, R3.2)"),
    ("a", "automatic meld pass on / off for you: passes your meld phase when no meld is possible (R9.1)"),
    ("+ / -", "bots move faster / slower"),
    ("s", "save the game now (it is also saved after every move)"),
    ("r / g", "results / a new game (when the game is over)"),
    ("e (on the results)", "review your game: every decision of yours rated, and your chance of winning as a graph"),
    ("H", "hint: the best option now and why, searched from what you can see"),
    ("ctrl+p", "the command palette: every command by name"),
    ("? or f1", "this help"),
    ("q", "quit (asks first in the middle of a game; civlite play --continue plays on)"),
]
#: the keys of the replay screen
REPLAY_KEYS: list[tuple[str, str]] = [
    ("→ or n", "next action"),
    ("← or b", "previous action"),
    ("home / end", "first / last position"),
    ("t", "jump to the next turn"),
    ("w", "watch as the next seat (or as a spectator)"),
    ("v", "the whole discard pile (as at the table)"),
    ("e", "review the watched seat (seat 0 for a spectator): marks beside each step, the graph"),
    ("? or f1", "this help"),
    ("q", "quit"),
]
