"""Table manager: the authoritative games, their seats, bots, clocks and connections.

Every message a connection receives is built here, from ``game.view(seat)`` and
``event.to_json(seat)`` for that connection's seat (``None`` for a spectator) and
from public table facts (seat names and kinds, rule numbers, clock). An action
is applied, then committed to storage, and only then acknowledged and broadcast;
when storage refuses it the table is rebuilt from storage, so memory never holds
an action that is not stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import importlib.util
import json
import logging
import multiprocessing
import os
import random
import re
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..bots import LEVELS, OPTIONS, Bot, decide, decide_and_return, make_bot, parse_spec
from ..engine import (
    Action,
    ActionFormatError,
    Event,
    Game,
    GameRecord,
    IllegalActionError,
    RuleSet,
    RuleSetError,
    StaleDecisionError,
    action_from_json,
)
from .protocol import VERSION, ActionMsg, CreateTable, Hello, ProtocolError, error, parse_client
from .storage import Append, ConflictError, StorageError, Store, TableInfo

log = logging.getLogger("civlite.server")
_T = TypeVar("_T")


def token_digest(token: str) -> str:
    """What the database keeps of a seat token: its SHA-256 (a token is 18 random bytes, so
    no salt is needed), so a copy of the database cannot be used to take a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


#: rule sets offered by the lobby (any table may also change victory_ct)
RULESETS: dict[str, RuleSet] = {
    "default": RuleSet.default(),
    "quick": RuleSet.default().with_changes(name="quick", victory_ct=10),
}
LOG_TAIL = 400  # log entries sent on (re)connect
STALE = "That move was already made (or is late): the table has moved on."
#: default names of bot seats, distinct at a table (a name a player gave is skipped)
BOT_NAMES = ("Nefertiti", "Ashoka", "Pericles", "Cyrus", "Boudica", "Zenobia", "Sargon", "Tomyris")  # no card names
#: bidirectional controls (an RLO would reverse the text after it) and other invisible format marks
_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def safe_name(name: str | None) -> str:
    """A player or table name with control and bidirectional-override characters removed and
    spaces collapsed ("" when nothing is left). Clients still isolate names (<bdi>)."""
    return " ".join(_UNSAFE.sub("", name or "").split())
#: the learned bots (and the levels that play them) need numpy: offered only where it is installed
_NUMPY = importlib.util.find_spec("numpy") is not None
#: the named levels offered (``civlite.bots.LEVELS``), weakest first
OFFERED_LEVELS = tuple(k for k, v in LEVELS.items() if _NUMPY or v.split(":")[0] not in ("expert", "champion"))
#: every bot spec name a table may use: the levels, then the bots themselves
BOT_LEVELS = OFFERED_LEVELS + ("random", "heuristic", "ismcts") + (("policy", "expert") if _NUMPY else ())


#: a search bot's budget per decision on this server: more is refused at table creation, and
#: every search also stops after MAX_BOT_SECONDS whatever its spec says (one huge spec would
#: otherwise hold a worker process, and every table waiting on it, for hours)
MAX_BOT_ITERATIONS = 20_000
MAX_BOT_SECONDS = 5.0
#: bits of the secret a table's deal comes from (Python's ``random.Random`` takes the whole int)
SECRET_BITS = 128


def check_bot_spec(spec: str) -> str:
    """The spec, checked: an unknown bot or option, a bad value or a budget past the server's
    caps raises ``ValueError`` naming the problem."""
    name, opts = parse_spec(spec)
    if name not in BOT_LEVELS:
        raise ValueError(f"unknown bot {name!r}; this server offers: {', '.join(BOT_LEVELS)}")
    it, sec = opts.get("iterations"), opts.get("seconds")
    if isinstance(it, (int, float)) and it > MAX_BOT_ITERATIONS:
        raise ValueError(f"bot spec {spec!r}: at most iterations={MAX_BOT_ITERATIONS} on this server")
    if isinstance(sec, (int, float)) and sec > MAX_BOT_SECONDS:
        raise ValueError(f"bot spec {spec!r}: at most seconds={MAX_BOT_SECONDS:g} on this server")
    make_bot(spec, seed=0)  # the bot's own checks (option names and values)
    return spec.strip()


def bot_for(spec: str, seed: int | None) -> tuple[Bot, str]:
    """The bot of a seat's spec, its budget capped (``seconds`` at most MAX_BOT_SECONDS, for a
    search bot even when the spec sets only iterations); a spec this server refuses (e.g. a
    table stored before the caps) plays as the capped default of its level, with a warning."""
    try:
        check_bot_spec(spec)
    except ValueError as e:
        level = parse_spec(spec)[0] if spec.strip() else "random"
        log.warning("bot spec %r refused (%s): the seat plays %s", spec, e,
                    level if level in BOT_LEVELS else "random")
        spec = level if level in BOT_LEVELS else "random"
    name, opts = parse_spec(spec)
    if "seconds" in OPTIONS.get(name, ()) and "seconds" not in opts:
        if "iterations" in OPTIONS[name] and "iterations" not in opts:  # keep the default budget
            default = getattr(make_bot(name, seed=0), "iterations", None)
            if default is not None:
                opts["iterations"] = default
        opts["seconds"] = MAX_BOT_SECONDS
        spec = name + ":" + ",".join(f"{k}={v}" for k, v in opts.items())
    return make_bot(spec, seed=seed), spec


def ability_text(text: str) -> str:
    """The engine's effect text, tidied for players ("take 1 card", "discards its whole hand")."""
    text = text.replace(" ('all': its hand)", "").replace("discards all cards of its choice", "discards its whole hand")
    return re.sub(r"\b1 cards\b", "1 card", text)


def rules_json(rules: RuleSet) -> dict[str, Any]:
    """Public rule facts for clients (no cards)."""
    return {
        "name": rules.name, "victory_ct": rules.victory_ct, "hand_limit": rules.hand_limit,
        "hand_size": rules.hand_size, "rise_draw": rules.rise_draw, "meld_ct": rules.meld_ct,
        "meld_draw": rules.meld_draw,
        "meld_suits": [int(s) for s in rules.meld_suits], "meld_one_of": [int(s) for s in rules.meld_one_of],
        "abilities": [{"name": a.name, "suit": int(a.suit), "tier": a.tier, "cards": a.cards, "targets": a.targets,
                       "text": ability_text(a.text), "rule": a.rule, "key": a.key} for a in rules.abilities],
    }


class Conn:
    """One client connection: a queue of outgoing frames (already JSON text)."""

    MAX_QUEUE = 2000

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.table: Table | None = None
        self.seat: int | None = None
        self.closed = False
        # the rate limit's token bucket (see Manager.handle)
        self.allowance = -1.0  # messages that may come now (-1: a full bucket, set on the first message)
        self.stamp = 0.0
        self.noticed = -1e9  # when the client was last told it is being limited
        self.dropped = 0  # messages dropped in a row

    def allow(self, rate: float, now: float) -> bool:
        """Token bucket: ``rate`` messages a second on average, bursts of ``2 * rate`` (at least 10)."""
        burst = max(10.0, 2.0 * rate)
        if self.allowance < 0:
            self.allowance = burst
        else:
            self.allowance = min(burst, self.allowance + (now - self.stamp) * rate)
        self.stamp = now
        if self.allowance < 1.0:
            return False
        self.allowance -= 1.0
        return True

    def send(self, msg: dict[str, Any]) -> None:
        self.send_text(json.dumps(msg, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > self.MAX_QUEUE:  # a client that does not read: drop it
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


@dataclass(eq=False)
class Table:
    info: TableInfo
    game: Game
    seq: int = 0
    log: list[tuple[int, Event]] = field(default_factory=list)
    client_ids: dict[str, int] = field(default_factory=dict)
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, Bot] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None  # the pending bot move or clock
    deadline: float | None = None  # epoch seconds when the clock runs out
    task_seq: int = -1
    unsure: bool = False  # a write failed: reload from storage before the next move
    joined: set[int] = field(default_factory=set)  # seats whose player has connected (their clock may run)
    via: dict[int, str] = field(default_factory=dict)  # action number -> "bot" / "clock" (not "human")
    missed: dict[int, int] = field(default_factory=dict)  # seat -> clock moves made while it was away
    touched: float = field(default_factory=time.monotonic)  # the last move, hello or goodbye (for eviction)

    @property
    def id(self) -> str:
        return self.info.id

    def name(self, seat: int) -> str:
        return str(self.info.seats[seat].get("name") or f"Seat {seat + 1}")

    def seat_of(self, token: str) -> int | None:
        digest = token_digest(token)
        for i, s in enumerate(self.info.seats):
            t = s.get("token_sha256")
            if t and hmac.compare_digest(str(t), digest):
                return i
        return None

    def connected(self) -> list[bool]:
        on = {c.seat for c in self.conns if c.seat is not None}
        return [i in on for i in range(len(self.info.seats))]

    def summary(self) -> dict[str, Any]:
        return summary(self.info, self.connected(), self.game.turn, self.game.rules)


def summary(info: TableInfo, connected: list[bool] | None = None, turn: int = 0,
            rules: RuleSet | None = None) -> dict[str, Any]:
    rules = rules or info.ruleset()
    conn = connected or [False] * len(info.seats)
    return {
        "id": info.id, "name": info.name,
        "seats": [{"seat": i, "name": s.get("name", f"Seat {i + 1}"), "kind": s.get("kind", "human"),
                   "bot": s.get("bot"), "connected": conn[i] or s.get("kind") == "bot"}
                  for i, s in enumerate(info.seats)],
        "rules": rules_json(rules), "clock": info.clock, "status": info.status, "turn": turn,
        "winner": info.winner, "rematch": info.rematch, "rematch_of": info.rematch_of,
        # a practice table's seed was chosen by its creator, who may know every card: all see it
        "practice": info.seeded, "seed": info.seed if info.seeded else None,
    }


class Committer:
    """Group commit: appends queued while a transaction runs go into the next one. Commits run
    in a thread, on SQLite too: with synchronous=FULL a commit waits for the disk (12 ms on the
    test machine), which on the event loop would stall every table."""

    def __init__(self, store: Store, max_batch: int = 256) -> None:
        self.store = store
        self.max_batch = max_batch
        self.queue: asyncio.Queue[tuple[Append, asyncio.Future[None]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def commit(self, a: Append) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((a, fut))
        await fut

    async def _run(self) -> None:
        while True:
            items = [await self.queue.get()]
            while len(items) < self.max_batch and not self.queue.empty():
                items.append(self.queue.get_nowait())
            batch = [a for a, _ in items]
            try:
                await asyncio.to_thread(self.store.append_many, batch)
            except Exception as e:  # storage down: every item fails
                for _a, f in items:
                    if not f.done():
                        f.set_exception(StorageError(f"storage failed: {e}"))
                continue
            for a, f in items:
                if f.done():
                    continue
                if a.error:
                    f.set_exception(ConflictError(a.error))
                else:
                    f.set_result(None)


#: a table's lease (PostgreSQL, several processes): the process holding it runs the table's
#: bots and clock; it renews every LEASE_EVERY seconds, and once it lapses for LEASE_TTL
#: another process that has the table claims it (so a dead process's tables go on within
#: about LEASE_TTL + LEASE_EVERY seconds)
LEASE_TTL = 1.2
LEASE_EVERY = 0.3


class Manager:
    """All tables of this server process."""

    #: a connection that keeps sending this many messages past its limit is closed
    MAX_DROPPED = 2000
    #: tables held in memory at most; past it, tables nobody watches are evicted first, and
    #: when none can be, loading another is refused ("busy") until some can
    MAX_TABLES = 5000

    def __init__(self, store: Store, bot_delay: float = 0.8, listen: bool | None = None,
                 clock_bot: str = "heuristic", rate_limit: float | None = None,
                 bot_processes: int | None = None, idle_seconds: float = 60.0,
                 leases: bool | None = None) -> None:
        self.store = store
        #: a table nobody watches where nothing runs (or whose game is over) leaves memory after
        #: this long; it stays in storage and is rebuilt when asked for
        self.idle_seconds = idle_seconds
        #: leases in PostgreSQL decide which process runs a table's bots and clock
        self.leases = store.is_postgres if leases is None else leases
        self.owner = secrets.token_hex(8)
        self.owned: set[str] = set()
        self._lease_task: asyncio.Task[None] | None = None
        self._sweep_task: asyncio.Task[None] | None = None
        self._adopting: set[asyncio.Task[None]] = set()
        self._release: set[str] = set()  # leases to give up in the next round
        # lease claims run on a thread of their own: queued behind the shared threads' work (loads,
        # catching up on other processes' moves, bots thinking) a renewal could come too late, and
        # another process would rightly take over a table this one still runs
        self._lease_thread: ThreadPoolExecutor | None = None
        self.bot_delay = bot_delay
        # search bots think in worker processes, each with a core and an interpreter of its own
        # (a search in a thread would share the server's); None: one per core; 0: in threads
        self.bot_processes = (os.cpu_count() or 1) if bot_processes is None else max(0, bot_processes)
        self._pool: ProcessPoolExecutor | None = None
        self.rate_limit = rate_limit if rate_limit else None  # messages a second per connection (None: off)
        self.clock_bot = clock_bot
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.committer = Committer(store)
        self.listen = store.is_postgres if listen is None else listen
        self._stop: Any = None
        self._resume_task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.on_frame: Callable[[Conn, dict[str, Any]], None] | None = None  # tests

    # -- life cycle -----------------------------------------------------------------
    async def start(self) -> None:
        import threading

        self.loop = asyncio.get_running_loop()
        self.committer.start()
        if self.listen:
            self._stop = threading.Event()
            self.store.listen(self._notified, self._stop)
        self._resume_task = asyncio.create_task(self._resume())
        self._sweep_task = asyncio.create_task(self._sweeper())
        if self.leases:
            self._lease_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="civlite-leases")
            self._lease_task = asyncio.create_task(self._lease_loop())

    async def _resume(self, limit: int = 500, first_wait: float = 0.5, max_wait: float = 30.0) -> None:
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

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
        for task in (self._resume_task, self._sweep_task, self._lease_task, *self._adopting):
            if task is not None:
                task.cancel()
        if self.leases and self.owned:  # hand the tables over at once (another process may claim them)
            with contextlib.suppress(Exception):
                await self._on_lease_thread(self.store.release_leases, self.owner)
            self.owned.clear()
        if self._lease_thread is not None:
            self._lease_thread.shutdown(wait=False, cancel_futures=True)
            self._lease_thread = None
        for t in self.tables.values():
            if t.task:
                t.task.cancel()
            for c in list(t.conns):
                c.close()
        await self.committer.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # -- tables ---------------------------------------------------------------------
    async def create_table(self, spec: CreateTable) -> tuple[TableInfo, list[str | None]]:
        if spec.rules not in RULESETS:
            raise ProtocolError("bad_rules", f"unknown rule set {spec.rules!r}; the rule sets are: {', '.join(RULESETS)}")
        rules = RULESETS[spec.rules]
        try:
            if spec.victory_ct is not None and spec.victory_ct != rules.victory_ct:
                rules = rules.with_changes(victory_ct=spec.victory_ct)
        except RuleSetError as e:
            raise ProtocolError("bad_rules", str(e)) from None
        seats: list[dict[str, Any]] = []
        tokens: list[str | None] = []
        humans = 0
        given = [safe_name(s.name) for s in spec.seats]
        bot_names = iter(n for n in BOT_NAMES if n not in given)
        for i, s in enumerate(spec.seats):
            if s.kind == "bot":
                try:
                    level = check_bot_spec(s.bot or "random")
                except ValueError as e:
                    raise ProtocolError("bad_bot", f"Seat {i + 1}'s bot: {e}") from None
                seats.append({"kind": "bot", "bot": level, "name": given[i] or next(bot_names, f"Bot {i + 1}")})
                tokens.append(None)
            else:
                humans += 1
                tok = secrets.token_urlsafe(18)
                seats.append({"kind": "human", "bot": None, "name": given[i] or f"Player {humans}",
                              "token_sha256": token_digest(tok)})  # the token itself is stored nowhere
                tokens.append(tok)
        if spec.seed is not None and not spec.practice:
            raise ProtocolError("seed_needs_practice", "a chosen seed is allowed only on a practice table "
                                "(\"practice\": true), which every seat sees marked with its seed")
        if spec.practice:  # the seed is shown to every seat: a shorter one reads better
            seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
        else:  # secret: nobody can search the seeds from their own hand
            seed = secrets.randbits(SECRET_BITS)
        try:
            info = await asyncio.to_thread(
                self.store.create_table, id=secrets.token_urlsafe(6).replace("-", "x").replace("_", "y"),
                name=safe_name(spec.name) or f"{len(seats)}-seat table", rules=rules.to_dict(), seed=seed, seats=seats,
                clock=spec.clock, seeded=spec.practice, lease=(self.owner, LEASE_TTL) if self.leases else None)
        except Exception as e:
            log.warning("a table could not be stored: %s: %s", type(e).__name__, e)
            raise ProtocolError("unavailable", f"the table could not be stored ({type(e).__name__}): "
                                "try again in a moment") from None
        table = await self.get(info.id)
        assert table is not None
        return info, tokens

    async def get(self, table_id: str) -> Table | None:
        t = self.tables.get(table_id)
        if t is not None:
            return t
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            t = self.tables.get(table_id)
            if t is not None:
                return t
            try:
                t = await asyncio.to_thread(self._load, table_id)
            except Exception as e:  # storage down, or a stored game that no longer replays
                log.warning("table %s could not be loaded: %s: %s", table_id, type(e).__name__, e)
                raise ProtocolError("unavailable", f"table {table_id!r} could not be loaded now "
                                    f"({type(e).__name__}); nothing changed: try again later") from None
            if t is None:
                self._loading.pop(table_id, None)  # unknown ids leave nothing behind
                return None
            if len(self.tables) >= self.MAX_TABLES:
                self.sweep(0.0)
                if len(self.tables) >= self.MAX_TABLES:
                    self._loading.pop(table_id, None)
                    log.warning("table %s not loaded: %d tables in memory, none idle", table_id, len(self.tables))
                    raise ProtocolError("busy", "the server holds as many tables as it may: try again later")
            if self.leases and not t.game.is_over:
                for attempt in range(3):  # a transient failure (a deadlock, a dropped connection) is retried
                    try:
                        if table_id in await self._on_lease_thread(self.store.claim_leases, self.owner,
                                                                   [table_id], LEASE_TTL):
                            self.owned.add(table_id)
                        else:
                            log.debug("table %s: its lease is another process's", table_id)
                        break
                    except Exception as e:  # else the next lease round claims it (if nobody else has)
                        log.warning("lease of table %s not claimed (attempt %d): %s: %s", table_id, attempt + 1,
                                    type(e).__name__, e)
                        await asyncio.sleep(0.05 * (attempt + 1))
            self.tables[table_id] = t
            self._schedule(t)
            return t

    # -- memory: idle and finished tables leave it -------------------------------------
    def evictable(self, t: Table) -> bool:
        return not t.conns and (t.game.is_over or self._idle(t)) and not (t.task and not t.task.done())

    def sweep(self, idle_seconds: float | None = None) -> int:
        """Forget the tables nobody watches where nothing runs (or whose game is over), idle for
        ``idle_seconds``; they stay in storage and are rebuilt when asked for. Returns how many."""
        idle = self.idle_seconds if idle_seconds is None else idle_seconds
        now = time.monotonic()
        gone = [t for t in self.tables.values() if now - t.touched >= idle and self.evictable(t)]
        gone.sort(key=lambda t: t.touched)
        for t in gone:
            self._evict(t)
        return len(gone)

    def _evict(self, t: Table) -> None:
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
            self._loading.pop(t.id, None)
            if t.id in self.owned:  # the next lease round releases it
                self.owned.discard(t.id)
                self._release.add(t.id)
            if t.task is not None:
                t.task.cancel()
                t.task = None

    async def _sweeper(self) -> None:
        every = min(5.0, max(0.05, self.idle_seconds / 2))
        while True:
            await asyncio.sleep(every)
            self.sweep()

    # -- leases (several processes on PostgreSQL) -------------------------------------
    def owns(self, t: Table) -> bool:
        """Whether this process runs ``t``'s bots and clock."""
        return not self.leases or t.id in self.owned

    async def _on_lease_thread(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` on the lease thread (the shared threads if leases are not started)."""
        if self._lease_thread is None:
            return await asyncio.to_thread(fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self._lease_thread, fn, *args)

    async def _lease_loop(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(LEASE_EVERY)
            want = [tid for tid, t in self.tables.items() if not t.game.is_over]
            done = {tid for tid in self.owned if tid not in self.tables or self.tables[tid].game.is_over}
            release = self._release | done
            try:
                got = await self._on_lease_thread(self.store.claim_leases, self.owner, want, LEASE_TTL,
                                                  sorted(release))
                orphans = await self._on_lease_thread(self.store.orphaned_tables, 20)
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
            self._release |= got - set(self.tables)  # evicted during the round
            if lost or gained or done:
                log.debug("leases of %s: lost %s, gained %s, done %s", self.owner, sorted(lost), sorted(gained),
                          sorted(done))
            self.owned = ((self.owned - lost - done) | got) & set(self.tables)
            for tid in lost:
                t = self.tables.get(tid)
                if t is not None and t.task is not None:
                    t.task.cancel()  # the other process runs it now (t.task is None while a move is stored)
                    t.task = None
            for tid in gained:
                t = self.tables.get(tid)
                if t is not None and t.task is None and not t.game.is_over:
                    log.info("table %s taken over by this process", tid)
                    self._schedule(t, hurry=True)
            for tid in orphans:  # a dead process's table that nobody here has loaded
                if tid not in self.tables and tid not in self._loading:
                    task = asyncio.create_task(self._adopt(tid))
                    self._adopting.add(task)
                    task.add_done_callback(self._adopting.discard)

    async def _adopt(self, table_id: str) -> None:
        try:
            await self.get(table_id)
        except ProtocolError as e:
            log.warning("table %s not taken over: %s", table_id, e.message)

    def _load(self, table_id: str) -> Table | None:
        info = self.store.get_table(table_id)
        if info is None:
            return None
        acts = self.store.load_actions(table_id)
        rec = GameRecord(rules=info.ruleset(), seed=info.seed, players=tuple(s["name"] for s in info.seats),
                         first=info.first, actions=())
        game = rec.initial()
        t = Table(info=info, game=game)
        t.log.extend((0, e) for e in game.opening_events)  # the first turn and its Rise (in Game(...))
        for a in acts:
            ev = game.apply(action_from_json(a.action))
            t.log.extend((a.seq, e) for e in ev)
            t.seq = a.seq
            if a.by != "human":
                t.via[a.seq] = a.by
            if a.client_id:
                t.client_ids[a.client_id] = a.seq
        # a seat whose player has moved has come (after a restart its clock goes on; a seat whose
        # player never came keeps waiting for them)
        t.joined = {a.seat for a in acts if a.by == "human"}
        for i, s in enumerate(info.seats):
            if s.get("kind") == "bot":
                t.bots[i], _ = bot_for(str(s.get("bot") or "random"), info.seed * 10 + i)
        return t

    async def _recover(self, t: Table) -> None:
        """After a failed write: reload the table from storage (the write may have landed
        before the connection broke) before any other move; refused while storage is down."""
        try:
            await self._reload(t)
        except Exception as e:
            raise ProtocolError("not_stored", "storage is not answering, so no move can be stored now (nothing "
                                f"changed): try again in a moment ({type(e).__name__})") from None
        t.unsure = False

    async def _reload(self, t: Table) -> None:
        """Rebuild a table from storage (after a conflict or a storage error); resend everyone's state."""
        fresh = await asyncio.to_thread(self._load, t.id)
        if fresh is None:
            return
        t.info, t.game, t.seq, t.log, t.client_ids, t.bots = (fresh.info, fresh.game, fresh.seq, fresh.log,
                                                              fresh.client_ids, fresh.bots)
        t.via, t.joined = fresh.via, t.joined | fresh.joined
        for c in list(t.conns):
            c.send(self.welcome(t, c.seat))

    # -- messages -------------------------------------------------------------------
    def clock_json(self, t: Table) -> dict[str, Any] | None:
        if t.deadline is None or t.game.pending is None:
            return None
        return {"seat": t.game.pending.player, "deadline": int(t.deadline * 1000), "seconds": t.info.clock}

    @staticmethod
    def entry(t: Table, seq: int, e: Event, seat: int | None) -> dict[str, Any]:
        """One log entry as ``seat`` may see it, with its action's number (and ``via`` for a bot
        or clock move)."""
        d = dict(e.to_json(seat), seq=seq)
        via = t.via.get(seq)
        if via is not None:
            d["via"] = via
        return d

    @staticmethod
    def final_json(t: Table) -> dict[str, Any] | None:
        """Once the game is over, every hand and CT is public (as the record is)."""
        if not t.game.is_over:
            return None
        outcome = t.game.outcome()
        assert outcome is not None
        truth = t.game.state_json()
        return {"hands": [p["hand"] for p in truth["players"]], "ct": list(outcome.ct),
                "winner": outcome.winner, "drawn": list(outcome.drawn), "outcome": outcome.to_json()}

    def replay_json(self, t: Table, seat: int | None) -> dict[str, Any]:
        """A finished game step by step as ``seat`` saw it (``None``: a spectator): each action's
        events redacted for that reader and the reader's view after it. Only for a game that is
        over (the record is public then), so a replay can never show a live game's hidden cards."""
        if not t.game.is_over:
            raise ProtocolError("not_over", "the replay is published when the game is over")
        if seat is not None and not 0 <= seat < len(t.info.seats):
            raise ProtocolError("bad_seat", f"this table has seats 0 to {len(t.info.seats) - 1} (counted from 0): not {seat}")
        g = t.game.record().initial()
        steps = [{"seq": 0, "by": None, "events": [dict(e.to_json(seat), seq=0) for e in g.opening_events],
                  "state": g.view(seat).to_json()}]
        for i, action in enumerate(t.game.record().actions, start=1):
            events = g.apply(action)
            who = action.player if action.player is not None else None
            steps.append({"seq": i, "by": {"seat": who, "via": t.via.get(i, "human")},
                          "events": [self.entry(t, i, e, seat) for e in events], "state": g.view(seat).to_json()})
        return {"table": t.summary(), "seat": seat, "steps": steps, "final": self.final_json(t)}

    @staticmethod
    def choices_json(t: Table, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may choose now (the engine's per-seat choices) and the decision's number,
        which a move names so that a late or doubled answer is refused."""
        c = t.game.choices(seat).to_json()
        for a in c.get("abilities", ()):
            a["text"] = ability_text(a["text"])
        return {"choices": c, "decision_number": t.game.decision_number}

    def welcome(self, t: Table, seat: int | None) -> dict[str, Any]:
        g = t.game
        w: dict[str, Any] = {
            "v": VERSION, "type": "welcome", "seat": seat, "table": t.summary(), "seq": t.seq,
            "state": g.view(seat).to_json(), **self.choices_json(t, seat),
            "log": [self.entry(t, s, e, seat) for s, e in t.log[-LOG_TAIL:]],
            "clock": self.clock_json(t),
        }
        final = self.final_json(t)
        if final is not None:
            w["final"] = final
        return w

    def _broadcast_update(self, t: Table, seq: int, events: list[Event], seat: int, via: str) -> None:
        built: dict[int | None, str] = {}
        clock = self.clock_json(t)
        final = self.final_json(t)
        for c in list(t.conns):
            text = built.get(c.seat)
            if text is None:
                msg = {"v": VERSION, "type": "update", "seq": seq, "by": {"seat": seat, "via": via},
                       "events": [self.entry(t, seq, e, c.seat) for e in events],
                       "state": t.game.view(c.seat).to_json(), **self.choices_json(t, c.seat), "clock": clock}
                if final is not None:
                    msg["final"] = final
                text = built[c.seat] = json.dumps(msg, separators=(",", ":"))
            c.send_text(text)
            if self.on_frame is not None:
                self.on_frame(c, json.loads(text))

    def _broadcast(self, t: Table, msg: dict[str, Any]) -> None:
        text = json.dumps(msg, separators=(",", ":"))
        for c in list(t.conns):
            c.send_text(text)

    def _presence(self, t: Table) -> None:
        self._broadcast(t, {"v": VERSION, "type": "presence", "connected": t.connected(), "clock": self.clock_json(t)})

    # -- client messages ------------------------------------------------------------
    async def handle(self, conn: Conn, raw: str | bytes) -> None:
        """One frame from a client; every problem becomes an error reply, never an exception.

        With a rate limit, frames past it are dropped unread (nothing changes); the client
        is told so at most once a second, and one that keeps on is disconnected."""
        if self.rate_limit is not None:
            now = time.monotonic()
            if not conn.allow(self.rate_limit, now):
                conn.dropped += 1
                if conn.dropped >= self.MAX_DROPPED:
                    conn.send(error("rate_limited", "too many messages: disconnected"))
                    conn.close()
                elif now - conn.noticed >= 1.0:
                    conn.noticed = now
                    conn.send(error("rate_limited", f"more than {self.rate_limit:g} messages a second: messages "
                                                    "are dropped unread until they slow down (nothing was changed)"))
                return
            conn.dropped = 0
        try:
            msg = parse_client(raw)
        except ProtocolError as e:
            conn.send(error(e.code, e.message))
            return
        try:
            if msg.type == "hello":
                await self.hello(conn, msg)
            elif msg.type == "action":
                await self.action(conn, msg)
            elif msg.type == "rematch":
                await self.rematch(conn)
            else:
                conn.send({"v": VERSION, "type": "pong", "t": int(time.time() * 1000)})
        except ProtocolError as e:
            conn.send(error(e.code, e.message, getattr(msg, "id", None)))
        except Exception as e:  # never drop a connection over a server bug
            log.exception("error handling a message")
            conn.send(error("server", f"internal error: {type(e).__name__}", getattr(msg, "id", None)))

    async def hello(self, conn: Conn, msg: Hello) -> None:
        t = await self.get(msg.table)
        if t is None:
            raise ProtocolError("no_table", f"there is no table {msg.table!r}")
        seat: int | None = None
        if msg.token is not None:
            seat = t.seat_of(msg.token)
            if seat is None:
                raise ProtocolError("bad_token", "this seat token is not valid for this table (ask for a new invite link)")
        if conn.table is t:
            t.conns.discard(conn)  # a new hello on the same table: change seat, keep the table
        else:
            self.disconnect(conn)
        async with t.lock:
            conn.table, conn.seat = t, seat
            t.conns.add(conn)
            t.touched = time.monotonic()
            if seat is not None:
                t.joined.add(seat)  # its clock may run from now on (never before its player came)
            if t.task is None and not t.game.is_over:
                self._schedule(t)  # take the table over if nobody here runs its next bot move or clock
            w = self.welcome(t, seat)
            missed = t.missed.pop(seat, 0) if seat is not None else 0
            if missed:
                w["missed_clock"] = missed  # told on return: the clock decided for this seat while away
            conn.send(w)
            if self.on_frame is not None:
                self.on_frame(conn, w)
        self._presence(t)

    def disconnect(self, conn: Conn) -> None:
        t = conn.table
        if t is not None:
            t.conns.discard(conn)
            conn.table = None
            conn.seat = None
            self._presence(t)
            t.touched = time.monotonic()
            if not t.conns and self._idle(t):
                # nobody watches and nothing runs: forget it (it is rebuilt from storage when asked for)
                self._evict(t)

    @staticmethod
    def _idle(t: Table) -> bool:
        """Nothing will happen at this table until a player acts (no bot to move, no clock)."""
        if t.lock.locked():
            return False
        pending = t.game.pending
        if pending is None:
            return True
        return t.info.seats[pending.player].get("kind") != "bot" and (not t.info.clock or pending.player not in t.joined)

    async def action(self, conn: Conn, msg: ActionMsg) -> None:
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table and a seat token first")
        seat = conn.seat
        if seat is None:
            raise ProtocolError("spectator", "a spectator cannot play: use a seat's invite link")
        if not isinstance(msg.action.get("do"), str):
            raise ProtocolError("bad_action", "an action names what it does in 'do', a string such as "
                                f"\"pass\", \"basic\" or \"meld\"; got {str(msg.action.get('do'))[:40]!r}")
        try:
            raw = dict(msg.action)
            if raw.get("player") is not None and raw.get("player") != seat:
                raise ProtocolError("wrong_seat", f"you hold {t.name(seat)}'s seat and may move only for it")
            raw["player"] = seat
            action = action_from_json(raw)
        except ActionFormatError as e:
            raise ProtocolError("bad_action", str(e)) from None
        await self.submit(t, seat, action, client_id=msg.id, by="human", conn=conn, decision=msg.decision)

    async def submit(self, t: Table, seat: int, action: Action, client_id: str | None, by: str,
                     conn: Conn | None = None, expect_seq: int | None = None,
                     decision: int | None = None) -> int | None:
        """Apply, commit, acknowledge, broadcast. Returns the action's number (None if skipped)."""
        # action ids are the client's choice: scoped by seat, so seats cannot collide
        key = f"{seat}:{client_id}" if client_id is not None else None
        async with t.lock:
            if expect_seq is not None and t.seq != expect_seq:
                return None  # a bot or clock move made stale by another move
            if key is not None and key in t.client_ids:
                if conn is not None:
                    conn.send({"v": VERSION, "type": "ack", "id": client_id, "seq": t.client_ids[key],
                               "duplicate": True})
                return t.client_ids[key]
            if t.unsure:  # a write failed: whether it landed is known only once storage answers again
                await self._recover(t)
                if key is not None and key in t.client_ids:  # it had landed after all
                    if conn is not None:
                        conn.send({"v": VERSION, "type": "ack", "id": client_id, "seq": t.client_ids[key],
                                   "duplicate": True})
                    return t.client_ids[key]
                if expect_seq is not None and t.seq != expect_seq:
                    return None
            if t.game.is_over:
                raise ProtocolError("game_over", "the game is over: no more decisions are taken")
            pending = t.game.pending
            assert pending is not None
            if pending.player != seat:
                raise ProtocolError("not_your_turn",
                                    f"it is not your turn: {t.name(pending.player)} decides now "
                                    f"({pending.kind.replace('_', ' ')})")
            # the move is played on a copy, which replaces the game only once it is stored: a
            # write that fails leaves the table exactly as it was
            g = t.game.clone()
            try:
                events = g.apply(action, decision=decision)
            except StaleDecisionError:  # a late or doubled answer (two tabs, a resend after a move)
                raise ProtocolError("stale", STALE) from None
            except IllegalActionError as e:
                raise ProtocolError("illegal", str(e)) from None
            seq = t.seq + 1
            a = Append(t.id, seq, seat, action.to_json(), key, by, over=g.is_over, winner=g.winner)
            try:
                await self.committer.commit(a)
            except ConflictError:
                t.unsure = True
                await self._recover(t)
                if key is not None and key in t.client_ids:
                    if conn is not None:
                        conn.send({"v": VERSION, "type": "ack", "id": client_id, "seq": t.client_ids[key],
                                   "duplicate": True})
                    return t.client_ids[key]
                raise ProtocolError("conflict", "another move was made first; your view has been refreshed") from None
            except StorageError as e:
                t.unsure = True
                log.warning("table %s: move %d not stored: %s", t.id, seq, e)
                raise ProtocolError("not_stored", "the move was not stored (storage is not answering), so nothing "
                                    "changed: try again in a moment") from None
            t.game = g
            t.seq = seq
            t.touched = time.monotonic()
            if by != "human":
                t.via[seq] = by
            if by == "clock" and not any(c.seat == seat for c in t.conns):
                t.missed[seat] = t.missed.get(seat, 0) + 1
            t.log.extend((seq, e) for e in events)
            if key is not None:
                t.client_ids[key] = seq
            if g.is_over:
                t.info = _with(t.info, status="over", winner=g.winner, num_actions=seq)
            if conn is not None and client_id is not None:
                conn.send({"v": VERSION, "type": "ack", "id": client_id, "seq": seq, "duplicate": False})
            self._schedule(t, broadcast_first=(seq, events, seat, by))
            return seq

    # -- bots and clocks -------------------------------------------------------------
    def _schedule(self, t: Table, broadcast_first: tuple[int, list[Event], int, str] | None = None,
                  own: bool = True, hurry: bool = False) -> None:
        """After a change: set the clock (so the update carries it), broadcast, start the next bot/clock.

        ``own=False`` (a move that another process committed, without leases): that process
        runs the next bot move or clock, this one only shows the clock. With leases (several
        processes on PostgreSQL) only the lease's holder runs them. ``hurry``: a table just
        taken over from a dead process, whose bot has waited already: it moves at once.
        """
        if t.task is not None and t.task_seq != t.seq:
            t.task.cancel()
            t.task = None
        own = own and self.owns(t)
        g = t.game
        if t.task is None:
            t.deadline = None
        pending = g.pending
        if pending is not None and t.task is None:
            seat = pending.player
            kind = t.info.seats[seat].get("kind")
            if not own:
                if kind != "bot" and t.info.clock and seat in t.joined:
                    t.deadline = time.time() + t.info.clock
            elif kind == "bot":
                delay = self.bot_delay * random.uniform(0.6, 1.4) if self.bot_delay > 0 and not hurry else 0.0
                t.task = asyncio.create_task(self._bot_move(t, seat, t.seq, delay))
                t.task_seq = t.seq
            elif t.info.clock and seat in t.joined:  # a seat's clock runs once its player has come
                t.deadline = time.time() + t.info.clock
                t.task = asyncio.create_task(self._clock(t, seat, t.seq, float(t.info.clock)))
                t.task_seq = t.seq
        if broadcast_first is not None:
            self._broadcast_update(t, *broadcast_first)

    async def _bot_move(self, t: Table, seat: int, seq: int, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            if t.seq != seq or t.game.to_move != seat:
                return
            bot = t.bots.get(seat) or bot_for("random", None)[0]
            if bot.name == "random":
                action = decide(bot, t.game)
            else:
                action = await self._think(t, seat, bot, t.game.clone())
            t.task = None
            await self.submit(t, seat, action, client_id=None, by="bot", expect_seq=seq)
        except asyncio.CancelledError:
            raise
        except ProtocolError as e:
            log.warning("bot move refused on table %s: %s", t.id, e)
            if e.code == "not_stored":
                self._retry_later(t)
        except Exception:
            log.exception("bot move failed on table %s", t.id)

    def _retry_later(self, t: Table, delay: float = 1.0) -> None:
        """A bot or clock move that storage refused is tried again once it may answer."""
        def again() -> None:
            if self.tables.get(t.id) is t and t.task is None:
                self._schedule(t)

        asyncio.get_running_loop().call_later(delay, again)

    async def _think(self, t: Table, seat: int, bot: Bot, snapshot: Game) -> Action:
        """The bot's decision, off the event loop: a search bot in the worker processes (its
        copy there comes back with its random source moved on), any other in a thread."""
        if bot.slow and self.bot_processes:
            try:
                if self._pool is None:
                    self._pool = ProcessPoolExecutor(self.bot_processes, mp_context=multiprocessing.get_context("spawn"))
                action, moved = await asyncio.get_running_loop().run_in_executor(
                    self._pool, decide_and_return, bot, snapshot)
                t.bots[seat] = moved
                return action
            except BrokenProcessPool:  # a worker died (killed, out of memory): this move is thought
                # in a thread, and the next one starts a fresh pool
                log.warning("the bot worker processes broke; table %s's bot thinks in a thread", t.id)
                broken, self._pool = self._pool, None
                if broken is not None:
                    broken.shutdown(wait=False, cancel_futures=True)
        return await asyncio.to_thread(decide, bot, snapshot)

    async def _clock(self, t: Table, seat: int, seq: int, seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
            if t.seq != seq or t.game.to_move != seat:
                return
            bot, level = bot_for(self.clock_bot, None)
            action = decide(bot, t.game.clone())
            self._broadcast(t, {"v": VERSION, "type": "notice", "kind": "clock", "seat": seat,
                                "text": f"{t.name(seat)}'s clock ran out: the {level} bot decided for them"})
            t.task = None
            await self.submit(t, seat, action, client_id=None, by="clock", expect_seq=seq)
        except asyncio.CancelledError:
            raise
        except ProtocolError as e:
            log.warning("clock move refused on table %s: %s", t.id, e)
            if e.code == "not_stored":
                self._retry_later(t)
        except Exception:
            log.exception("clock move failed on table %s", t.id)

    # -- rematch --------------------------------------------------------------------
    async def rematch(self, conn: Conn) -> None:
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table and a seat token first")
        if conn.seat is None:
            raise ProtocolError("spectator", "only a seated player can ask for a rematch")
        if not t.game.is_over:
            raise ProtocolError("not_over", "a rematch can start only when the game is over")
        async with t.lock:
            if t.info.rematch is None:
                info = t.info
                new_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
                await asyncio.to_thread(
                    self.store.create_table, id=new_id, name=info.name, rules=info.rules,
                    seed=secrets.randbits(SECRET_BITS), seats=info.seats, clock=info.clock,
                    first=(info.first + 1) % len(info.seats), rematch_of=info.id,
                    lease=(self.owner, LEASE_TTL) if self.leases else None)
                got = await asyncio.to_thread(self.store.set_rematch, info.id, new_id)
                t.info = _with(info, rematch=got)
            self._broadcast(t, {"v": VERSION, "type": "rematch", "table": t.info.rematch})

    # -- invite links ---------------------------------------------------------------
    async def reissue(self, table_id: str, seat: int, token: str) -> str:
        """A new token for ``seat``, asked by its holder (``token``, the current one): the old one
        stops working and every connection holding the seat with it is closed."""
        t = await self.get(table_id)
        if t is None:
            raise ProtocolError("no_table", f"there is no table {table_id!r}")
        if not 0 <= seat < len(t.info.seats) or t.info.seats[seat].get("kind") != "human":
            raise ProtocolError("bad_seat", f"seat {seat} of this table is not a player's seat")
        if t.seat_of(token) != seat:
            raise ProtocolError("bad_token", "only the holder of this seat's current invite link may replace it")
        new = secrets.token_urlsafe(18)
        async with t.lock:
            try:
                seats = await asyncio.to_thread(self.store.set_seat_token, table_id, seat, token_digest(token),
                                                token_digest(new))
            except Exception as e:
                log.warning("table %s: the seat token could not be replaced: %s: %s", table_id, type(e).__name__, e)
                raise ProtocolError("unavailable", "the new link could not be stored (storage is not answering); "
                                    "the old one still works: try again in a moment") from None
            if seats is None:
                raise ProtocolError("bad_token", "this invite link was replaced already: use the newest one")
            t.info = _with(t.info, seats=seats)
        self._revoked(t, {seat})
        return new

    def _revoked(self, t: Table, seats: set[int]) -> None:
        """Close the connections holding ``seats`` with their old tokens (told why first)."""
        for c in list(t.conns):
            if c.seat in seats:
                c.send(error("revoked", f"{t.name(c.seat)}'s invite link was replaced by its holder: this link no "
                             "longer works (open the new one)"))
                self.disconnect(c)
                c.close()

    # -- other processes (PostgreSQL NOTIFY) ------------------------------------------
    def _notified(self, table_id: str, seq: int) -> None:
        loop = self.loop
        if loop is None or table_id not in self.tables:
            return
        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.catch_up(table_id, seq)))

    async def catch_up(self, table_id: str, seq: int) -> None:
        t = self.tables.get(table_id)
        if t is None:
            return
        if seq == 0:  # the table changed (a rematch or a new invite link, by another process)
            info = await asyncio.to_thread(self.store.get_table, table_id)
            if info is None:
                return
            changed = {i for i, (a, b) in enumerate(zip(t.info.seats, info.seats, strict=False))
                       if a.get("token_sha256") != b.get("token_sha256")}
            if changed:
                t.info = _with(t.info, seats=info.seats)
                self._revoked(t, changed)
            if info.rematch and t.info.rematch is None:
                t.info = _with(t.info, rematch=info.rematch)
                self._broadcast(t, {"v": VERSION, "type": "rematch", "table": info.rematch})
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
                    await self._reload(t)
                    return
                t.seq = a.seq
                if a.by != "human":
                    t.via[a.seq] = a.by
                t.log.extend((a.seq, e) for e in events)
                if a.client_id:
                    t.client_ids[a.client_id] = a.seq
                if t.game.is_over:
                    t.info = _with(t.info, status="over", winner=t.game.winner, num_actions=a.seq)
                # with leases, the process holding the table's lease runs its next bot move or clock;
                # without, the process that stored the move does
                self._schedule(t, broadcast_first=(a.seq, events, a.seat, a.by), own=self.leases)


def _with(info: TableInfo, **changes: Any) -> TableInfo:
    from dataclasses import replace

    return replace(info, **changes)
