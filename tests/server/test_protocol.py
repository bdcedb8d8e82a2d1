"""Message validation, and the shape of every message the server sends."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from civlite.bots import decide, make_bot
from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.protocol import (
    ActionMsg,
    Hello,
    ProtocolError,
    TableSummary,
    parse_client,
    server_message,
    summary,
)
from civlite.server.storage import Store
from civlite.server.tables import Manager

from .helpers import Frames, msg, until


def test_valid_messages_parse() -> None:
    m = parse_client(json.dumps({"v": 1, "type": "hello", "table": "abc", "token": None}))
    assert isinstance(m, Hello) and m.token is None
    a = parse_client(json.dumps({"v": 1, "type": "action", "id": "x1", "action": {"do": "pass"}}))
    assert isinstance(a, ActionMsg) and a.action == {"do": "pass"}


@pytest.mark.parametrize(("raw", "code"), [
    ("not json", "malformed"),
    ("[]", "malformed"),
    ('{"v": 2, "type": "ping"}', "version"),
    ('{"type": "ping"}', "version"),
    ('{"v": 1, "type": "dance"}', "malformed"),
    ('{"v": 1, "type": "action", "id": "", "action": {}}', "malformed"),
    ('{"v": 1, "type": "action", "id": "a", "action": 5}', "malformed"),
    ('{"v": 1, "type": "ping", "extra": 1}', "malformed"),
    (b"\xff\xfe", "malformed"),
    ("x" * 20000, "malformed"),
    ("[" * 1000 + "]" * 1000, "malformed"),  # deeper than the JSON parser goes
    ('{"v": 1, "type": "action", "id": "a", "action": {"do": ' + "[" * 20 + "]" * 20 + "}}", "malformed"),
])
def test_bad_messages_name_the_problem(raw: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as e:
        parse_client(raw)
    assert e.value.code == code
    assert e.value.message


def test_deep_nesting_is_named() -> None:
    for raw in ("[" * 1000 + "]" * 1000, '{"v": 1, "type": "ping", "x": ' + "[" * 17 + "]" * 17 + "}"):
        with pytest.raises(ProtocolError, match="nested deeper than 16 levels"):
            parse_client(raw)
    assert parse_client('{"v": 1, "type": "action", "id": "a", "action": {"do": "pass", "cards": []}}')


def test_every_frame_the_server_sends_has_its_documented_shape(tmp_path: Path) -> None:
    """A game with a seat, a spectator, a bot and a turn clock: every frame of every type
    validates against the models of ``protocol`` (which forbid fields they do not name)."""
    store = Store(f"sqlite:///{tmp_path / 'shape.db'}")

    async def run() -> list[Frames]:
        m = Manager(store, bot_delay=0, bot_processes=0, listen=False)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec(kind="bot", bot="random")],
                                                        victory_ct=6, clock=1, practice=True, seed=4))
        assert TableSummary.model_validate(summary(info)).id == info.id
        me, watcher, back = Frames(), Frames(), Frames()
        for c, tok in ((me, tokens[0]), (watcher, None)):
            await m.handle(c, msg(type="hello", table=info.id, token=tok))
        t = m.tables[info.id]
        await m.handle(me, msg(type="ping"))
        await m.handle(me, "{}")
        await until(lambda: t.game.to_move == 0)
        move = decide(make_bot("random", seed=1), t.game).to_json()
        for _ in range(2):  # the second is a resend: acknowledged as a duplicate
            await m.handle(me, msg(type="action", id="a1", action=move))
        m.disconnect(me)  # the clock plays for the seat while it is away
        await until(lambda: bool(t.missed.get(0)), 10.0)
        await m.handle(back, msg(type="hello", table=info.id, token=tokens[0]))
        bot, n = make_bot("random", seed=2), 0
        while not t.game.is_over:
            await until(lambda: t.game.is_over or t.game.to_move == 0)
            if not t.game.is_over:
                n += 1
                await m.handle(back, msg(type="action", id=f"b{n}", decision=t.game.decision_number,
                                         action=decide(bot, t.game).to_json()))
        await m.handle(watcher, msg(type="rematch"))  # a spectator may not ask
        await m.handle(back, msg(type="rematch"))
        await m.stop()
        return [me, watcher, back]

    conns = asyncio.run(run())
    store.close()
    seen: set[str] = set()
    for c in conns:
        for f in c.frames:
            server_message.validate_python(f)
            seen.add(f["type"])
    assert seen == {"welcome", "update", "ack", "error", "presence", "notice", "rematch", "pong"}
    assert any(f.get("missed_clock") for f in conns[2].frames) and any("final" in f for f in conns[2].frames)
    assert any(f["type"] == "ack" and f["duplicate"] for f in conns[0].frames)
