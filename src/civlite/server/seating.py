"""Open seats: a table's creator may leave seats open; anyone takes one from the lobby (first
come: the seat's token is issued to them). The game starts when every seat is taken, or when
the creator starts it with bots in the seats still open."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from .botspecs import check_bot_spec
from .lobby import BOT_NAMES, company_refusal, new_token
from .names import safe_name
from .protocol import ProtocolError
from .ratings import RATED_LEVELS
from .registry import Registry
from .social_store import SocialStore
from .state import Table, token_digest
from .storage import Store, TableChange
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

    async def _changed(self, t: Table, change: Callable[[TableChange], bool],
                       refusal: list[ProtocolError] | None = None) -> None:
        """Store a change of the seats (``refusal``: where ``change`` puts why it declined),
        then rebuild the table (its game has the new names) and start it when it is playing now."""
        try:
            info = await asyncio.to_thread(self.store.change_table, t.id, change)
        except ProtocolError:
            raise
        except Exception as e:
            log.warning("table %s: the seats could not be changed: %s: %s", t.id, type(e).__name__, e)
            raise ProtocolError("unavailable", "the seat could not be stored (storage is not answering): "
                                "nothing changed, try again in a moment") from None
        if info is None:
            if refusal:
                raise refusal[0]
            raise ProtocolError("seat_taken", "someone else took that seat first: choose another one")
        await self.registry.reload(t)
        if t.info.status == "playing":
            self.turns.schedule(t)

    async def take(self, table_id: str, seat: int | None, name: str | None, key: str | None) -> tuple[int, str]:
        """Take an open seat (``seat``, or the first one open); returns the seat and its token.

        Every check that depends on the seats (one seat a profile, blocks, a rated pair's limit,
        names distinct) runs inside the change of the stored seats, behind the table row's lock,
        so takers racing each other, in one process or several, see each other's seats."""
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
        given = safe_name(name)[:40]
        if profile is None and given and await asyncio.to_thread(self.social.handle_taken, given):
            raise ProtocolError("name_taken", f"{given!r} is a player's handle: take the seat with that profile, or "
                                "choose another name")
        token = new_token()
        chosen: list[int] = []
        refusal: list[ProtocolError] = []

        def change(c: TableChange) -> bool:
            if c.status != "waiting":
                refusal.append(ProtocolError("not_open", "this table's game has started: watch it instead"))
                return False
            seats = c.seats
            open_ = [i for i, s in enumerate(seats) if s.get("kind") == "open"]
            if not open_ or (seat is not None and seat not in open_):
                return False
            if profile is not None:
                others = [str(s["profile"]) for s in seats if s.get("profile")]
                if profile.id in others:
                    refusal.append(ProtocolError("already_seated", "your profile holds a seat at this table already"))
                    return False
                refused = company_refusal(self.social, [profile.id, *others], t.info.rated)
                if refused is not None:
                    refusal.append(refused)
                    return False
            i = seat if seat is not None else open_[0]
            taken = {str(s.get("name")).casefold() for s in seats if s.get("kind") != "open"}
            nick = profile.name if profile is not None else given
            if nick and nick.casefold() in taken:
                refusal.append(ProtocolError("name_taken", f"a seat at this table is named {nick!r} already: choose "
                                             "another name"))
                return False
            nick = nick or next(f"Player {k}" for k in range(1, 10) if f"player {k}" not in taken)
            seats[i] = {"kind": "human", "bot": None, "name": nick, "token_sha256": token_digest(token),
                        **({"profile": profile.id} if profile is not None else {})}
            chosen.append(i)
            c.status = "waiting" if len(open_) > 1 else "playing"
            return True

        async with t.lock:
            await self._changed(t, change, refusal)
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

        def change(c: TableChange) -> bool:
            if c.status != "waiting":
                return False
            seats = c.seats
            names = iter(n for n in BOT_NAMES if n not in {str(s.get("name")) for s in seats})
            for i, s in enumerate(seats):
                if s.get("kind") == "open":
                    seats[i] = {"kind": "bot", "bot": level, "name": next(names, f"Bot {i + 1}")}
            c.status = "playing"
            return True

        async with t.lock:
            await self._changed(t, change)
