"""Turn clocks: when a seat's clock runs, and the move made for a seat whose clock ran out: the
bot the table's creator chose as the stand-in, or else the safest legal move (a pass, or the
discard that costs the hand least). The seat's player is told once, in the second person; the
others in the third."""

from __future__ import annotations

import time

from ..bots import decide, make_bot
from ..engine import PASS_ID, Action, Game, Pass
from . import protocol
from .botspecs import bot_for
from .broadcast import Broadcaster
from .state import Table


def clock_runs(t: Table, seat: int) -> bool:
    """Whether ``seat`` plays against the table's clock now: once its player has come, or at
    once at a turn-based table (its players play at their own pace, mostly away)."""
    return bool(t.info.clock) and (seat in t.joined or bool(t.info.options.get("turn_based")))


def start_clock(t: Table) -> float:
    """Set the deadline of the move due now; returns the seconds it allows. A turn-based
    table's clock (days) counts from its last move, so a restart does not give more time."""
    seconds = float(t.info.clock or 0)
    now = time.time()
    start = min(now, t.acted) if t.info.options.get("turn_based") else now
    t.deadline = start + seconds
    return max(0.0, t.deadline - now)


def safest(game: Game) -> Action:
    """The safest legal move for the seat to decide: a pass when one is allowed; else what the
    heuristic chooses, which for a discard is the cards whose loss costs the hand least (and for
    a forced take, the card it needs most)."""
    seat = game.to_move
    if PASS_ID in game.legal_ids():
        return Pass(player=seat)
    return decide(make_bot("heuristic", seed=0), game.clone())


class Clocks:
    """The clock's moves: the table's stand-in bot (``options["stand_in"]``) when it has one,
    else :func:`safest`."""

    def __init__(self, broadcaster: Broadcaster, bot: str | None = None) -> None:
        self.broadcaster = broadcaster
        self.bot = bot  # a server-wide stand-in; None: the safest move

    async def choose(self, t: Table, seat: int) -> Action:
        """The move for ``seat``, whose clock ran out; its player and the others are told."""
        spec = t.info.stand_in or self.bot
        if spec is None:
            action = safest(t.game)
            mine, theirs = "the safest move was made for you", "the safest move was made for them"
        else:
            bot, level = bot_for(spec, None)
            action = decide(bot, t.game.clone())
            mine, theirs = f"the {level} bot decided for you", f"the {level} bot decided for them"
        self.broadcaster.to_seat(t, seat, protocol.clock_notice(seat, f"Your turn clock ran out: {mine}."))
        self.broadcaster.to_others(t, seat, protocol.clock_notice(
            seat, f"{t.name(seat)}'s clock ran out: {theirs}."))
        return action
