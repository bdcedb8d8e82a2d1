"""A client's frames: the rate limit, then each message dispatched (hello to take a seat or
watch, an action, a rematch, a ping); every problem becomes an error reply."""

from __future__ import annotations

import logging
import time

from . import protocol
from .broadcast import Broadcaster
from .chat import Chat
from .invites import Invites
from .leaving import Leaving
from .moves import Moves
from .protocol import Hello, ProtocolError, error, parse_client
from .registry import Registry
from .state import Conn
from .turns import Turns

log = logging.getLogger("civlite.server")


class Sessions:
    """``rate_limit``: messages a second per connection (None: no limit)."""

    #: a connection that keeps sending this many messages past its limit is closed
    MAX_DROPPED = 2000

    def __init__(self, registry: Registry, broadcaster: Broadcaster, turns: Turns, moves: Moves, invites: Invites,
                 chat: Chat, leaving: Leaving, rate_limit: float | None) -> None:
        self.chat = chat
        self.leaving = leaving
        self.registry = registry
        self.broadcaster = broadcaster
        self.turns = turns
        self.moves = moves
        self.invites = invites
        self.rate_limit = rate_limit

    def _limited(self, conn: Conn) -> bool:
        """Past the rate limit: the frame is dropped unread (nothing changes); the client is
        told so at most once a second, and one that keeps on is disconnected."""
        if self.rate_limit is None:
            return False
        now = time.monotonic()
        if conn.allow(self.rate_limit, now):
            conn.dropped = 0
            return False
        conn.dropped += 1
        if conn.dropped >= self.MAX_DROPPED:
            conn.send(error("rate_limited", "too many messages: disconnected"))
            conn.close()
        elif now - conn.noticed >= 1.0:
            conn.noticed = now
            conn.send(error("rate_limited", f"more than {self.rate_limit:g} messages a second: messages "
                                            "are dropped unread until they slow down (nothing was changed)"))
        return True

    async def handle(self, conn: Conn, raw: str | bytes) -> None:
        """One frame from a client; every problem becomes an error reply, never an exception."""
        if self._limited(conn):
            return
        try:
            msg = parse_client(raw)
        except ProtocolError as e:
            conn.send(error(e.code, e.message))
            return
        try:
            if msg.type == "hello":
                await self.hello(conn, msg)
            elif msg.type == "action":
                await self.moves.action(conn, msg)
            elif msg.type == "rematch":
                await self.invites.rematch(conn)
            elif msg.type == "chat":
                await self.chat.say(conn, msg)
            elif msg.type == "concede":
                await self.leaving.concede(conn)
            elif msg.type == "vote_end":
                await self.leaving.vote_end(conn)
            else:
                conn.send(protocol.pong())
        except ProtocolError as e:
            conn.send(error(e.code, e.message, getattr(msg, "id", None)))
        except Exception as e:  # never drop a connection over a server bug
            log.exception("error handling a message")
            conn.send(error("server", f"internal error: {type(e).__name__}", getattr(msg, "id", None)))

    async def hello(self, conn: Conn, msg: Hello) -> None:
        """Take a seat (with its token) or watch (without) at a table; a new hello changes seat."""
        t = await self.registry.get(msg.table)
        if t is None:
            raise ProtocolError("no_table", f"there is no table {msg.table!r}")
        seat: int | None = None
        if msg.token is not None:
            seat = t.seat_of(msg.token)
            if seat is None:
                raise ProtocolError("bad_token", "this seat token is not valid for this table (ask for a new invite link)")
        await self.chat.load(t)  # the welcome carries the chat's last lines
        if conn.table is t:
            t.conns.discard(conn)  # a new hello on the same table: change seat, keep the table
        else:
            self.registry.disconnect(conn)
        async with t.lock:
            conn.table, conn.seat = t, seat
            t.conns.add(conn)
            t.touched = time.monotonic()
            if seat is not None:
                t.joined.add(seat)  # its clock may run from now on (never before its player came)
            if t.task is None and not t.game.is_over:
                self.turns.schedule(t)  # take the table over if nobody here runs its next bot move or clock
            # told on return: the clock decided for this seat while away
            missed = t.missed.pop(seat, 0) if seat is not None else 0
            self.broadcaster.welcome(conn, t, missed)
        self.broadcaster.presence(t)
