"""A bot seat's move, thought off the event loop: a search bot in worker processes (each with
a core and an interpreter of its own), any other in a thread (the random bot on the loop).

The worker processes end with their server: it terminates them when it stops (a search in
progress is not waited for), and each worker watches its parent and exits as soon as the
parent is gone, however it ended (``kill -9`` included)."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..bots import Bot, decide, decide_and_return
from ..engine import Action, Game
from .botspecs import bot_for
from .state import Table

log = logging.getLogger("civlite.server")

#: seconds a terminated worker is given to exit before it is killed
STOP_GRACE = 2.0


def _watch_parent() -> None:
    """A worker process's initializer: a daemon thread that ends the worker the moment its
    parent process is gone. The parent holds the other end of a pipe (its sentinel) for as
    long as it lives, so the wait returns on its exit, even a ``kill -9``."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)  # nothing to clean up: the work in progress has nobody left to receive it

    threading.Thread(target=watch, name="civlite-parent-watch", daemon=True).start()


def end_pool(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting for the work in progress: queued work is cancelled,
    its worker processes are terminated (killed if they outlast :data:`STOP_GRACE`) and reaped."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for p in workers:
        if p.is_alive():
            p.terminate()
    for p in workers:
        p.join(STOP_GRACE)
        if p.is_alive():
            p.kill()
            p.join(STOP_GRACE)


class BotMoves:
    """The bots' thinking; ``processes``: worker processes for search bots (None: one per
    core; 0: they think in threads too)."""

    def __init__(self, processes: int | None) -> None:
        self.processes = (os.cpu_count() or 1) if processes is None else max(0, processes)
        self.pool: ProcessPoolExecutor | None = None

    def stop(self) -> None:
        """End the worker processes now (a search in progress is abandoned)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            end_pool(pool)

    def executor(self) -> ProcessPoolExecutor | None:
        """The worker processes (started on first use), for other search work such as game
        reviews; None when bots think in threads."""
        if not self.processes:
            return None
        if self.pool is None:
            self.pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_watch_parent)
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
                    await asyncio.to_thread(end_pool, broken)
        return await asyncio.to_thread(decide, bot, snapshot)
