"""Table manager: the authoritative games of this server process, their seats, bots, clocks
and connections, as one facade over the parts that each keep one of them.

Every message a connection receives is built by :mod:`.protocol`, from ``game.view(seat)``
and ``event.to_json(seat)`` for that connection's seat (``None`` for a spectator) and from
public table facts. A move is applied, committed to storage, and only then acknowledged and
broadcast (:mod:`.moves`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..engine import Action, RuleSet
from .bodies import CreateTable
from .bot_moves import BotMoves
from .botspecs import BOT_LEVELS, MAX_BOT_SECONDS, bot_for, check_bot_spec
from .broadcast import Broadcaster
from .catchup import CatchUp
from .chat import Chat
from .clocks import Clocks
from .committer import Committer
from .housekeeping import ABANDONED_SECONDS, CLOSE_SECONDS, Housekeeping
from .invites import Invites
from .leases import Leases
from .leaving import STALL_SECONDS, Leaving
from .lobby import BOT_NAMES, RATED_RULES, RULESETS, Lobby
from .moves import Moves
from .notify import Notifier, SmtpSettings
from .profiles import Profiles
from .ratings import Ratings, decided
from .registry import Registry
from .seating import Seating
from .sessions import Sessions
from .social_store import SocialStore
from .state import Conn, Table
from .storage import Store, TableInfo
from .turnbased import TurnBased
from .turns import Turns

__all__ = ["BOT_LEVELS", "MAX_BOT_SECONDS", "Conn", "Manager", "Table", "bot_for", "check_bot_spec"]


class Manager:
    """All tables of this server process.

    ``listen``: apply other processes' moves (PostgreSQL NOTIFY); ``leases``: only the holder
    of a table's lease runs its bots and clock (both default to whether storage is
    PostgreSQL). ``bot_processes``: worker processes for search bots (None: one per core;
    0: threads). ``rate_limit``: messages a second per connection (None: off).
    ``stall_seconds``: how long a player may sit on a decision while away before the others
    may vote to end the game. ``smtp``: the SMTP server that sends turn mails (None: no mail)."""

    def __init__(self, store: Store, bot_delay: float = 0.8, listen: bool | None = None,
                 clock_bot: str | None = None, rate_limit: float | None = None,
                 bot_processes: int | None = None, idle_seconds: float = 60.0,
                 leases: bool | None = None, abandoned_seconds: float = ABANDONED_SECONDS,
                 close_seconds: float = CLOSE_SECONDS, rulesets: Mapping[str, RuleSet] | None = None,
                 stall_seconds: float = STALL_SECONDS, rated_rules: str = RATED_RULES,
                 smtp: SmtpSettings | None = None) -> None:
        self.store = store
        #: the rule sets a new table may take, by name (the lobby's own and an operator's)
        self.rulesets: Mapping[str, RuleSet] = rulesets if rulesets is not None else RULESETS
        leased = store.is_postgres if leases is None else leases
        self.broadcaster = Broadcaster()
        self.committer = Committer(store)
        self.social = SocialStore(store)
        self.ratings = Ratings(self.social)
        self.registry = Registry(store, self.broadcaster, idle_seconds, claim=lambda t: self.leases.claim(t),
                                 schedule=self._loaded, forget=lambda t: self.leases.forget(t))
        self.leases = Leases(store, self.registry, leased, take_over=lambda t: self.turns.schedule(t, hurry=True))
        self.bots = BotMoves(bot_processes)
        self.turns = Turns(self.registry, self.broadcaster, self.leases, self.bots,
                           Clocks(self.broadcaster, clock_bot), submit=self._submit, bot_delay=bot_delay)
        self.moves = Moves(self.registry, self.committer, self.turns, ended=self._ended)
        self.lobby = Lobby(store, self.social, self.registry, self.leases, self.rulesets, rated_rules)
        self.chat = Chat(self.social)
        self.seating = Seating(store, self.social, self.registry, self.turns)
        self.housekeeping = Housekeeping(store, self.registry, self.broadcaster, abandoned_seconds, close_seconds,
                                         ended=self._ended)
        self._rating: set[asyncio.Task[None]] = set()
        self.invites = Invites(store, self.registry, self.broadcaster, self.leases)
        self.profiles = Profiles(self.social, reserved=BOT_NAMES, rotate_seats=self._rotate_seats)
        self.leaving = Leaving(store, self.registry, self.broadcaster, self.turns, ended=self._ended,
                               stall_seconds=stall_seconds)
        self.catchup = CatchUp(store, self.registry, self.broadcaster, self.invites, self.turns, self.chat,
                               changed=self.leaving.after_change,
                               listen=store.is_postgres if listen is None else listen, leases=leased)
        self.turn_based = TurnBased(store, self.social, self.registry, self.broadcaster, self.leaving)
        self.notifier = Notifier(store, self.social, smtp)
        self.turns.on_turn = self.notifier.turn
        self.turns.on_timeout = self.turn_based.timed_out
        self.sessions = Sessions(self.registry, self.broadcaster, self.turns, self.moves, self.invites, self.chat,
                                 self.leaving, rate_limit if rate_limit else None)

    def _loaded(self, t: Table) -> None:
        """A table just loaded: its next bot move or clock; a rated game that ended (or was
        closed with a seat to blame) and is not rated yet (the server stopped in between) is
        rated now."""
        self.turns.schedule(t)
        if t.info.rated and decided(t):
            self._ended(t)

    async def _rotate_seats(self, profile_id: str) -> list[tuple[str, int, str]]:
        """New tokens for the seats ``profile_id`` holds at unfinished tables (its key was replaced)."""
        out = []
        for table_id, seat in await asyncio.to_thread(self.social.seats_in_play, profile_id):
            token = await self.invites.rotate(table_id, seat, profile_id)
            if token is not None:
                out.append((table_id, seat, token))
        return out

    def _ended(self, t: Table) -> None:
        if t.info.rated:
            task = asyncio.create_task(self.ratings.rate(t))
            self._rating.add(task)
            task.add_done_callback(self._rating.discard)

    def _submit(self, t: Table, seat: int, action: Action, client_id: str | None, by: str, *,
                expect_seq: int | None = None) -> Awaitable[int | None]:
        return self.moves.submit(t, seat, action, client_id, by, expect_seq=expect_seq)

    # -- life cycle -----------------------------------------------------------------
    async def start(self) -> None:
        self.committer.start()
        self.catchup.start()
        self.registry.start()
        self.leases.start()
        self.housekeeping.start()

    async def stop(self) -> None:
        self.catchup.stop()
        self.housekeeping.stop()
        self.registry.stop()
        await self.leases.stop()
        self.registry.close()
        await self.committer.stop()
        self.bots.stop()
        self.notifier.stop()

    # -- what the app and other callers use -------------------------------------------
    @property
    def tables(self) -> dict[str, Table]:
        return self.registry.tables

    @property
    def owner(self) -> str:
        return self.leases.owner

    @property
    def owned(self) -> set[str]:
        return self.leases.owned

    @property
    def on_frame(self) -> Callable[[Conn, dict[str, Any]], None] | None:
        """A hook that sees each welcome and update sent (tests)."""
        return self.broadcaster.on_frame

    @on_frame.setter
    def on_frame(self, hook: Callable[[Conn, dict[str, Any]], None] | None) -> None:
        self.broadcaster.on_frame = hook

    def owns(self, t: Table) -> bool:
        """Whether this process runs ``t``'s bots and clock."""
        return self.leases.owns(t)

    async def create_table(self, spec: CreateTable) -> tuple[TableInfo, list[str | None]]:
        """A new table and each seat's token (``None`` for a bot or an open seat)."""
        info, tokens, _host = await self.lobby.create_table(spec)
        return info, tokens

    async def create(self, spec: CreateTable) -> tuple[TableInfo, list[str | None], str | None]:
        """A new table, each seat's token and, when seats are open, the host token that starts it early."""
        return await self.lobby.create_table(spec)

    async def take_seat(self, table_id: str, seat: int | None, name: str | None, key: str | None) -> tuple[int, str]:
        return await self.seating.take(table_id, seat, name, key)

    async def start_table(self, table_id: str, host: str, bot: str) -> None:
        await self.seating.start(table_id, host, bot)

    async def get(self, table_id: str) -> Table | None:
        return await self.registry.get(table_id)

    def sweep(self, idle_seconds: float | None = None) -> int:
        return self.registry.sweep(idle_seconds)

    async def handle(self, conn: Conn, raw: str | bytes) -> None:
        await self.sessions.handle(conn, raw)

    def disconnect(self, conn: Conn) -> None:
        self.registry.disconnect(conn)

    async def reissue(self, table_id: str, seat: int, token: str) -> str:
        return await self.invites.reissue(table_id, seat, token)

    async def catch_up(self, table_id: str, seq: int) -> None:
        await self.catchup.catch_up(table_id, seq)
