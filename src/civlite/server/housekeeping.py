"""Abandoned tables: one where no player has acted for ``abandoned_seconds`` is marked so in
the lobby; after ``close_seconds`` it is closed (status ``closed``: no more moves, its
connections told), so unfinished tables do not pile up in the lobby or in memory. A rated
table closed so is rated, the seat whose decision it was (the player who walked away) last."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from . import protocol
from .broadcast import Broadcaster
from .registry import Registry
from .state import Table
from .storage import Store, TableInfo

log = logging.getLogger("civlite.server")

#: a table where nobody has acted for an hour is marked abandoned; after a week it is closed
ABANDONED_SECONDS = 3600.0
CLOSE_SECONDS = 7 * 86400.0


class Housekeeping:
    def __init__(self, store: Store, registry: Registry, broadcaster: Broadcaster,
                 abandoned_seconds: float = ABANDONED_SECONDS, close_seconds: float = CLOSE_SECONDS,
                 ended: Callable[[Table], None] | None = None) -> None:
        self.store = store
        #: called for each closed table (in memory): a rated one is rated, the stalling seat last
        self.ended = ended
        self.registry = registry
        self.broadcaster = broadcaster
        self.abandoned_seconds = abandoned_seconds
        self.close_seconds = close_seconds  # 0: never closed
        self.task: asyncio.Task[None] | None = None

    def abandoned(self, info: TableInfo, now: datetime | None = None) -> bool:
        """Whether nobody has acted at this unfinished table for ``abandoned_seconds``."""
        if info.status not in ("waiting", "playing"):
            return False
        now = now or datetime.now(UTC)
        return (now - info.last_active).total_seconds() >= self.abandoned_seconds

    def start(self) -> None:
        if self.close_seconds > 0:
            self.task = asyncio.create_task(self._run())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _run(self) -> None:
        every = min(60.0, max(0.2, self.close_seconds / 4))
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):  # storage down: the next round closes them
                await self.close_now()

    async def close_now(self) -> list[str]:
        """Close the tables abandoned for ``close_seconds``; returns their ids."""
        before = datetime.now(UTC) - timedelta(seconds=self.close_seconds)
        ids = await asyncio.to_thread(self.store.close_abandoned, before)
        for table_id in ids:
            log.info("table %s closed: nobody played there for %.0f s", table_id, self.close_seconds)
            t = self.registry.tables.get(table_id)
            if t is None:
                info = await asyncio.to_thread(self.store.get_table, table_id) if self.ended is not None else None
                if info is not None and info.rated:
                    loaded = await self.registry.get(table_id)  # rated as it loads (Manager._loaded)
                    if loaded is not None and not loaded.conns:
                        self.registry.evict(loaded)
                continue
            async with t.lock:
                t.info = replace(t.info, status="closed")
                if t.task is not None:
                    t.task.cancel()
                    t.task = None
                t.deadline = None
            if self.ended is not None:
                self.ended(t)
            self.broadcaster.to_all(t, protocol.closed_notice("This table was closed: nobody had played here for "
                                                              "too long. No more moves can be made."))
            self.broadcaster.refresh(t)
        return ids
