"""Leaving a game before its end: a player concedes (a bot plays on in the seat; with one
seat left in play the table ends), or the other players vote to end a game that a player
stalls by not moving (the table is closed). Either way a rated game rates the seat that left
or stalled last (:func:`.ratings.ranks`), so walking away never avoids a loss.

Every change is made to the stored table behind its row's lock (:meth:`.Store.change_table`),
so other processes see it (their catch-up reloads the table) and two processes cannot both
count a vote or a concession."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from . import protocol
from .broadcast import Broadcaster
from .protocol import ProtocolError
from .ratings import RATED_LEVELS
from .registry import Registry
from .state import Conn, Table
from .storage import Store, TableChange
from .turns import Turns

log = logging.getLogger("civlite.server")

#: a game counts as stalled when the player whose decision it is has not moved for this long
#: and is not connected: then the others may vote to end it
STALL_SECONDS = 300.0
#: the bot that plays on for a player who conceded (a level with a fixed rating)
STAND_IN = "medium"


def in_play(seats: list[dict[str, Any]]) -> list[int]:
    """The seats whose players have not left."""
    return [i for i, s in enumerate(seats) if not s.get("left")]


class Leaving:
    def __init__(self, store: Store, registry: Registry, broadcaster: Broadcaster, turns: Turns,
                 ended: Callable[[Table], None], stall_seconds: float = STALL_SECONDS) -> None:
        self.store = store
        self.registry = registry
        self.broadcaster = broadcaster
        self.turns = turns
        self.ended = ended
        self.stall_seconds = stall_seconds

    def _seated(self, conn: Conn) -> tuple[Table, int]:
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table and a seat token first")
        if conn.seat is None:
            raise ProtocolError("spectator", "only a seated player can concede or vote")
        if t.info.status != "playing" or t.game.is_over:
            raise ProtocolError("not_playing", "this table's game is not being played")
        return t, conn.seat

    async def _change(self, t: Table, change: Callable[[TableChange], bool], refusal: list[ProtocolError]) -> None:
        try:
            info = await asyncio.to_thread(self.store.change_table, t.id, change)
        except Exception as e:
            log.warning("table %s: the change could not be stored: %s: %s", t.id, type(e).__name__, e)
            raise ProtocolError("unavailable", "this could not be stored (storage is not answering): nothing "
                                "changed, try again in a moment") from None
        if info is None:
            raise refusal[0] if refusal else ProtocolError("not_playing", "this table's game is not being played")

    async def concede(self, conn: Conn) -> None:
        """``conn``'s player gives up its seat: a bot plays on for it; with one seat left in play
        the table ends ("conceded")."""
        t, seat = self._seated(conn)
        digest = t.info.seats[seat].get("token_sha256")
        refusal: list[ProtocolError] = []
        stand_in = t.info.stand_in if t.info.stand_in in RATED_LEVELS else STAND_IN

        def change(c: TableChange) -> bool:
            s = c.seats[seat]
            if c.status != "playing" or s.get("kind") != "human" or s.get("token_sha256") != digest:
                refusal.append(ProtocolError("not_playing", "this seat is no longer in play"))
                return False
            order = 1 + max((int(x["left"]) for x in c.seats if x.get("left")), default=0)
            c.seats[seat] = {"kind": "bot", "bot": stand_in, "name": s.get("name"), "left": order,
                             **({"profile": s["profile"]} if s.get("profile") else {})}
            c.options.pop("votes", None)
            if len(in_play(c.seats)) <= 1:
                c.status = "closed"
                c.options["ended"] = "conceded"
            return True

        async with t.lock:
            await self._change(t, change, refusal)
            await self.after_change(t)
        name = t.name(seat)
        closed = t.info.status == "closed"
        self.broadcaster.to_all(t, protocol.left_notice(seat, f"{name} conceded: " + (
            "the game is over." if closed else f"a bot ({stand_in}) plays on in their seat.")))

    async def vote_end(self, conn: Conn) -> None:
        """``conn``'s player votes to end a game stalled by the seat whose decision it is."""
        t, seat = self._seated(conn)
        pending = t.game.pending
        if pending is None or t.info.seats[pending.player].get("kind") != "human":
            raise ProtocolError("not_stalled", "the game is not waiting for a player")
        stalled = pending.player
        if stalled == seat:
            raise ProtocolError("not_stalled", "it is your decision: play it (or concede)")
        waited = time.time() - t.acted
        # at a turn-based table a player may take the clock's days: the clock, not a vote, ends a stall
        stall = max(self.stall_seconds, float(t.info.clock or 0)) if t.info.options.get("turn_based") \
            else self.stall_seconds
        if waited < stall or t.connected()[stalled]:
            raise ProtocolError("not_stalled", f"a vote to end the game opens when {t.name(stalled)} has not moved "
                                f"for {stall:.0f} s and is away ({waited:.0f} s so far)")
        seq = t.seq
        refusal: list[ProtocolError] = []

        def change(c: TableChange) -> bool:
            if c.status != "playing":
                refusal.append(ProtocolError("not_playing", "this table's game is not being played"))
                return False
            votes = c.options.get("votes") or {}
            seats = set(votes.get("seats", [])) if votes.get("seq") == seq else set()
            seats.add(seat)
            c.options["votes"] = {"seq": seq, "seats": sorted(seats)}
            voters = [i for i in in_play(c.seats) if i != stalled and c.seats[i].get("kind") == "human"]
            if all(i in seats for i in voters):
                c.status = "closed"
                c.options["ended"] = "closed"
                c.options.pop("votes", None)
            return True

        async with t.lock:
            if t.seq != seq:
                raise ProtocolError("stale", "a move was made meanwhile: the game is not stalled")
            await self._change(t, change, refusal)
            await self.after_change(t)
        if t.info.status == "closed":
            self.broadcaster.to_all(t, protocol.closed_notice(f"The players voted to end the game: {t.name(stalled)} "
                                                              "had stopped playing and loses it."))
        else:
            self.broadcaster.to_all(t, protocol.vote_notice(seat, f"{t.name(seat)} votes to end the game stalled "
                                                                  f"by {t.name(stalled)}."))

    async def after_change(self, t: Table) -> None:
        """The table's seats or status changed (here or in another process; ``t.lock`` held):
        rebuild it from storage, move the connections of a seat that left to watching, and then
        run its bots, or, if it just ended, stop its clock and rate it."""
        await self.registry.reload(t)
        for c in list(t.conns):
            if c.seat is not None and t.info.seats[c.seat].get("left"):
                c.seat = None
                self.broadcaster.welcome(c, t)
        if t.info.status == "closed":
            if t.task is not None:
                t.task.cancel()
                t.task = None
            t.deadline = None
            self.ended(t)
        elif t.info.status == "playing":
            self.turns.schedule(t)
