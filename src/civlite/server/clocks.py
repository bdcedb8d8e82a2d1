"""Turn clocks: when a seat's clock runs, and the move a bot makes for a seat whose clock ran
out (announced at the table)."""

from __future__ import annotations

import time

from ..bots import decide
from ..engine import Action
from . import protocol
from .botspecs import bot_for
from .broadcast import Broadcaster
from .state import Table


def clock_runs(t: Table, seat: int) -> bool:
    """Whether ``seat`` plays against the table's clock now (only once its player has come)."""
    return bool(t.info.clock) and seat in t.joined


def start_clock(t: Table) -> float:
    """Set the deadline of the move due now; returns the seconds it allows."""
    seconds = float(t.info.clock or 0)
    t.deadline = time.time() + seconds
    return seconds


class Clocks:
    """The clock's moves, chosen by ``bot`` (a bot spec)."""

    def __init__(self, broadcaster: Broadcaster, bot: str) -> None:
        self.broadcaster = broadcaster
        self.bot = bot

    async def choose(self, t: Table, seat: int) -> Action:
        """The move for ``seat``, whose clock ran out."""
        bot, level = bot_for(self.bot, None)
        action = decide(bot, t.game.clone())
        self.broadcaster.to_all(t, protocol.clock_notice(
            seat, f"{t.name(seat)}'s clock ran out: the {level} bot decided for them"))
        return action
