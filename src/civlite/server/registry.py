"""The tables in memory: each loaded from storage once (and rebuilt from it after a failed
write), the unfinished ones resumed after a start, the idle ones forgotten."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from ..engine import GameRecord, action_from_json
from .botspecs import bot_for
from .broadcast import Broadcaster
from .chat import TAIL
from .protocol import ProtocolError
from .social_store import SocialStore
from .state import Conn, Table
from .storage import Store

log = logging.getLogger("civlite.server")


class Registry:
    """All tables of this server process that are in memory, by id.

    ``claim(t)`` runs before a loaded table joins (with leases: whether this process runs it),
    ``schedule(t)`` after (its next bot move or clock), ``forget(t)`` when it leaves memory."""

    #: tables held in memory at most; past it, tables nobody watches are evicted first, and
    #: when none can be, loading another is refused ("busy") until some can
    MAX_TABLES = 5000

    def __init__(self, store: Store, broadcaster: Broadcaster, idle_seconds: float,
                 claim: Callable[[Table], Awaitable[None]], schedule: Callable[[Table], None],
                 forget: Callable[[Table], None]) -> None:
        self.store = store
        self.broadcaster = broadcaster
        #: a table nobody watches where nothing runs (or whose game is over) leaves memory after
        #: this long; it stays in storage and is rebuilt when asked for
        self.idle_seconds = idle_seconds
        self.claim, self.schedule, self.forget = claim, schedule, forget
        self.tables: dict[str, Table] = {}
        self.loading: dict[str, asyncio.Lock] = {}
        self.resume_task: asyncio.Task[None] | None = None
        self.sweep_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.resume_task = asyncio.create_task(self.resume())
        self.sweep_task = asyncio.create_task(self._sweeper())

    def stop(self) -> None:
        """Stop resuming and sweeping (the tables stay)."""
        for task in (self.resume_task, self.sweep_task):
            if task is not None:
                task.cancel()

    def close(self) -> None:
        """Stop every table's pending task and close its connections."""
        for t in self.tables.values():
            if t.task:
                t.task.cancel()
            for c in list(t.conns):
                c.close()

    async def resume(self, limit: int = 500, first_wait: float = 0.5, max_wait: float = 30.0) -> None:
        """After a (re)start: rebuild the unfinished tables from storage so their bots and clocks
        go on. Storage that does not answer (an outage) is asked again, waiting twice as long
        each time (``first_wait`` up to ``max_wait`` seconds), until it does or the server
        stops: an outage at start delays the resumption, it does not cancel it."""
        wait = first_wait
        while True:
            try:
                infos = await asyncio.to_thread(self.store.list_tables, "playing", limit)
                break
            except Exception as e:
                log.warning("could not list the tables to resume (trying again in %.1f s): %s: %s", wait,
                            type(e).__name__, e)
                await asyncio.sleep(wait)
                wait = min(max_wait, wait * 2)
        for info in infos:  # a table that does not load is reported and skipped: the others go on
            try:
                await self.get(info.id)
            except ProtocolError as e:
                log.error("table %s not resumed: %s", info.id, e.message)

    async def get(self, table_id: str) -> Table | None:
        """The table (loaded from storage if it is not in memory); ``None`` if there is none."""
        t = self.tables.get(table_id)
        if t is not None:
            return t
        lock = self.loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            t = self.tables.get(table_id)
            if t is not None:
                return t
            try:
                t = await asyncio.to_thread(self.load, table_id)
            except Exception as e:  # storage down, or a stored game that no longer replays
                log.warning("table %s could not be loaded: %s: %s", table_id, type(e).__name__, e)
                raise ProtocolError("unavailable", f"table {table_id!r} could not be loaded now "
                                    f"({type(e).__name__}); nothing changed: try again later") from None
            if t is None:
                self.loading.pop(table_id, None)  # unknown ids leave nothing behind
                return None
            if len(self.tables) >= self.MAX_TABLES:
                self.sweep(0.0)
                if len(self.tables) >= self.MAX_TABLES:
                    self.loading.pop(table_id, None)
                    log.warning("table %s not loaded: %d tables in memory, none idle", table_id, len(self.tables))
                    raise ProtocolError("busy", "the server holds as many tables as it may: try again later")
            await self.claim(t)
            self.tables[table_id] = t
            self.schedule(t)
            return t

    def load(self, table_id: str) -> Table | None:
        """The table rebuilt from storage (blocking: run it in a thread)."""
        info = self.store.get_table(table_id)
        if info is None:
            return None
        acts = self.store.load_actions(table_id)
        rec = GameRecord(rules=info.ruleset(), seed=info.seed, players=info.player_names(),
                         first=info.first, actions=())
        game = rec.initial()
        t = Table(info=info, game=game)
        # the chat's last lines come with the table, so that a hello never waits for them: a
        # wait there would let moves pass between the table and the welcome
        t.chat = SocialStore(self.store).load_chat(table_id, TAIL)
        t.log.extend((0, e) for e in game.opening_events)  # the first turn and its Rise (in Game(...))
        for a in acts:
            t.played(a.seq, a.by, game.apply(action_from_json(a.action)), a.client_id)
        # a seat whose player has moved has come (after a restart its clock goes on; a seat whose
        # player never came keeps waiting for them)
        t.joined = {a.seat for a in acts if a.by == "human"}
        # clock moves made in a row for a seat since its player last moved: they count towards a
        # turn-based seat's leaving (TIMEOUTS_LEFT) across restarts and processes as in memory
        for a in acts:
            if a.by == "clock":
                t.missed[a.seat] = t.missed.get(a.seat, 0) + 1
            elif a.by == "human":
                t.missed.pop(a.seat, None)
        t.acted = info.last_active.timestamp()  # when a player last acted (a stall is measured from it)
        for i, s in enumerate(info.seats):
            if s.get("kind") == "bot":
                t.bots[i], _ = bot_for(str(s.get("bot") or "random"), info.seed * 10 + i)
        return t

    async def recover(self, t: Table) -> None:
        """After a failed write: reload the table from storage (the write may have landed
        before the connection broke) before any other move; refused while storage is down."""
        try:
            await self.reload(t)
        except Exception as e:
            raise ProtocolError("not_stored", "storage is not answering, so no move can be stored now (nothing "
                                f"changed): try again in a moment ({type(e).__name__})") from None
        t.unsure = False

    async def reload(self, t: Table) -> None:
        """Rebuild a table from storage (after a conflict or a storage error); resend everyone's state."""
        fresh = await asyncio.to_thread(self.load, t.id)
        if fresh is None:
            return
        t.info, t.game, t.seq, t.log, t.client_ids, t.bots = (fresh.info, fresh.game, fresh.seq, fresh.log,
                                                              fresh.client_ids, fresh.bots)
        t.via, t.joined = fresh.via, t.joined | fresh.joined  # t.acted stays: the last move here
        self.broadcaster.refresh(t)

    # -- memory: idle and finished tables leave it -------------------------------------
    def sweep(self, idle_seconds: float | None = None) -> int:
        """Forget the tables nobody watches where nothing runs (or whose game is over), idle for
        ``idle_seconds``; they stay in storage and are rebuilt when asked for. Returns how many."""
        idle = self.idle_seconds if idle_seconds is None else idle_seconds
        now = time.monotonic()
        gone = [t for t in self.tables.values() if now - t.touched >= idle and t.evictable()]
        gone.sort(key=lambda t: t.touched)
        for t in gone:
            self.evict(t)
        return len(gone)

    def evict(self, t: Table) -> None:
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
            self.loading.pop(t.id, None)
            self.forget(t)
            if t.task is not None:
                t.task.cancel()
                t.task = None

    async def _sweeper(self) -> None:
        every = min(5.0, max(0.05, self.idle_seconds / 2))
        while True:
            await asyncio.sleep(every)
            self.sweep()

    def disconnect(self, conn: Conn) -> None:
        """``conn`` leaves its table; a table nobody watches where nothing runs leaves memory."""
        t = conn.table
        if t is not None:
            t.conns.discard(conn)
            conn.table = None
            conn.seat = None
            self.broadcaster.presence(t)
            t.touched = time.monotonic()
            if not t.conns and t.idle():
                # nobody watches and nothing runs: forget it (it is rebuilt from storage when asked for)
                self.evict(t)
