"""Moves: a seat's, a bot's or a clock's move applied to a copy of the game, committed to
storage, and only then acknowledged and broadcast. When storage refuses it the table is
rebuilt from storage, so memory never holds a move that is not stored."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..engine import Action, ActionFormatError, IllegalActionError, StaleDecisionError, action_from_json
from . import protocol
from .committer import Committer
from .protocol import ActionMsg, ProtocolError
from .registry import Registry
from .state import Conn, Table
from .storage import Append, ConflictError, StorageError
from .turns import Turns

log = logging.getLogger("civlite.server")
STALE = "That move was already made (or is late): the table has moved on."


class Moves:
    def __init__(self, registry: Registry, committer: Committer, turns: Turns,
                 ended: Callable[[Table], None] | None = None) -> None:
        self.registry = registry
        self.committer = committer
        self.turns = turns
        self.ended = ended  # called once a move that ends a game is stored (its ratings)

    async def action(self, conn: Conn, msg: ActionMsg) -> None:
        """A client's move for its seat."""
        t = conn.table
        if t is None:
            raise ProtocolError("no_hello", "say hello with a table and a seat token first")
        seat = conn.seat
        if seat is None:
            raise ProtocolError("spectator", "a spectator cannot play: use a seat's invite link")
        if not isinstance(msg.action.get("do"), str):
            raise ProtocolError("bad_action", "an action names what it does in 'do', a string such as "
                                f"\"pass\", \"basic\" or \"meld\"; got {str(msg.action.get('do'))[:40]!r}")
        try:
            raw = dict(msg.action)
            if raw.get("player") is not None and raw.get("player") != seat:
                raise ProtocolError("wrong_seat", f"you hold {t.name(seat)}'s seat and may move only for it")
            raw["player"] = seat
            action = action_from_json(raw)
        except ActionFormatError as e:
            raise ProtocolError("bad_action", str(e)) from None
        await self.submit(t, seat, action, client_id=msg.id, by="human", conn=conn, decision=msg.decision)

    @staticmethod
    def _again(t: Table, key: str, client_id: str | None, conn: Conn | None) -> int:
        """A move already stored under ``key``: acknowledged again as a duplicate, not applied."""
        seq = t.client_ids[key]
        if conn is not None and client_id is not None:
            conn.send(protocol.ack(client_id, seq, duplicate=True))
        return seq

    async def submit(self, t: Table, seat: int, action: Action, client_id: str | None, by: str,
                     conn: Conn | None = None, expect_seq: int | None = None,
                     decision: int | None = None) -> int | None:
        """Apply, commit, acknowledge, broadcast. Returns the action's number (None if skipped)."""
        # action ids are the client's choice: scoped by seat, so seats cannot collide
        key = f"{seat}:{client_id}" if client_id is not None else None
        async with t.lock:
            if expect_seq is not None and t.seq != expect_seq:
                return None  # a bot or clock move made stale by another move
            if key is not None and key in t.client_ids:
                return self._again(t, key, client_id, conn)
            if t.unsure:  # a write failed: whether it landed is known only once storage answers again
                await self.registry.recover(t)
                if key is not None and key in t.client_ids:  # it had landed after all
                    return self._again(t, key, client_id, conn)
                if expect_seq is not None and t.seq != expect_seq:
                    return None
            if t.game.is_over:
                raise ProtocolError("game_over", "the game is over: no more decisions are taken")
            if t.info.status == "waiting":
                raise ProtocolError("not_started", "the game starts when every seat is taken (or its creator starts it)")
            if t.info.status == "closed":
                raise ProtocolError("closed", "this table was closed before its game ended (abandoned, conceded or voted to an end): no more moves can be made")
            pending = t.game.pending
            assert pending is not None
            if pending.player != seat:
                raise ProtocolError("not_your_turn",
                                    f"it is not your turn: {t.name(pending.player)} decides now "
                                    f"({pending.kind.replace('_', ' ')})")
            if action.player is None:  # the record names who played each action (a bot's too)
                action = action_from_json(dict(action.to_json(), player=seat))
            # the move is played on a copy, which replaces the game only once it is stored: a
            # write that fails leaves the table exactly as it was
            g = t.game.clone()
            try:
                events = g.apply(action, decision=decision)
            except StaleDecisionError:  # a late or doubled answer (two tabs, a resend after a move)
                raise ProtocolError("stale", STALE) from None
            except IllegalActionError as e:
                raise ProtocolError("illegal", str(e)) from None
            seq = t.seq + 1
            a = Append(t.id, seq, seat, action.to_json(), key, by, turn=g.turn, over=g.is_over, winner=g.winner)
            try:
                await self.committer.commit(a)
            except ConflictError:
                t.unsure = True
                await self.registry.recover(t)
                if key is not None and key in t.client_ids:
                    return self._again(t, key, client_id, conn)
                raise ProtocolError("conflict", "another move was made first; your view has been refreshed") from None
            except StorageError as e:
                t.unsure = True
                log.warning("table %s: move %d not stored: %s", t.id, seq, e)
                raise ProtocolError("not_stored", "the move was not stored (storage is not answering), so nothing "
                                    "changed: try again in a moment") from None
            t.game = g
            t.played(seq, by, events, key)
            t.touched = time.monotonic()
            if by == "clock" and not any(c.seat == seat for c in t.conns):
                t.missed[seat] = t.missed.get(seat, 0) + 1
            if conn is not None and client_id is not None:
                conn.send(protocol.ack(client_id, seq, duplicate=False))
            self.turns.schedule(t, broadcast_first=(seq, events, seat, by))
            if g.is_over and self.ended is not None:
                self.ended(t)
            return seq
