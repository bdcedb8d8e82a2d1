"""Other processes' changes (PostgreSQL NOTIFY): their moves applied here, a rematch or a
replaced invite link taken in, each told to this process's connections."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

from ..engine import ActionFormatError, IllegalActionError, action_from_json
from . import protocol
from .broadcast import Broadcaster
from .invites import Invites
from .registry import Registry
from .storage import Store
from .turns import Turns


class CatchUp:
    """Listens (when ``listen``) for the tables other processes change; with ``leases`` the
    process holding a table's lease runs its next bot move or clock, without them the process
    that stored the move does."""

    def __init__(self, store: Store, registry: Registry, broadcaster: Broadcaster, invites: Invites,
                 turns: Turns, listen: bool, leases: bool) -> None:
        self.store = store
        self.registry = registry
        self.broadcaster = broadcaster
        self.invites = invites
        self.turns = turns
        self.listen = listen
        self.leases = leases
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: threading.Event | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        if self.listen:
            self._stop = threading.Event()
            self.store.listen(self.notified, self._stop)

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def notified(self, table_id: str, seq: int) -> None:
        """From the listening thread: ``table_id`` has move ``seq`` (0: the table itself changed)."""
        loop = self.loop
        if loop is None or table_id not in self.registry.tables:
            return
        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.catch_up(table_id, seq)))

    async def catch_up(self, table_id: str, seq: int) -> None:
        t = self.registry.tables.get(table_id)
        if t is None:
            return
        if seq == 0:  # the table changed (a rematch or a new invite link, by another process)
            info = await asyncio.to_thread(self.store.get_table, table_id)
            if info is None:
                return
            changed = {i for i, (a, b) in enumerate(zip(t.info.seats, info.seats, strict=False))
                       if a.get("token_sha256") != b.get("token_sha256")}
            if changed:
                t.info = replace(t.info, seats=info.seats)
                self.invites.revoke(t, changed)
            if info.rematch and t.info.rematch is None:
                t.info = replace(t.info, rematch=info.rematch)
                self.broadcaster.to_all(t, protocol.rematch(info.rematch))
            return
        if t.seq >= seq:
            return
        async with t.lock:
            if t.seq >= seq:
                return
            acts = await asyncio.to_thread(self.store.load_actions, table_id, t.seq)
            for a in acts:
                if a.seq != t.seq + 1:
                    break
                try:
                    events = t.game.apply(action_from_json(a.action))
                except (IllegalActionError, ActionFormatError):
                    await self.registry.reload(t)
                    return
                t.played(a.seq, a.by, events, a.client_id)
                self.turns.schedule(t, broadcast_first=(a.seq, events, a.seat, a.by), own=self.leases)
