"""Sending to the connections at a table: each move's update (built once per seat), welcomes,
presence and any other frame for everyone there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..engine import Event
from . import protocol
from .chat import tail
from .state import Conn, Table


def _text(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"))


class Broadcaster:
    """The frames for the connections of a table; ``on_frame`` sees each welcome and update sent."""

    def __init__(self) -> None:
        self.on_frame: Callable[[Conn, dict[str, Any]], None] | None = None

    def update(self, t: Table, seq: int, events: list[Event], seat: int, via: str) -> None:
        """Move ``seq`` of ``seat`` (made by ``via``), as each connection's seat may see it."""
        built: dict[int | None, str] = {}
        clock = protocol.clock_json(t)
        final = protocol.final_json(t)
        for c in list(t.conns):
            text = built.get(c.seat)
            if text is None:
                text = built[c.seat] = _text(protocol.update(t, seq, events, seat, via, c.seat, clock, final))
            c.send_text(text)
            if self.on_frame is not None:
                self.on_frame(c, json.loads(text))

    def welcome(self, conn: Conn, t: Table, missed: int = 0) -> None:
        """The welcome of ``conn``'s seat at ``t`` (``missed``: clock moves made while it was away)."""
        w = protocol.welcome(t, conn.seat, missed, chat=tail(t, conn.seat))
        conn.send(w)
        if self.on_frame is not None:
            self.on_frame(conn, w)

    def refresh(self, t: Table) -> None:
        """Everyone's state again (after the table was rebuilt from storage)."""
        for c in list(t.conns):
            c.send(protocol.welcome(t, c.seat, chat=tail(t, c.seat)))

    def to_all(self, t: Table, msg: dict[str, Any]) -> None:
        text = _text(msg)
        for c in list(t.conns):
            c.send_text(text)

    def to_seat(self, t: Table, seat: int, msg: dict[str, Any]) -> None:
        """To the connections that hold ``seat`` (its player's tabs)."""
        text = _text(msg)
        for c in list(t.conns):
            if c.seat == seat:
                c.send_text(text)

    def to_others(self, t: Table, seat: int, msg: dict[str, Any]) -> None:
        """To every connection but those that hold ``seat``."""
        text = _text(msg)
        for c in list(t.conns):
            if c.seat != seat:
                c.send_text(text)

    def presence(self, t: Table) -> None:
        self.to_all(t, protocol.presence(t))
