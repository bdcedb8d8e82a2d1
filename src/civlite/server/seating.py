"""Open seats: a table's creator may leave seats open; anyone takes one from the lobby (first
come: the seat's token is issued to them). The game starts when every seat is taken, or when
the creator starts it with bots in the seats still open."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .botspecs import check_bot_spec
from .lobby import BOT_NAMES, new_token
from .names import safe_name
from .protocol import ProtocolError
from .ratings import RATED_LEVELS
from .registry import Registry
from .social_store import SocialStore
from .state import Table, token_digest
from .storage import Store
from .turns import Turns

log = logging.getLogger("civlite.server")


class Seating:
    def __init__(self, store: Store, social: SocialStore, registry: Registry, turns: Turns) -> None:
        self.store = store
        self.social = social
        self.registry = registry
        self.turns = turns

    async def _table(self, table_id: str) -> Table:
        t = await self.registry.get(table_id)
        if t is None:
            raise ProtocolError("no_table", f"there is no table {table_id!r}")
        return t

    async def _changed(self, t: Table, change: Any) -> None:
        """Store a change of the seats, then rebuild the table (its game has the new names) and
        start it when it is playing now."""
        try:
            info = await asyncio.to_thread(self.store.change_seats, t.id, change)
        except ProtocolError:
            raise
        except Exception as e:
            log.warning("table %s: the seats could not be changed: %s: %s", t.id, type(e).__name__, e)
            raise ProtocolError("unavailable", "the seat could not be stored (storage is not answering): "
                                "nothing changed, try again in a moment") from None
        if info is None:
            raise ProtocolError("seat_taken", "someone else took that seat first: choose another one")
        await self.registry.reload(t)
        if t.info.status == "playing":
            self.turns.schedule(t)

    async def take(self, table_id: str, seat: int | None, name: str | None, key: str | None) -> tuple[int, str]:
        """Take an open seat (``seat``, or the first one open); returns the seat and its token."""
        t = await self._table(table_id)
        if t.info.status != "waiting":
            raise ProtocolError("not_open", "this table has no open seat: its game has started (watch it instead)")
        profile = None
        if key is not None:
            profile = await asyncio.to_thread(self.social.profile_by_key, key)
            if profile is None:
                raise ProtocolError("bad_key", "this profile key is not valid (it may have been replaced): "
                                    "restore the profile from its newest link")
        if t.info.rated and profile is None:
            raise ProtocolError("needs_profile", "a rated table's seats are taken with a profile (make one first)")
        if profile is not None and any(s.get("profile") == profile.id for s in t.info.seats):
            raise ProtocolError("already_seated", "your profile holds a seat at this table already")
        token = new_token()
        chosen: list[int] = []

        def change(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str] | None:
            if status != "waiting":
                return None
            open_ = [i for i, s in enumerate(seats) if s.get("kind") == "open"]
            if not open_ or (seat is not None and seat not in open_):
                return None
            i = seat if seat is not None else open_[0]
            given = safe_name(name) or (profile.name if profile is not None else "")
            taken = {str(s.get("name")) for s in seats}
            nick = given or next(f"Player {k}" for k in range(1, 10) if f"Player {k}" not in taken)
            seats[i] = {"kind": "human", "bot": None, "name": nick, "token_sha256": token_digest(token),
                        **({"profile": profile.id} if profile is not None else {})}
            chosen.append(i)
            return seats, "waiting" if len(open_) > 1 else "playing"

        async with t.lock:
            await self._changed(t, change)
        return chosen[0], token

    async def start(self, table_id: str, host: str, bot: str) -> None:
        """The creator starts the table now: bots of ``bot`` in the seats still open."""
        t = await self._table(table_id)
        digest = t.info.options.get("host_sha256")
        if not digest or token_digest(host) != digest:
            raise ProtocolError("not_host", "only the table's creator (with the link it was given) may start it early")
        if t.info.status != "waiting":
            raise ProtocolError("not_open", "this table's game has started already")
        try:
            level = check_bot_spec(bot)
        except ValueError as e:
            raise ProtocolError("bad_bot", f"the bots for the open seats: {e}") from None
        if t.info.rated and level not in RATED_LEVELS:
            raise ProtocolError("bad_bot", f"a rated table's bots are the ladder's levels ({', '.join(RATED_LEVELS)}): "
                                f"{bot!r} has no fixed rating")

        def change(seats: list[dict[str, Any]], status: str) -> tuple[list[dict[str, Any]], str] | None:
            if status != "waiting":
                return None
            names = iter(n for n in BOT_NAMES if n not in {str(s.get("name")) for s in seats})
            for i, s in enumerate(seats):
                if s.get("kind") == "open":
                    seats[i] = {"kind": "bot", "bot": level, "name": next(names, f"Bot {i + 1}")}
            return seats, "playing"

        async with t.lock:
            await self._changed(t, change)
