"""What runs next at a table: after each change its clock is set, the change broadcast, and
the next bot move or clock timeout started, by the process that runs the table."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..engine import Action, Event
from .bot_moves import BotMoves
from .broadcast import Broadcaster
from .clocks import Clocks, clock_runs, start_clock
from .leases import Leases
from .protocol import ProtocolError
from .registry import Registry
from .state import Table

log = logging.getLogger("civlite.server")

#: a move just committed, to broadcast: its number, its events, its seat and who made it
Made = tuple[int, list[Event], int, str]
Choose = Callable[[Table, int], Awaitable[Action]]


class Submit(Protocol):
    """Commit a bot's or a clock's move unless the table has moved on from ``expect_seq``."""

    def __call__(self, t: Table, seat: int, action: Action, client_id: str | None, by: str, *,
                 expect_seq: int | None = None) -> Awaitable[int | None]: ...


class Turns:
    """Schedules each table's next bot move (after ``bot_delay`` seconds, give or take 40%)
    or clock timeout, and commits it through ``submit``."""

    def __init__(self, registry: Registry, broadcaster: Broadcaster, leases: Leases, bots: BotMoves,
                 clocks: Clocks, submit: Submit, bot_delay: float) -> None:
        self.registry = registry
        self.broadcaster = broadcaster
        self.leases = leases
        self.bots = bots
        self.clocks = clocks
        self.submit = submit
        self.bot_delay = bot_delay
        #: told when a turn-based table waits on a player's decision (the turn mail)
        self.on_turn: Callable[[Table, int], None] | None = None
        #: told after a clock move (a turn-based seat that keeps timing out leaves)
        self.on_timeout: Callable[[Table, int], Awaitable[None]] | None = None

    def schedule(self, t: Table, broadcast_first: Made | None = None, own: bool = True, hurry: bool = False) -> None:
        """After a change: set the clock (so the update carries it), broadcast, start the next bot/clock.

        ``own=False`` (a move that another process committed, without leases): that process
        runs the next bot move or clock, this one only shows the clock. With leases (several
        processes on PostgreSQL) only the lease's holder runs them. ``hurry``: a table just
        taken over from a dead process, whose bot has waited already: it moves at once.
        """
        if t.task is not None and t.task_seq != t.seq:
            t.task.cancel()
            t.task = None
        own = own and self.leases.owns(t)
        if t.task is None:
            t.deadline = None
        pending = t.game.pending if t.info.status == "playing" else None  # waiting, or closed: nothing runs
        if pending is not None and t.task is None:
            seat = pending.player
            kind = t.info.seats[seat].get("kind")
            if not own:
                if kind != "bot" and clock_runs(t, seat):
                    start_clock(t)
            elif kind == "bot":
                delay = self.bot_delay * random.uniform(0.6, 1.4) if self.bot_delay > 0 and not hurry else 0.0
                self._start(t, seat, delay, "bot", self.bots.choose)
            elif clock_runs(t, seat):  # a seat's clock runs once its player has come
                self._start(t, seat, start_clock(t), "clock", self.clocks.choose)
                if self.on_turn is not None and t.info.options.get("turn_based"):
                    self.on_turn(t, seat)
        if broadcast_first is not None:
            self.broadcaster.update(t, *broadcast_first)

    def _start(self, t: Table, seat: int, delay: float, by: str, choose: Choose) -> None:
        t.task = asyncio.create_task(self._move(t, seat, t.seq, delay, by, choose))
        t.task_seq = t.seq

    async def _move(self, t: Table, seat: int, seq: int, delay: float, by: str, choose: Choose) -> None:
        """After ``delay`` seconds, unless the table has moved on: ``choose`` a move for ``seat``, commit it."""
        try:
            await asyncio.sleep(delay)
            if t.seq != seq or t.game.to_move != seat:
                return
            action = await choose(t, seat)
            t.task = None
            done = await self.submit(t, seat, action, client_id=None, by=by, expect_seq=seq)
            if done is not None and by == "clock" and self.on_timeout is not None:
                await self.on_timeout(t, seat)
        except asyncio.CancelledError:
            raise
        except ProtocolError as e:
            log.warning("%s move refused on table %s: %s", by, t.id, e)
            if e.code == "not_stored":
                self._retry_later(t)
        except Exception:
            log.exception("%s move failed on table %s", by, t.id)

    def _retry_later(self, t: Table, delay: float = 1.0) -> None:
        """A bot or clock move that storage refused is tried again once it may answer."""
        def again() -> None:
            if self.registry.tables.get(t.id) is t and t.task is None:
                self.schedule(t)

        asyncio.get_running_loop().call_later(delay, again)
