"""Chat at a table, for its players and its spectators: each line checked (length, rate),
cleaned of control and bidirectional-override characters, stored with the table, then sent.

A player's line carries the seat's name; a spectator's carries its profile's handle, or
"Spectator" without one, marked as a spectator's: nobody chats under a name they type. On a table whose creator chose
"players only", spectators' lines go to spectators only. Lines are plain text: the browser
shows them as text, never as HTML."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any

from . import protocol
from .guard import Buckets
from .names import safe_name
from .protocol import ChatMsg, ProtocolError
from .social_store import ChatFull, ChatLine, SocialStore
from .state import Conn, Table

log = logging.getLogger("civlite.server")

#: characters a line may hold (after cleaning)
MAX_CHARS = 300
#: a spectator's chosen name, at most
MAX_NAME = 24
#: lines one connection may send: a burst of ``BURST``, then one every ``EVERY`` seconds
BURST, EVERY = 5, 1.0
#: lines one client address may send over all its connections
ADDRESS_BURST, ADDRESS_EVERY = 20, 1.0
#: a spectator's connection, and one address's spectators at one table
SPECTATOR_BURST, SPECTATOR_EVERY = 3, 5.0
#: all the spectators of one table together
SPECTATOR_TABLE_BURST, SPECTATOR_TABLE_EVERY = 10, 3.0
#: lines a table keeps at most, its players' and its spectators' apart (past it, new lines of
#: that part are refused: a table is not a chat room)
MAX_LINES = 2000
MAX_SPECTATOR_LINES = 500
#: lines sent with a welcome
TAIL = 100


def chat_mode(t: Table) -> str:
    """``"all"`` (everyone reads everyone) or ``"players"`` (spectators' lines go to spectators only)."""
    return "players" if t.info.options.get("chat") == "players" else "all"


def visible(t: Table, line: ChatLine, reader: int | None) -> bool:
    """Whether ``reader`` (a seat, None: a spectator) is shown ``line``."""
    return reader is None or line.seat is not None or chat_mode(t) == "all"


def line_json(line: ChatLine) -> dict[str, Any]:
    return {"n": line.n, "seat": line.seat, "name": line.name, "text": line.text, "profile": line.profile,
            "at": int(line.at.timestamp() * 1000) if isinstance(line.at, datetime) else 0}


def tail(t: Table, reader: int | None) -> list[dict[str, Any]]:
    """The chat lines in memory that ``reader`` may read (what a welcome carries)."""
    return [line_json(x) for x in (t.chat or []) if visible(t, x, reader)]


class Chat:
    """Budgets, each a token bucket: every connection's (:data:`BURST`, :data:`EVERY`), every
    client address's over all its connections (:data:`ADDRESS_BURST`, :data:`ADDRESS_EVERY`),
    and for spectators, harder ones of their own per connection and per table
    (:data:`SPECTATOR_BURST`...), so that reconnecting or opening more connections buys no more
    lines and spectators cannot crowd out the players. The players' and the spectators' lines
    are capped apart (:data:`MAX_LINES`, :data:`MAX_SPECTATOR_LINES`), in the database's
    transaction, so the cap holds exactly with any number of writers."""

    def __init__(self, social: SocialStore) -> None:
        self.social = social
        self.addresses = Buckets(1.0 / ADDRESS_EVERY, ADDRESS_BURST)
        self.spectator_tables = Buckets(1.0 / SPECTATOR_TABLE_EVERY, SPECTATOR_TABLE_BURST)
        self.spectator_addresses = Buckets(1.0 / SPECTATOR_EVERY, SPECTATOR_BURST)

    async def load(self, t: Table) -> None:
        """The table's stored lines into memory (once, when a connection first needs them)."""
        if t.chat is None:
            lines = await asyncio.to_thread(self.social.load_chat, t.id, TAIL)
            if t.chat is None:
                t.chat = lines

    def _rate(self, conn: Conn, now: float, burst: float, every: float) -> bool:
        """The connection's own token bucket of ``burst`` lines refilled at one every ``every`` seconds."""
        if conn.chat_stamp == 0.0:
            conn.chat_allowance = burst
        else:
            conn.chat_allowance = min(burst, conn.chat_allowance + (now - conn.chat_stamp) / every)
        conn.chat_stamp = now
        if conn.chat_allowance < 1.0:
            return False
        conn.chat_allowance -= 1.0
        return True

    def _budget(self, conn: Conn, t: Table) -> None:
        """Take one line from each budget that applies, or refuse naming the one spent."""
        spectator = conn.seat is None
        burst, every = (SPECTATOR_BURST, SPECTATOR_EVERY) if spectator else (BURST, EVERY)
        if not self._rate(conn, time.monotonic(), float(burst), every):
            raise ProtocolError("chat_rate", f"too many chat lines: at most {burst} at once, then one every "
                                f"{every:g} s (this one was not sent)")
        if self.addresses.take(conn.address) > 0:
            raise ProtocolError("chat_rate", f"too many chat lines from your address (at most {ADDRESS_BURST} at once, "
                                f"then one every {ADDRESS_EVERY:g} s, over all your connections): this one was not sent")
        if spectator:
            if self.spectator_addresses.take(f"{t.id}|{conn.address}") > 0:
                raise ProtocolError("chat_rate", "too many spectator lines from your address at this table: this one "
                                    "was not sent")
            if self.spectator_tables.take(t.id) > 0:
                raise ProtocolError("chat_rate", f"the spectators of this table have said {SPECTATOR_TABLE_BURST} "
                                    f"lines lately (then one every {SPECTATOR_TABLE_EVERY:g} s between them all): "
                                    "this one was not sent")

    async def say(self, conn: Conn, msg: ChatMsg) -> None:
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table first")
        text = " ".join(msg.text.replace("\n", " ").split())
        text = safe_name(text)
        if not text:
            raise ProtocolError("chat_empty", "a chat line needs some text (control and direction characters are removed)")
        if len(text) > MAX_CHARS:
            raise ProtocolError("chat_too_long", f"a chat line is at most {MAX_CHARS} characters (this one has {len(text)}): "
                                "it was not sent")
        profile = None
        if conn.seat is None and msg.profile is not None:
            profile = await asyncio.to_thread(self.social.profile_by_key, msg.profile)
            if profile is None:
                raise ProtocolError("bad_key", "this profile key is not valid (it may have been replaced): restore "
                                    "the profile from its newest link")
        self._budget(conn, t)
        await self.load(t)
        assert t.chat is not None
        spectator = conn.seat is None
        cap = MAX_SPECTATOR_LINES if spectator else MAX_LINES
        # a player speaks under its seat's name, a spectator under its profile's handle: never a typed name
        name = t.name(conn.seat) if conn.seat is not None else (profile.name if profile is not None else "Spectator")
        try:
            line = await asyncio.to_thread(self.social.add_chat, t.id, conn.seat, name, text, cap,
                                           profile.id if profile is not None else None)
        except ChatFull:
            who = "spectators' part of this table's chat" if spectator else "this table's chat"
            raise ProtocolError("chat_full", f"the {who} holds {cap} lines, as many as it may") from None
        except Exception as e:
            log.warning("table %s: a chat line could not be stored: %s: %s", t.id, type(e).__name__, e)
            raise ProtocolError("not_stored", "the line was not stored (storage is not answering): try again") from None
        self.heard(t, line)

    def heard(self, t: Table, line: ChatLine) -> None:
        """A stored line (said here or in another process): kept in the table's tail and sent to
        each connection that may read it."""
        if t.chat is None:
            return
        if t.chat and line.n <= t.chat[-1].n:
            return  # had it already
        t.chat.append(line)
        if len(t.chat) > TAIL:
            del t.chat[: len(t.chat) - TAIL]
        frame = protocol.chat(line_json(line))
        for c in list(t.conns):
            if visible(t, line, c.seat):
                c.send(frame)
