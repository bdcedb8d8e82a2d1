"""Other processes' changes (PostgreSQL NOTIFY): their moves applied here; a seat taken, a
game started, a player who left or voted, a rematch or a replaced invite link taken in; their
chat lines sent on; each told to this process's connections."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace

from ..engine import ActionFormatError, IllegalActionError, action_from_json
from . import protocol
from .broadcast import Broadcaster
from .chat import Chat
from .invites import Invites
from .registry import Registry
from .social_store import SocialStore
from .state import Table
from .storage import Store
from .turns import Turns

log = logging.getLogger("civlite.server")


class CatchUp:
    """Listens (when ``listen``) for the tables other processes change; with ``leases`` the
    process holding a table's lease runs its next bot move or clock, without them the process
    that stored the move does."""

    def __init__(self, store: Store, registry: Registry, broadcaster: Broadcaster, invites: Invites,
                 turns: Turns, chat: Chat, changed: Callable[[Table], Awaitable[None]], listen: bool,
                 leases: bool) -> None:
        self.store = store
        self.social = SocialStore(store)
        self.chat = chat
        #: rebuilds a table another process changed (``t.lock`` held) and runs or rates it
        self.changed = changed
        self._tasks: set[asyncio.Future[None]] = set()
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
        """From the listening thread: ``table_id`` has move ``seq`` (0: the table itself changed;
        below 0: chat line ``-seq``)."""
        loop = self.loop
        # a table being loaded counts: its load may have read the row before this change
        if loop is None or (table_id not in self.registry.tables and table_id not in self.registry.loading):
            return
        loop.call_soon_threadsafe(lambda: self._spawn(table_id, seq))

    def _spawn(self, table_id: str, seq: int) -> None:
        task = asyncio.ensure_future(self.catch_up(table_id, seq))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def catch_up(self, table_id: str, seq: int) -> None:
        """Take in another process's change; a failure (storage down) is logged, and the next
        notice or reload of the table catches up."""
        t = self.registry.tables.get(table_id)
        loading = self.registry.loading.get(table_id)
        if t is None and loading is not None:
            async with loading:  # the load under way ends first; then this change is taken in
                t = self.registry.tables.get(table_id)
        if t is None:
            return
        try:
            if seq == 0:
                await self._table_changed(t)
            elif seq < 0:
                await self._chat(t, -seq)
            else:
                await self._moves(t, seq)
        except Exception as e:
            log.warning("table %s: another process's change could not be read now (%s: %s); the next one catches up",
                        table_id, type(e).__name__, e)

    async def _table_changed(self, t: Table) -> None:
        """The table changed in another process: a seat taken, the game started, a player left
        or voted, a rematch, a new invite link. The table is rebuilt from storage and everyone
        here told; its bots run (or it is rated, if it ended)."""
        info = await asyncio.to_thread(self.store.get_table, t.id)
        if info is None:
            return
        old = t.info
        tokens = {i for i, (a, b) in enumerate(zip(old.seats, info.seats, strict=False))
                  if a.get("token_sha256") != b.get("token_sha256") and a.get("kind") == b.get("kind") == "human"}
        if old.seats != info.seats or old.status != info.status or old.options != info.options:
            async with t.lock:
                await self.changed(t)
        if tokens:
            self.invites.revoke(t, tokens)
        if info.rematch and t.info.rematch is None:
            t.info = replace(t.info, rematch=info.rematch)
        if info.rematch and info.rematch != old.rematch:
            self.broadcaster.to_all(t, protocol.rematch(info.rematch))

    async def _chat(self, t: Table, line: int) -> None:
        """Chat line ``line`` was said in another process: it and any others missed, to this
        process's connections."""
        if t.chat is None:
            return  # not loaded yet: the welcome loads the newest lines
        last = t.chat[-1].n if t.chat else 0
        if line <= last:
            return
        for got in await asyncio.to_thread(self.social.chat_after, t.id, last):
            if t.chat and got.n <= t.chat[-1].n:
                continue
            self.chat.heard(t, got)

    async def _moves(self, t: Table, seq: int) -> None:
        if t.seq >= seq:
            return
        async with t.lock:
            if t.seq >= seq:
                return
            acts = await asyncio.to_thread(self.store.load_actions, t.id, t.seq)
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
