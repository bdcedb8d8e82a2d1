"""Chat at a table, for its players and its spectators: each line checked (length, rate),
cleaned of control and bidirectional-override characters, stored with the table, then sent.

A player's line carries the seat's name (a player cannot speak under another name); a
spectator's carries the name it gives, marked as a spectator's. On a table whose creator chose
"players only", spectators' lines go to spectators only. Lines are plain text: the browser
shows them as text, never as HTML."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any

from . import protocol
from .names import safe_name
from .protocol import ChatMsg, ProtocolError
from .social_store import ChatLine, SocialStore
from .state import Conn, Table

log = logging.getLogger("civlite.server")

#: characters a line may hold (after cleaning)
MAX_CHARS = 300
#: a spectator's chosen name, at most
MAX_NAME = 24
#: lines one connection may send: a burst of ``BURST``, then one every ``EVERY`` seconds
BURST, EVERY = 5, 1.0
#: lines a table keeps at most (past it, new lines are refused: a table is not a chat room)
MAX_LINES = 2000
#: lines sent with a welcome
TAIL = 100


def chat_mode(t: Table) -> str:
    """``"all"`` (everyone reads everyone) or ``"players"`` (spectators' lines go to spectators only)."""
    return "players" if t.info.options.get("chat") == "players" else "all"


def visible(t: Table, line: ChatLine, reader: int | None) -> bool:
    """Whether ``reader`` (a seat, None: a spectator) is shown ``line``."""
    return reader is None or line.seat is not None or chat_mode(t) == "all"


def line_json(line: ChatLine) -> dict[str, Any]:
    return {"n": line.n, "seat": line.seat, "name": line.name, "text": line.text,
            "at": int(line.at.timestamp() * 1000) if isinstance(line.at, datetime) else 0}


def tail(t: Table, reader: int | None) -> list[dict[str, Any]]:
    """The chat lines in memory that ``reader`` may read (what a welcome carries)."""
    return [line_json(x) for x in (t.chat or []) if visible(t, x, reader)]


class Chat:
    def __init__(self, social: SocialStore) -> None:
        self.social = social

    async def load(self, t: Table) -> None:
        """The table's stored lines into memory (once, when a connection first needs them)."""
        if t.chat is None:
            lines = await asyncio.to_thread(self.social.load_chat, t.id, TAIL)
            if t.chat is None:
                t.chat = lines

    def _rate(self, conn: Conn, now: float) -> bool:
        """A token bucket of ``BURST`` lines refilled at one every ``EVERY`` seconds."""
        if conn.chat_stamp == 0.0:
            conn.chat_allowance = float(BURST)
        else:
            conn.chat_allowance = min(float(BURST), conn.chat_allowance + (now - conn.chat_stamp) / EVERY)
        conn.chat_stamp = now
        if conn.chat_allowance < 1.0:
            return False
        conn.chat_allowance -= 1.0
        return True

    async def say(self, conn: Conn, msg: ChatMsg) -> None:
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table first")
        text = " ".join(msg.text.replace("\n", " ").split())
        text = safe_name(text)
        if not text:
            raise ProtocolError("chat_empty", "a chat line needs some text (control and direction characters are removed)")
        if len(text) > MAX_CHARS:
            raise ProtocolError("chat_too_long", f"a chat line is at most {MAX_CHARS} characters (this one has {len(text)})")
        if not self._rate(conn, time.monotonic()):
            raise ProtocolError("chat_rate", f"too many chat lines: at most {BURST} at once, then one every "
                                f"{EVERY:g} s (this one was not sent)")
        await self.load(t)
        assert t.chat is not None
        if len(t.chat) >= TAIL and t.chat_count is None:
            t.chat_count = await asyncio.to_thread(self.social.count_chat, t.id)
        if (t.chat_count or len(t.chat)) >= MAX_LINES:
            raise ProtocolError("chat_full", f"this table's chat holds {MAX_LINES} lines, as many as it may")
        if conn.seat is not None:
            name = t.name(conn.seat)
        else:
            name = safe_name(msg.name)[:MAX_NAME] or "Spectator"
        try:
            line = await asyncio.to_thread(self.social.add_chat, t.id, conn.seat, name, text)
        except Exception as e:
            log.warning("table %s: a chat line could not be stored: %s: %s", t.id, type(e).__name__, e)
            raise ProtocolError("not_stored", "the line was not stored (storage is not answering): try again") from None
        t.chat.append(line)
        if t.chat_count is not None:
            t.chat_count += 1
        if len(t.chat) > TAIL:
            del t.chat[: len(t.chat) - TAIL]
        frame = protocol.chat(line_json(line))
        for c in list(t.conns):
            if visible(t, line, c.seat):
                c.send(frame)
