"""Issue 13.2: a move whose write fails leaves the game exactly as it was, the player is told
"not stored, try again", and nothing else is accepted until storage answers; a table that
does not load at start-up is reported and skipped. On SQLite made read-only and on a real
PostgreSQL stopped and started mid-game."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, insert

from civlite.bots import decide, make_bot
from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.storage import ActionRow, Store, TableInfo, _now
from civlite.server.tables import Manager

from .conftest import PgCluster
from .helpers import Frames, msg, until


async def outage(store: Store, brk: Callable[[], None], mend: Callable[[], None], reopen: Callable[[], Store],
                 bot_delay: float) -> None:
    m = Manager(store, bot_delay=bot_delay, bot_processes=0, listen=False)
    await m.start()
    info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec(kind="bot", bot="random")],
                                                    victory_ct=8, practice=True, seed=6))
    c = Frames()
    await m.handle(c, msg(type="hello", table=info.id, token=tokens[0]))
    t = m.tables[info.id]
    me = make_bot("random", seed=2)
    await until(lambda: t.game.to_move == 0)
    n = 0

    async def mine(aid: str) -> dict[str, Any]:
        await m.handle(c, msg(type="action", id=aid, action=decide(me, t.game.clone()).to_json()))
        return c.frames[-1] if c.frames[-1]["type"] == "error" else next(
            f for f in reversed(c.frames) if f.get("id") == aid)

    # storage goes away on the player's turn
    brk()
    before, seq = t.game.state_json(), t.seq
    r = await mine("x1")
    assert r["type"] == "error" and r["code"] == "not_stored" and "try again" in r["message"], r
    assert t.game.state_json() == before and t.seq == seq and t.game.to_move == 0
    r = await mine("x2")  # nothing is taken while storage does not answer
    assert r["type"] == "error" and r["code"] == "not_stored"
    assert t.game.state_json() == before and t.seq == seq
    mend()
    r = await mine("x1")  # the same move again: stored now
    assert r["type"] == "ack" and r["seq"] == seq + 1, r
    assert store.count_actions(info.id) == seq + 1
    # storage goes away while the bot thinks: its move is refused, then tried again
    while t.game.to_move == 0:
        n += 1
        assert (await mine(f"z{n}"))["type"] == "ack"
    brk()  # at once: the bot waits bot_delay before it moves
    seq = t.seq
    await asyncio.sleep(bot_delay * 1.5 + 1.0)
    assert t.seq == seq and t.game.to_move == 1  # the bot could not move
    mend()
    await until(lambda: t.seq > seq)
    m.turns.bot_delay = 0  # the rest quickly
    # play on to the end: what memory holds is what storage holds
    while not t.game.is_over:
        await until(lambda: t.game.is_over or t.game.to_move == 0)
        if not t.game.is_over:
            n += 1
            r = await mine(f"y{n}")
            assert r["type"] == "ack", r
    await m.stop()
    assert store.record(info.id).replay().state_json() == t.game.state_json()
    other = reopen()  # a fresh process
    m2 = Manager(other, bot_delay=0, listen=False)
    await m2.start()
    t2 = await m2.get(info.id)
    assert t2 is not None and t2.game.state_json() == t.game.state_json() and t2.seq == t.seq
    await m2.stop()
    other.close()


def test_sqlite_made_read_only_mid_game(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'ro.db'}"
    store = Store(url)

    def read_only(dbapi_conn: Any, _rec: Any) -> None:
        dbapi_conn.execute("PRAGMA query_only=ON")  # SQLite's own read-only mode: every write fails

    def brk() -> None:
        event.listen(store.engine, "connect", read_only)
        store.engine.dispose()

    def mend() -> None:
        event.remove(store.engine, "connect", read_only)
        store.engine.dispose()

    with caplog.at_level(logging.WARNING, logger="civlite.server"):
        asyncio.run(outage(store, brk, mend, lambda: Store(url), bot_delay=0.3))
    store.close()
    assert any("not stored" in r.getMessage() for r in caplog.records)
    # the server's own errors (the test's websockets client may log a keepalive timeout of its own)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("civlite")], caplog.text


@pytest.mark.postgres
def test_postgresql_stopped_and_started_mid_game(pg_cluster: PgCluster, caplog: pytest.LogCaptureFixture) -> None:
    store = Store(pg_cluster.url)
    with caplog.at_level(logging.WARNING, logger="civlite.server"):
        asyncio.run(outage(store, pg_cluster.stop, pg_cluster.start, lambda: Store(pg_cluster.url), bot_delay=2.0))
    store.close()
    assert any("not stored" in r.getMessage() for r in caplog.records)
    assert any("bot move refused" in r.getMessage() for r in caplog.records)  # and it was tried again
    # the server's own errors (the test's websockets client may log a keepalive timeout of its own)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("civlite")], caplog.text


async def bots_playing_then_stopped(store: Store) -> tuple[Manager, TableInfo]:
    """A table of two bots that has made a few moves, and its manager, stopped: a server that
    went down mid-game (the next manager on ``store`` resumes the table)."""
    m = Manager(store, bot_delay=0, bot_processes=0, listen=False)
    await m.start()
    bots, _ = await m.create_table(CreateTable(seats=[SeatSpec(kind="bot", bot="random")] * 2, victory_ct=200))
    await until(lambda: store.count_actions(bots.id) > 3)
    await m.stop()
    return m, bots


def test_a_table_that_does_not_load_is_reported_and_skipped(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = Store(db_url)

    async def run() -> None:
        m, bots = await bots_playing_then_stopped(store)
        # a newer table whose stored actions no longer replay (resumed first: newest first)
        broken, _ = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()]))
        with store.engine.begin() as conn:
            conn.execute(insert(ActionRow).values(table_id=broken.id, seq=1, seat=1, action={"do": "fly"},
                                                  client_id=None, by="human", created_at=_now()))
        done = store.count_actions(bots.id)
        m2 = Manager(store, bot_delay=0, bot_processes=0, listen=False)
        await m2.start()  # resumes the tables: the broken one is skipped, the bots play on
        await until(lambda: store.count_actions(bots.id) > done + 3)
        c = Frames()
        await m2.handle(c, msg(type="hello", table=broken.id, token=None))
        assert c.frames[-1]["type"] == "error" and c.frames[-1]["code"] == "unavailable", c.frames[-1]
        await m2.stop()

    with caplog.at_level(logging.WARNING, logger="civlite.server"):
        asyncio.run(run())
    store.close()
    assert any("not resumed" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    assert not [r for r in caplog.records if r.exc_info], "no traceback is logged"


def test_an_outage_at_start_delays_the_resumption_and_does_not_cancel_it(
        db_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Storage that does not answer when the server starts: listing the tables to resume is
    tried again (a warning each time, no error) until it answers, then the tables go on."""
    store = Store(db_url)

    async def run() -> None:
        _, bots = await bots_playing_then_stopped(store)
        real = store.list_tables
        failures = [2]

        def flaky(*args: Any) -> Any:
            if failures[0]:
                failures[0] -= 1
                raise ConnectionError("storage is down")
            return real(*args)

        monkeypatch.setattr(store, "list_tables", flaky)
        done = store.count_actions(bots.id)
        m2 = Manager(store, bot_delay=0, bot_processes=0, listen=False)
        m2.registry.resume = functools.partial(m2.registry.resume, first_wait=0.05)  # type: ignore[method-assign]
        await m2.start()
        await until(lambda: store.count_actions(bots.id) > done + 3)  # resumed once storage answered
        assert failures == [0]
        await m2.stop()

    with caplog.at_level(logging.WARNING, logger="civlite.server"):
        asyncio.run(run())
    store.close()
    tries = [r for r in caplog.records if "could not list the tables to resume" in r.getMessage()]
    assert len(tries) == 2 and all(r.levelno == logging.WARNING for r in tries)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("civlite")]
