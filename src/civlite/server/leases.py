"""Table leases (several processes on PostgreSQL): which process runs a table's bots and clock.

The process holding a table's lease runs them; it renews every LEASE_EVERY seconds, and once
a lease lapses for LEASE_TTL another process that has the table claims it (so a dead
process's tables go on within about LEASE_TTL + LEASE_EVERY seconds). Tables of a dead
process that nobody here has loaded are loaded and claimed too.

A crashed process leaves its heartbeat row behind: at start-up and every SWEEP_EVERY seconds
the rounds remove the heartbeats older than STALE_LEASES lease times (a live process renews
its own every LEASE_EVERY seconds, so it is never touched).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .protocol import ProtocolError
from .registry import Registry
from .state import Table
from .storage import Store

log = logging.getLogger("civlite.server")
_T = TypeVar("_T")

LEASE_TTL = 1.2
LEASE_EVERY = 0.3
#: a heartbeat this many lease times old is a dead process's, and is removed
STALE_LEASES = 10
#: seconds between two sweeps of dead processes' heartbeats (and one at start-up)
SWEEP_EVERY = 30.0


class Leases:
    """This process's leases; with ``enabled`` false (one process) it runs every table it has.

    ``take_over(t)`` starts a table whose lease this process has just gained."""

    def __init__(self, store: Store, registry: Registry, enabled: bool, take_over: Callable[[Table], None]) -> None:
        self.store = store
        self.registry = registry
        self.enabled = enabled
        self.take_over = take_over
        self.owner = secrets.token_hex(8)
        self.owned: set[str] = set()
        self.task: asyncio.Task[None] | None = None
        self._adopting: set[asyncio.Task[None]] = set()
        self._release: set[str] = set()  # leases to give up in the next round
        # lease claims run on a thread of their own: queued behind the shared threads' work (loads,
        # catching up on other processes' moves, bots thinking) a renewal could come too late, and
        # another process would rightly take over a table this one still runs
        self._thread: ThreadPoolExecutor | None = None

    def owns(self, t: Table) -> bool:
        """Whether this process runs ``t``'s bots and clock."""
        return not self.enabled or t.id in self.owned

    def for_new_table(self) -> tuple[str, float] | None:
        """The lease a table made here is stored with (so its maker runs it from the start)."""
        return (self.owner, LEASE_TTL) if self.enabled else None

    def start(self) -> None:
        if self.enabled:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="civlite-leases")
            self.task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """Stop renewing and hand the tables over at once (another process may claim them)."""
        for task in (self.task, *self._adopting):
            if task is not None:
                task.cancel()
        if self.enabled:  # its heartbeat too, even with no table held
            with contextlib.suppress(Exception):
                await self._on_thread(self.store.release_leases, self.owner)
            self.owned.clear()
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)
            self._thread = None

    async def claim(self, t: Table) -> None:
        """Claim the lease of ``t``, just loaded (a finished game needs none)."""
        if not self.enabled or t.game.is_over:
            return
        for attempt in range(3):  # a transient failure (a deadlock, a dropped connection) is retried
            try:
                if t.id in await self._on_thread(self.store.claim_leases, self.owner, [t.id], LEASE_TTL):
                    self.owned.add(t.id)
                else:
                    log.debug("table %s: its lease is another process's", t.id)
                break
            except Exception as e:  # else the next lease round claims it (if nobody else has)
                log.warning("lease of table %s not claimed (attempt %d): %s: %s", t.id, attempt + 1,
                            type(e).__name__, e)
                await asyncio.sleep(0.05 * (attempt + 1))

    def forget(self, t: Table) -> None:
        """``t`` left memory: its lease is released in the next round."""
        if t.id in self.owned:
            self.owned.discard(t.id)
            self._release.add(t.id)

    async def _on_thread(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` on the lease thread (the shared threads if leases are not started)."""
        if self._thread is None:
            return await asyncio.to_thread(fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    async def sweep(self) -> int:
        """Remove the heartbeats of processes gone for STALE_LEASES lease times; how many went."""
        gone = await self._on_thread(self.store.sweep_lease_owners, STALE_LEASES * LEASE_TTL)
        if gone:
            log.info("removed the heartbeats of %d processes gone for over %.0f s", gone, STALE_LEASES * LEASE_TTL)
        return gone

    async def _loop(self) -> None:
        failing = False
        loop = asyncio.get_running_loop()
        next_sweep = loop.time()  # at start-up, then every SWEEP_EVERY seconds
        while True:
            if loop.time() >= next_sweep:
                next_sweep = loop.time() + SWEEP_EVERY
                try:
                    await self.sweep()
                except Exception as e:  # storage down: the next sweep does it
                    log.warning("heartbeats of dead processes not swept: %s: %s", type(e).__name__, e)
            await asyncio.sleep(LEASE_EVERY)
            tables = self.registry.tables
            want = [tid for tid, t in tables.items() if not t.game.is_over]
            done = {tid for tid in self.owned if tid not in tables or tables[tid].game.is_over}
            release = self._release | done
            try:
                got = await self._on_thread(self.store.claim_leases, self.owner, want, LEASE_TTL, sorted(release))
                orphans = await self._on_thread(self.store.orphaned_tables, 20)
                failing = False
            except Exception as e:
                # storage down: nothing changes here (no move can be stored meanwhile; should another
                # process reach storage and claim a table, the first move stored wins, the other
                # is refused as a conflict)
                if not failing:
                    log.warning("leases not renewed: %s: %s", type(e).__name__, e)
                failing = True
                continue
            self._release -= release
            # a table loaded (and claimed) during this round was not in ``want``: it is kept
            lost = (self.owned & set(want)) - got
            gained = got - self.owned
            self._release |= got - set(tables)  # evicted during the round
            if lost or gained or done:
                log.debug("leases of %s: lost %s, gained %s, done %s", self.owner, sorted(lost), sorted(gained),
                          sorted(done))
            self.owned = ((self.owned - lost - done) | got) & set(tables)
            for tid in lost:
                t = tables.get(tid)
                if t is not None and t.task is not None:
                    t.task.cancel()  # the other process runs it now (t.task is None while a move is stored)
                    t.task = None
            for tid in gained:
                t = tables.get(tid)
                if t is not None and t.task is None and not t.game.is_over:
                    log.info("table %s taken over by this process", tid)
                    self.take_over(t)
            for tid in orphans:  # a dead process's table that nobody here has loaded
                if tid not in tables and tid not in self.registry.loading:
                    task = asyncio.create_task(self._adopt(tid))
                    self._adopting.add(task)
                    task.add_done_callback(self._adopting.discard)

    async def _adopt(self, table_id: str) -> None:
        try:
            await self.registry.get(table_id)
        except ProtocolError as e:
            log.warning("table %s not taken over: %s", table_id, e.message)
