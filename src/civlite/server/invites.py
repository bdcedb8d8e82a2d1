"""A seat's invite link replaced by its holder (the old one's connections closed), and the
rematch of a finished game: its new table, announced at the old one."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from . import protocol
from .broadcast import Broadcaster
from .leases import Leases
from .lobby import new_table_id, new_token, secret_seed
from .protocol import ProtocolError
from .registry import Registry
from .social_store import PAIR_GAMES, SocialStore
from .state import Conn, Table, token_digest
from .storage import Store

log = logging.getLogger("civlite.server")


class Invites:
    def __init__(self, store: Store, registry: Registry, broadcaster: Broadcaster, leases: Leases) -> None:
        self.store = store
        self.social = SocialStore(store)
        self.registry = registry
        self.broadcaster = broadcaster
        self.leases = leases

    async def reissue(self, table_id: str, seat: int, token: str) -> str:
        """A new token for ``seat``, asked by its holder (``token``, the current one): the old one
        stops working and every connection holding the seat with it is closed."""
        t = await self.registry.get(table_id)
        if t is None:
            raise ProtocolError("no_table", f"there is no table {table_id!r}")
        if not 0 <= seat < len(t.info.seats) or t.info.seats[seat].get("kind") != "human":
            raise ProtocolError("bad_seat", f"seat {seat} of this table is not a player's seat")
        if t.seat_of(token) != seat:
            raise ProtocolError("bad_token", "only the holder of this seat's current invite link may replace it")
        new = new_token()
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
            t.info = replace(t.info, seats=seats)
        self.revoke(t, {seat})
        return new

    async def rotate(self, table_id: str, seat: int, profile_id: str) -> str | None:
        """A new token for ``seat`` of an unfinished table, held by ``profile_id`` (whose key was
        just replaced): every link and connection made with the old token stops working. None
        when the profile no longer holds that seat."""
        t = await self.registry.get(table_id)
        if t is None or t.info.status not in ("waiting", "playing"):
            return None
        new = new_token()
        async with t.lock:
            s = t.info.seats[seat] if 0 <= seat < len(t.info.seats) else {}
            old = s.get("token_sha256")
            if s.get("profile") != profile_id or s.get("kind") != "human" or not old:
                return None
            seats = await asyncio.to_thread(self.store.set_seat_token, table_id, seat, str(old), token_digest(new))
            if seats is None:
                return None
            t.info = replace(t.info, seats=seats)
        self.revoke(t, {seat}, "this seat's profile key was replaced: its old links no longer work (sign in with "
                               "the new key to play on)")
        return new

    def revoke(self, t: Table, seats: set[int], why: str | None = None) -> None:
        """Close the connections holding ``seats`` with their old tokens (told why first)."""
        for c in list(t.conns):
            if c.seat in seats:
                c.send(protocol.error("revoked", why or f"{t.name(c.seat)}'s invite link was replaced by its holder: "
                                      "this link no longer works (open the new one)"))
                self.registry.disconnect(c)
                c.close()

    async def rematch(self, conn: Conn) -> None:
        """A seated player asks for the rematch of a finished game: the first ask makes its table."""
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
                new_id = new_table_id()
                # a player who left is not in the rematch: the bot that played on for them is
                seats = [{"kind": "bot", "bot": s.get("bot"), "name": s.get("name")} if s.get("left") else s
                         for s in info.seats]
                options = {k: v for k, v in info.options.items() if k not in ("ended", "votes")}
                rated = info.rated
                ids = [str(s["profile"]) for s in seats if s.get("profile")]
                if rated and await asyncio.to_thread(self.social.pair_games, ids) >= PAIR_GAMES:
                    rated = False  # these players' rated games together are spent: the rematch is unrated
                await asyncio.to_thread(
                    self.store.create_table, id=new_id, name=info.name, rules=info.rules,
                    seed=secret_seed(), seats=seats, clock=info.clock,
                    first=(info.first + 1) % len(info.seats), rematch_of=info.id,
                    lease=self.leases.for_new_table(), options=options, rated=rated)
                got = await asyncio.to_thread(self.store.set_rematch, info.id, new_id)
                t.info = replace(info, rematch=got)
            self.broadcaster.to_all(t, protocol.rematch(t.info.rematch))
