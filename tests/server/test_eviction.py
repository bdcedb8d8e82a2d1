"""Issue 13.4: idle and finished tables leave memory (they stay in storage and are rebuilt when
asked for); the number of tables in memory is bounded. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest

from civlite.bots import decide, make_bot
from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.protocol import ProtocolError
from civlite.server.state import Conn
from civlite.server.storage import Store
from civlite.server.tables import Manager

from .helpers import Frames, msg, until


def test_idle_and_finished_tables_leave_memory_and_come_back(db_url: str) -> None:
    store = Store(db_url)

    async def run() -> None:
        m = Manager(store, bot_delay=0, bot_processes=0, listen=False, idle_seconds=0.3)
        await m.start()
        humans = CreateTable(seats=[SeatSpec(), SeatSpec()], victory_ct=6)
        watched, tok = await m.create_table(humans)
        looked_at, _ = await m.create_table(humans)  # loaded (as a REST look does), never joined
        bots, _ = await m.create_table(CreateTable(seats=[SeatSpec(kind="bot", bot="random")] * 2, victory_ct=3))
        seen_end, _ = await m.create_table(CreateTable(seats=[SeatSpec(kind="bot", bot="random")] * 2, victory_ct=3))
        c, spectator = Frames(), Frames()
        await m.handle(c, msg(type="hello", table=watched.id, token=tok[0]))
        await m.handle(spectator, msg(type="hello", table=seen_end.id, token=None))
        t = m.tables[watched.id]
        action = decide(make_bot("random", seed=1), t.game.clone()).to_json()
        await m.handle(c, msg(type="action", id="m1", action=action))
        assert c.frames[-2]["type"] == "ack"
        # the bots play to the end; the unwatched tables go once idle or over, the watched stay
        await until(lambda: bots.id not in m.tables and looked_at.id not in m.tables)
        await until(lambda: m.tables[seen_end.id].game.is_over)
        await asyncio.sleep(0.8)  # more than idle_seconds: a watched table stays, over or not
        assert watched.id in m.tables and seen_end.id in m.tables
        assert store.get_table(bots.id).status == "over"  # type: ignore[union-attr]
        # asked for again, a table is rebuilt from storage as it was
        state, seq = t.game.state_json(), t.seq
        m.disconnect(c)
        await until(lambda: watched.id not in m.tables)
        c2 = Frames()
        await m.handle(c2, msg(type="hello", table=watched.id, token=tok[0]))
        assert c2.frames[-2]["type"] == "welcome" and c2.frames[-2]["seq"] == seq == 1
        assert m.tables[watched.id] is not t and m.tables[watched.id].game.state_json() == state
        again = await m.get(bots.id)
        assert again is not None and again.game.is_over
        m.disconnect(spectator)
        await until(lambda: seen_end.id not in m.tables and bots.id not in m.tables)
        assert set(m.tables) == {watched.id}
        # a bound on tables in memory: past it, only tables nobody watches make room
        m.registry.MAX_TABLES = 2
        await m.handle(spectator, msg(type="hello", table=seen_end.id, token=None))
        with pytest.raises(ProtocolError) as e:
            await m.get(looked_at.id)
        assert e.value.code == "busy"
        m.disconnect(spectator)
        assert (await m.get(looked_at.id)) is not None  # the finished, unwatched one made room
        assert set(m.tables) == {watched.id, looked_at.id}
        await m.stop()

    asyncio.run(run())
    store.close()


def test_a_connection_that_never_reads_is_dropped_not_buffered() -> None:
    async def run() -> None:
        c = Conn()
        for i in range(Conn.MAX_QUEUE + 5):
            c.send({"v": 1, "type": "pong", "t": i})
        assert c.closed and c.queue.qsize() <= Conn.MAX_QUEUE + 2  # its frames so far and the close mark
        c.send({"v": 1, "type": "pong"})  # nothing more is queued once closed
        assert c.queue.qsize() <= Conn.MAX_QUEUE + 2

    asyncio.run(run())
