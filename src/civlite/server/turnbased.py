"""Turn-based tables: played at each player's own pace, with a clock in days.

A turn-based table (``CreateTable.clock_days``, 1 to 7) gives each decision that many days,
counted from the table's last move; its seats' clocks run whether or not their players are
connected (they took their seats to play at their pace). A decision whose clock runs out is
made for the seat as at any clocked table (the table's stand-in bot, or the safest legal
move). A seat whose clock runs out :data:`TIMEOUTS_LEFT` times in a row while its player is
away is treated as having left the game, as a concession is: a bot plays on in the seat and,
at a rated table, the seat is rated as having left (a loss).

``turns(profile)``: the unfinished tables where it is that profile's decision now.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from . import protocol
from .broadcast import Broadcaster
from .leaving import STAND_IN, Leaving, in_play
from .ratings import RATED_LEVELS
from .registry import Registry
from .social_store import SocialStore
from .state import Table
from .storage import Store, TableChange, TableInfo

log = logging.getLogger("civlite.server")

DAY = 86400
#: clock timeouts in a row, with the player away, after which a turn-based seat counts as left
TIMEOUTS_LEFT = 3


def turn_based(info: TableInfo) -> bool:
    return bool(info.options.get("turn_based"))


class TurnBased:
    def __init__(self, store: Store, social: SocialStore, registry: Registry, broadcaster: Broadcaster,
                 leaving: Leaving) -> None:
        self.store = store
        self.social = social
        self.registry = registry
        self.broadcaster = broadcaster
        self.leaving = leaving

    async def timed_out(self, t: Table, seat: int) -> None:
        """A clock move was just made for ``seat``: after :data:`TIMEOUTS_LEFT` in a row with its
        player away, at a turn-based table, the seat leaves the game (a bot plays on)."""
        if not turn_based(t.info) or t.missed.get(seat, 0) < TIMEOUTS_LEFT:
            return
        if t.info.status != "playing" or t.info.seats[seat].get("kind") != "human":
            return
        digest = t.info.seats[seat].get("token_sha256")
        stand_in = t.info.stand_in if t.info.stand_in in RATED_LEVELS else STAND_IN

        def change(c: TableChange) -> bool:
            s = c.seats[seat]
            if c.status != "playing" or s.get("kind") != "human" or s.get("token_sha256") != digest:
                return False
            order = 1 + max((int(x["left"]) for x in c.seats if x.get("left")), default=0)
            c.seats[seat] = {"kind": "bot", "bot": stand_in, "name": s.get("name"), "left": order, "timed_out": True,
                             **({"profile": s["profile"]} if s.get("profile") else {})}
            c.options.pop("votes", None)
            if len(in_play(c.seats)) <= 1:
                c.status = "closed"
                c.options["ended"] = "timed_out"
            return True

        try:
            async with t.lock:
                info = await asyncio.to_thread(self.store.change_table, t.id, change)
                if info is None:
                    return
                await self.leaving.after_change(t)
        except Exception as e:
            log.warning("table %s: seat %d timed out %d times but could not be marked as left: %s: %s", t.id, seat,
                        TIMEOUTS_LEFT, type(e).__name__, e)
            return
        t.missed.pop(seat, None)
        name = t.name(seat)
        closed = t.info.status == "closed"
        self.broadcaster.to_all(t, protocol.left_notice(seat, f"{name}'s clock ran out {TIMEOUTS_LEFT} times in a row: "
                                                        "they have left the game" + (
                                                            "; the game is over." if closed else
                                                            f", and a bot ({stand_in}) plays on in their seat.")))

    async def turns(self, profile_id: str) -> list[dict[str, Any]]:
        """The tables being played where it is ``profile_id``'s decision now (from memory, or
        loaded), each with its seat and its clock's deadline (epoch milliseconds)."""
        out: list[dict[str, Any]] = []
        for table_id, seat in await asyncio.to_thread(self.social.seats_in_play, profile_id):
            try:
                t = await self.registry.get(table_id)
            except protocol.ProtocolError:
                continue
            if t is None or t.info.status != "playing" or t.game.is_over:
                continue
            pending = t.game.pending
            if pending is None or pending.player != seat:
                continue
            out.append({"table": t.id, "name": t.info.name, "seat": seat, "turn_based": turn_based(t.info),
                        "deadline": int(t.deadline * 1000) if t.deadline is not None else None})
        return out
