"""The table manager in-process: commit before acknowledge, storage failures, conflicts."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from civlite.bots import decide, make_bot
from civlite.server.app import create_app
from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.state import Conn
from civlite.server.storage import Store
from civlite.server.tables import Manager
from conftest import ROOT, load_script


class RecordingConn(Conn):
    """Checks, as each frame is queued, that what it announces is already stored."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.frames: list[dict[str, Any]] = []
        self.problems: list[str] = []

    def send_text(self, text: str) -> None:
        m = json.loads(text)
        self.frames.append(m)
        if m["type"] in ("ack", "update") and self.table is not None:
            stored = self.store.count_actions(self.table.id)
            if stored < m["seq"]:
                self.problems.append(f"{m['type']} {m['seq']} sent with only {stored} actions stored")
        super().send_text(text)


def hello(table: str, token: str | None) -> str:
    return json.dumps({"v": 1, "type": "hello", "table": table, "token": token})


def act(aid: str, action: dict[str, Any]) -> str:
    return json.dumps({"v": 1, "type": "action", "id": aid, "action": action})


def test_every_ack_and_update_follows_the_commit(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")

    async def run() -> list[str]:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec(kind="bot", bot="random")],
                                                        victory_ct=6, practice=True, seed=2))
        c = RecordingConn(store)
        await m.handle(c, hello(info.id, tokens[0]))
        t = m.tables[info.id]
        bot = make_bot("random", seed=1)
        n = 0
        while not t.game.is_over and n < 500:
            if t.game.to_move == 0:
                n += 1
                await m.handle(c, act(f"x{n}", decide(bot, t.game).to_json()))
            else:
                await asyncio.sleep(0.001)
        assert t.game.is_over
        await m.stop()
        assert any(f["type"] == "ack" for f in c.frames) and any(f["type"] == "update" for f in c.frames)
        return c.problems

    assert asyncio.run(run()) == []
    store.close()


def test_a_storage_failure_changes_nothing_and_keeps_the_connection(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'b.db'}")

    async def run() -> None:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], victory_ct=6, practice=True, seed=2))
        c = RecordingConn(store)
        await m.handle(c, hello(info.id, tokens[0]))
        t = m.tables[info.id]
        before = t.game.state_json()
        real = store.append_many

        def broken(batch: Any) -> None:
            raise OSError("disk full")

        store.append_many = broken  # type: ignore[method-assign]
        await m.handle(c, act("a1", {"do": "pass"}))
        err = c.frames[-1]
        assert err["type"] == "error" and err["code"] == "not_stored" and "nothing changed" in err["message"]
        t = m.tables[info.id]
        assert t.game.state_json() == before and t.seq == 0
        store.append_many = real  # type: ignore[method-assign]
        await m.handle(c, act("a1", {"do": "pass"}))  # the same id again, now it is stored
        assert [f["type"] for f in c.frames[-2:]] == ["ack", "update"]
        assert store.count_actions(info.id) == 1
        await m.stop()

    asyncio.run(run())
    store.close()


def test_a_conflicting_process_is_refused_and_refreshed(tmp_path: Path) -> None:
    """Two managers on one database (like two processes): the second to commit a number loses cleanly."""
    url = f"sqlite:///{tmp_path / 'c.db'}"
    s1, s2 = Store(url), Store(url)

    async def run() -> None:
        m1, m2 = Manager(s1, bot_delay=0), Manager(s2, bot_delay=0)
        await m1.start()
        await m2.start()
        info, tokens = await m1.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], victory_ct=6, practice=True, seed=5))
        c1, c2 = RecordingConn(s1), RecordingConn(s2)
        await m1.handle(c1, hello(info.id, tokens[0]))
        await m2.handle(c2, hello(info.id, tokens[0]))
        await m1.handle(c1, act("first", {"do": "pass"}))
        assert c1.frames[-2]["type"] == "ack"
        # m2 has not heard of it (no NOTIFY on SQLite): its pass is number 1 too, and loses
        await m2.handle(c2, act("second", {"do": "pass"}))
        types = [f["type"] for f in c2.frames]
        assert types[-1] == "error" and c2.frames[-1]["code"] in ("conflict", "not_your_turn"), c2.frames[-1]
        assert "welcome" in types[1:]  # the refreshed position was sent
        assert m2.tables[info.id].seq == 1 and m2.tables[info.id].game.state_json() == m1.tables[info.id].game.state_json()
        # a resend of the first id through m2 is recognised as done
        await m2.handle(c2, act("first", {"do": "pass"}))
        assert c2.frames[-1] == {"v": 1, "type": "ack", "id": "first", "seq": 1, "duplicate": True}
        assert s1.count_actions(info.id) == 1
        await m1.stop()
        await m2.stop()

    asyncio.run(run())
    s1.close()
    s2.close()


def test_action_ids_are_scoped_by_seat(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'd.db'}")

    async def run() -> None:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], victory_ct=6, practice=True, seed=5))
        c0, c1 = RecordingConn(store), RecordingConn(store)
        await m.handle(c0, hello(info.id, tokens[0]))
        await m.handle(c1, hello(info.id, tokens[1]))
        t = m.tables[info.id]
        n = 0
        while t.game.to_move == 0 and n < 20:  # seat 0 passes its action and meld, discards if it must
            n += 1
            await m.handle(c0, act(f"s0-{n}", decide(make_bot("random", seed=n), t.game).to_json()))
        assert t.game.to_move == 1
        seq = t.seq
        await m.handle(c1, act("s0-1", decide(make_bot("random", seed=1), t.game).to_json()))  # same id, other seat
        assert c1.frames[-2] == {"v": 1, "type": "ack", "id": "s0-1", "seq": seq + 1, "duplicate": False}
        await m.stop()

    asyncio.run(run())
    store.close()


def test_a_second_hello_on_the_same_table_keeps_it_live(tmp_path: Path) -> None:
    """A spectator that takes a seat (its only connection) keeps receiving that table's updates."""
    store = Store(f"sqlite:///{tmp_path / 'e.db'}")

    async def run() -> None:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], victory_ct=6, practice=True, seed=5))
        c = RecordingConn(store)
        await m.handle(c, hello(info.id, None))
        t = m.tables[info.id]
        await m.handle(c, hello(info.id, tokens[0]))
        assert m.tables[info.id] is t and c in t.conns and c.seat == 0
        await m.handle(c, act("a", {"do": "pass"}))
        assert [f["type"] for f in c.frames[-2:]] == ["ack", "update"]
        # the last connection leaves a table where a human is to move and no clock runs: it is forgotten
        m.disconnect(c)
        assert info.id not in m.tables
        c2 = RecordingConn(store)
        await m.handle(c2, hello(info.id, tokens[0]))  # and rebuilt from storage
        assert m.tables[info.id].seq == 1 and c2.frames[-1]["type"] in ("welcome", "presence")
        await m.stop()

    asyncio.run(run())
    store.close()


def test_the_welcome_log_opens_with_the_first_turn_redacted_per_seat(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'o.db'}")

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], practice=True, seed=4))
        first, second = RecordingConn(store), RecordingConn(store)
        await m.handle(first, hello(info.id, tokens[0]))
        await m.handle(second, hello(info.id, tokens[1]))
        await m.stop()
        return first.frames[0], second.frames[0]

    mine, theirs = asyncio.run(run())
    store.close()
    assert mine["type"] == theirs["type"] == "welcome"
    turn, draw = mine["log"][:2]
    assert turn["kind"] == "turn" and turn["rule"] == "R4" and turn["seq"] == 0 and turn["player"] == 0
    assert draw["kind"] == "draw" and draw["rule"] == "R4.1" and len(draw["secret"]) == 2  # seat 0 drew them
    assert [e["kind"] for e in theirs["log"][:2]] == ["turn", "draw"] and not theirs["log"][1].get("secret")


def test_seat_tokens_are_stored_only_as_digests(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'h.db'}")

    async def run() -> tuple[list[str | None], Any]:
        m = Manager(store, bot_delay=0)
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec(kind="bot"), SeatSpec()]))
        c = RecordingConn(store)
        await m.handle(c, hello(info.id, tokens[2]))
        await m.stop()
        return tokens, c.frames[0]

    tokens, welcome = asyncio.run(run())
    (info,) = store.list_tables()
    store.close()
    assert tokens[0] and tokens[1] is None and tokens[2]
    assert welcome["type"] == "welcome" and welcome["seat"] == 2  # the token still finds its seat
    assert "token" not in json.dumps(info.seats).replace("token_sha256", "")
    assert all(t not in json.dumps(info.seats) for t in tokens if t)


def test_a_flood_is_dropped_unread_and_told_once_a_second(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    ping = json.dumps({"v": 1, "type": "ping"})

    async def run() -> tuple[list[str], list[str], list[str], bool]:
        m = Manager(store, bot_delay=0, rate_limit=5)  # bursts of 10
        m.sessions.MAX_DROPPED = 50
        await m.start()
        info, tokens = await m.create_table(CreateTable(seats=[SeatSpec(), SeatSpec()], practice=True, seed=1))
        c = RecordingConn(store)
        for _ in range(30):
            await m.handle(c, ping)
        flood = [f["type"] for f in c.frames]
        await asyncio.sleep(0.5)  # 2.5 messages' worth of allowance comes back
        await m.handle(c, hello(info.id, tokens[0]))
        later = [f["type"] for f in c.frames[len(flood):]]
        for _ in range(60):  # past the limit for good: disconnected
            await m.handle(c, ping)
        codes = [f.get("code", "") for f in c.frames if f["type"] == "error"]
        await m.stop()
        return flood, later, codes, c.closed

    flood, later, codes, closed = asyncio.run(run())
    store.close()
    assert flood == ["pong"] * 10 + ["error"]  # the burst, then one notice for the 20 dropped
    assert later[0] == "welcome"  # a calmer client is served again
    assert codes[0] == "rate_limited" and codes[-1] == "rate_limited" and closed


def test_server_settings_from_the_environment_are_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, bad in (("CIVLITE_RATE_LIMIT", "lots"), ("CIVLITE_BOT_DELAY", "-1"), ("CIVLITE_BOT_PROCESSES", "-2")):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ValueError, match=name):
            create_app(f"sqlite:///{tmp_path / 'e.db'}")
        monkeypatch.delenv(name)
    create_app(f"sqlite:///{tmp_path / 'e.db'}")  # the defaults


def test_search_bots_think_in_worker_processes_and_survive_their_death(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")

    async def run() -> tuple[bool, bool, int]:
        m = Manager(store, bot_delay=0.3, bot_processes=1)  # slow bots until the kill: the game
        await m.start()  # cannot end between two looks at it, however loaded the machine
        bot = "ismcts:iterations=20"
        info, _ = await m.create_table(CreateTable(seats=[SeatSpec(kind="bot", bot=bot), SeatSpec(kind="bot", bot=bot)],
                                                   victory_ct=8, practice=True, seed=3))
        t = m.tables[info.id]
        deadline = time.monotonic() + 120
        while t.seq < 3:  # the first moves come from the worker process
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        first = m.bots.pool
        assert first is not None
        for p in list(first._processes.values()):  # type: ignore[attr-defined]
            p.kill()  # a worker dies (out of memory, killed): that move is thought in a thread
        assert not t.game.is_over
        m.turns.bot_delay = 0  # the rest quickly
        while not t.game.is_over:
            assert time.monotonic() < deadline, "the bots stopped"
            await asyncio.sleep(0.05)
        replaced = m.bots.pool is not first  # the broken pool was dropped (a new one starts when needed)
        await m.stop()
        return replaced, t.game.is_over, t.seq

    replaced, over, seq = asyncio.run(run())
    assert replaced and over
    assert store.count_actions(store.list_tables(None)[0].id) == seq  # every move was committed
    store.close()


def test_the_server_bots_benchmark_runs(tmp_path: Path) -> None:
    mod = load_script(ROOT / "benchmarks" / "server_bots.py")
    r = asyncio.run(mod.run(1, 1, 0.3, "ismcts:iterations=10", tmp_path / "b.db"))
    assert r["bot_processes"] == 1 and r["moves"] >= 0 and r["loop_late_ms"]["max"] >= r["loop_late_ms"]["p50"]
