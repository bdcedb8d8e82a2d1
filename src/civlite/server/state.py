"""A table held in memory (its game, log, seats, pending task and connections) and a client
connection (its queue of outgoing frames and its rate-limit bucket)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..bots import Bot
from ..engine import Event, Game
from .social_store import ChatLine
from .storage import TableInfo


def token_digest(token: str) -> str:
    """What the database keeps of a seat token: its SHA-256 (a token is 18 random bytes, so
    no salt is needed), so a copy of the database cannot be used to take a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


class Conn:
    """One client connection: a queue of outgoing frames (already JSON text)."""

    MAX_QUEUE = 2000

    def __init__(self, address: str = "?") -> None:
        self.address = address  # the client's address (its budgets are kept per address too)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.table: Table | None = None
        self.seat: int | None = None
        self.closed = False
        # the rate limit's token bucket (see Sessions.handle)
        self.allowance = -1.0  # messages that may come now (-1: a full bucket, set on the first message)
        self.stamp = 0.0
        self.noticed = -1e9  # when the client was last told it is being limited
        self.dropped = 0  # messages dropped in a row
        self.chat_allowance = 0.0  # the chat's own bucket (see Chat.say)
        self.chat_stamp = 0.0

    def allow(self, rate: float, now: float) -> bool:
        """Token bucket: ``rate`` messages a second on average, bursts of ``2 * rate`` (at least 10)."""
        burst = max(10.0, 2.0 * rate)
        if self.allowance < 0:
            self.allowance = burst
        else:
            self.allowance = min(burst, self.allowance + (now - self.stamp) * rate)
        self.stamp = now
        if self.allowance < 1.0:
            return False
        self.allowance -= 1.0
        return True

    def send(self, msg: dict[str, Any]) -> None:
        self.send_text(json.dumps(msg, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > self.MAX_QUEUE:  # a client that does not read: drop it
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


@dataclass(eq=False)
class Table:
    info: TableInfo
    game: Game
    seq: int = 0
    log: list[tuple[int, Event]] = field(default_factory=list)
    client_ids: dict[str, int] = field(default_factory=dict)
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, Bot] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None  # the pending bot move or clock
    deadline: float | None = None  # epoch seconds when the clock runs out
    task_seq: int = -1
    unsure: bool = False  # a write failed: reload from storage before the next move
    joined: set[int] = field(default_factory=set)  # seats whose player has connected (their clock may run)
    via: dict[int, str] = field(default_factory=dict)  # action number -> "bot" / "clock" (not "human")
    missed: dict[int, int] = field(default_factory=dict)  # seat -> clock moves made while it was away
    touched: float = field(default_factory=time.monotonic)  # the last move, hello or goodbye (for eviction)
    chat: list[ChatLine] | None = None  # the chat's last lines (None: not loaded yet)
    chat_count: int | None = None  # lines stored in all (known once the chat is long)
    acted: float = field(default_factory=time.time)  # epoch seconds of the last move (or the load)

    @property
    def id(self) -> str:
        return self.info.id

    def name(self, seat: int) -> str:
        return str(self.info.seats[seat].get("name") or f"Seat {seat + 1}")

    def seat_of(self, token: str) -> int | None:
        digest = token_digest(token)
        for i, s in enumerate(self.info.seats):
            t = s.get("token_sha256")
            if t and hmac.compare_digest(str(t), digest):
                return i
        return None

    def connected(self) -> list[bool]:
        on = {c.seat for c in self.conns if c.seat is not None}
        return [i in on for i in range(len(self.info.seats))]

    def played(self, seq: int, by: str, events: Iterable[Event], client_id: str | None) -> None:
        """Note move ``seq`` (already applied to ``game``): its events, who made it (``by``) and
        the client's action id; a game it ended marks the table over."""
        self.seq = seq
        self.acted = time.time()
        if by != "human":
            self.via[seq] = by
        self.log.extend((seq, e) for e in events)
        if client_id:
            self.client_ids[client_id] = seq
        if self.game.is_over and self.info.status != "over":
            self.info = replace(self.info, status="over", winner=self.game.winner, num_actions=seq)

    def idle(self) -> bool:
        """Nothing will happen at this table until a player acts (no bot to move, no clock)."""
        if self.lock.locked():
            return False
        if self.info.status != "playing":  # waiting for its players, or closed
            return True
        pending = self.game.pending
        if pending is None:
            return True
        return self.info.seats[pending.player].get("kind") != "bot" and (not self.info.clock
                                                                         or pending.player not in self.joined)

    def evictable(self) -> bool:
        """Nobody watches, nothing runs and nothing will until a player acts (or the game is over)."""
        return not self.conns and (self.game.is_over or self.idle()) and not (self.task and not self.task.done())
