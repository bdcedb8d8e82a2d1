"""A bot seat's move, thought off the event loop: a search bot in worker processes (each with
a core and an interpreter of its own), any other in a thread (the random bot on the loop)."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..bots import Bot, decide, decide_and_return
from ..engine import Action, Game
from .botspecs import bot_for
from .state import Table

log = logging.getLogger("civlite.server")


class BotMoves:
    """The bots' thinking; ``processes``: worker processes for search bots (None: one per
    core; 0: they think in threads too)."""

    def __init__(self, processes: int | None) -> None:
        self.processes = (os.cpu_count() or 1) if processes is None else max(0, processes)
        self.pool: ProcessPoolExecutor | None = None

    def stop(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def executor(self) -> ProcessPoolExecutor | None:
        """The worker processes (started on first use), for other search work such as game
        reviews; None when bots think in threads."""
        if not self.processes:
            return None
        if self.pool is None:
            self.pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"))
        return self.pool

    async def choose(self, t: Table, seat: int) -> Action:
        """The move of the bot at ``seat``, for the game as it is now."""
        bot = t.bots.get(seat) or bot_for("random", None)[0]
        if bot.name == "random":
            return decide(bot, t.game)
        return await self._think(t, seat, bot, t.game.clone())

    async def _think(self, t: Table, seat: int, bot: Bot, snapshot: Game) -> Action:
        """A search bot's copy in the worker processes comes back with its random source moved on."""
        if bot.slow and self.processes:
            try:
                action, moved = await asyncio.get_running_loop().run_in_executor(
                    self.executor(), decide_and_return, bot, snapshot)
                t.bots[seat] = moved
                return action
            except BrokenProcessPool:  # a worker died (killed, out of memory): this move is thought
                # in a thread, and the next one starts a fresh pool
                log.warning("the bot worker processes broke; table %s's bot thinks in a thread", t.id)
                broken, self.pool = self.pool, None
                if broken is not None:
                    broken.shutdown(wait=False, cancel_futures=True)
        return await asyncio.to_thread(decide, bot, snapshot)
