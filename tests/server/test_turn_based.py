"""Turn-based tables (a clock in days) and their turn mails, tested against a real server
subprocess and a real SMTP server on 127.0.0.1 (aiosmtpd): a player who is away gets a mail
with the table's link and an unsubscribe link when it becomes their turn, only after opting in
and confirming; one click on the unsubscribe link stops the next mail; the daily cap holds.

Mail goes out one at a time in the order it was asked for, so a mail that must not come is
checked by a later one that must (a confirmation mail asked for afterwards): when that one has
come, the other would have come before it."""

from __future__ import annotations

import asyncio
import email
import email.policy
import queue
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Client, ServerProc, free_port, simple_action, token_of

aiosmtpd_controller = pytest.importorskip("aiosmtpd.controller")

FAST = ["--connections-per-address", "10000", "--tables-per-minute", "0"]
SENDER = "civlite@example.test"
LINK = re.compile(r"https?://127\.0\.0\.1:\d+/\S+")


@dataclass
class Mail:
    to: list[str]
    subject: str
    body: str
    headers: dict[str, str]

    def links(self) -> list[str]:
        return LINK.findall(self.body)


class Outbox:
    """An aiosmtpd handler: every message received, in order."""

    def __init__(self) -> None:
        self.q: queue.Queue[Mail] = queue.Queue()
        self.all: list[Mail] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = msg.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
        self.q.put(Mail(list(envelope.rcpt_tos), str(msg["Subject"]), str(text),
                        {k: str(v) for k, v in msg.items()}))
        return "250 OK"

    def next(self, timeout: float = 30.0) -> Mail:
        m = self.q.get(timeout=timeout)
        self.all.append(m)
        return m


@pytest.fixture
def smtp() -> Iterator[tuple[Outbox, int]]:
    box = Outbox()
    port = free_port()  # (aiosmtpd's Controller checks it started by connecting: port 0 would not do)
    ctl = aiosmtpd_controller.Controller(box, hostname="127.0.0.1", port=port)
    ctl.start()
    try:
        yield box, port
    finally:
        ctl.stop()


def _server(db: str, port: int, daily: int = 3) -> ServerProc:
    srv = ServerProc(db, rate_limit=0, args=FAST)
    srv.env.update({"CIVLITE_SMTP_HOST": "127.0.0.1", "CIVLITE_SMTP_PORT": str(port), "CIVLITE_SMTP_FROM": SENDER,
                    "CIVLITE_PUBLIC_URL": srv.url, "CIVLITE_MAIL_DAILY": str(daily)})
    return srv.start()


def _profile(srv: ServerProc, name: str) -> dict[str, Any]:
    r = httpx.post(srv.url + "/api/profiles", json={"name": name}, timeout=10)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def _opt_in(srv: ServerProc, p: dict[str, Any], address: str) -> dict[str, Any]:
    r = httpx.post(srv.url + "/api/profiles/me/mail", json={"key": p["key"], "address": address}, timeout=10)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def _confirm(srv: ServerProc, box: Outbox, p: dict[str, Any], address: str) -> None:
    assert _opt_in(srv, p, address) == {"address": address, "confirmed": False, "available": True}
    m = box.next()
    assert m.to == [address] and "confirm" in m.subject.lower()
    link = next(x for x in m.links() if "/mail/confirm/" in x)
    assert httpx.get(link, timeout=10).status_code == 200
    r = httpx.post(srv.url + "/api/profiles/me/mail", json={"key": p["key"]}, timeout=10).json()
    assert r == {"address": address, "confirmed": True, "available": True}


def _play_until_theirs(c: Client, suits: dict[str, int]) -> None:
    """``c``'s player moves until the decision is another seat's."""
    while c.my_turn():
        assert c.state is not None
        r = c.play(simple_action(c.state, suits))
        assert r["type"] == "ack", r


def _visit(srv: ServerProc, table: str, token: str, suits: dict[str, int], watcher: Client, seat: int) -> None:
    """The away player comes back, plays their decisions and goes away again; ``watcher`` (the
    other player) waits until the server has seen them go."""
    c = Client(srv.ws_url)
    try:
        assert c.hello(table, token)["type"] == "welcome"
        _play_until_theirs(c, suits)
    finally:
        c.close()
    watcher.until(lambda m: m["type"] == "presence" and not m["connected"][seat])


def test_turn_mails_opt_in_unsubscribe_and_daily_cap(sqlite_url: str, smtp: tuple[Outbox, int],
                                                      suits: dict[str, int]) -> None:
    box, port = smtp
    srv = _server(sqlite_url, port, daily=3)
    try:
        alice, bob, dave, carol = (_profile(srv, n) for n in ("Alice", "Bob", "Dave", "Carol"))
        _confirm(srv, box, bob, "bob@example.test")  # bob's mail 1 of 3 today
        _confirm(srv, box, dave, "dave@example.test")
        _opt_in(srv, carol, "carol@example.test")  # opted in but never confirmed: no turn mail
        assert box.next().to == ["carol@example.test"]
        # the address is the profile's own: never on its public page
        assert "example.test" not in httpx.get(srv.url + f"/api/profiles/{bob['id']}", timeout=10).text

        def table(other: dict[str, Any]) -> tuple[str, str, Client]:
            t = srv.create([{"profile": alice["key"]}, {"profile": other["key"]}], clock_days=1)
            assert t["turn_based"] and t["clock"] == 86400
            c = Client(srv.ws_url)
            assert c.hello(t["id"], token_of(t, 0))["type"] == "welcome"
            return t["id"], token_of(t, 1), c

        t1, bob_token, a1 = table(bob)
        _t3, _carol_token, a3 = table(carol)
        # bob is away: when it becomes his turn, a mail with the table's link and an unsubscribe link
        _play_until_theirs(a1, suits)
        m = box.next()
        assert m.to == ["bob@example.test"] and "your turn" in m.subject.lower()
        links = m.links()
        assert f"{srv.url}/t/{t1}" in links
        assert any("/mail/unsubscribe/" in x for x in links)
        assert m.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        # the lobby lists the table among bob's turns (the key in the body, never in the address)
        turns = httpx.post(srv.url + "/api/profiles/me/turns", json={"key": bob["key"]}, timeout=10).json()
        assert [x["table"] for x in turns] == [t1] and turns[0]["turn_based"] and turns[0]["deadline"]
        mine = httpx.post(srv.url + "/api/profiles/me/turns", json={"key": alice["key"]}, timeout=10).json()
        assert t1 not in [x["table"] for x in mine]  # (at carol's table it may be alice's turn)
        # a second turn of bob's: mail 3 of 3
        _visit(srv, t1, bob_token, suits, a1, 1)
        _play_until_theirs(a1, suits)
        m = box.next()
        assert m.to == ["bob@example.test"] and f"{srv.url}/t/{t1}" in m.links()

        # dave: a turn mail, then one click on its unsubscribe link
        t2, dave_token, a2 = table(dave)
        _play_until_theirs(a2, suits)
        m = box.next()
        assert m.to == ["dave@example.test"]
        unsub = next(x for x in m.links() if "/mail/unsubscribe/" in x)
        page = httpx.get(unsub, timeout=10)
        assert page.status_code == 200 and "unsubscribed" in page.text
        r = httpx.post(srv.url + "/api/profiles/me/mail", json={"key": dave["key"]}, timeout=10).json()
        assert r["address"] is None and not r["confirmed"]

        # now three turns that must send nothing: bob's third (his daily mails are spent),
        # dave's next (unsubscribed), carol's (never confirmed)
        _visit(srv, t1, bob_token, suits, a1, 1)
        _play_until_theirs(a1, suits)
        _visit(srv, t2, dave_token, suits, a2, 1)
        _play_until_theirs(a2, suits)
        _play_until_theirs(a3, suits)
        # ... checked by a mail asked for after them all
        erin = _profile(srv, "Erin")
        _opt_in(srv, erin, "erin@example.test")
        m = box.next()
        assert m.to == ["erin@example.test"], m
        assert box.q.empty()
        sent = [x.to[0] for x in box.all]
        assert sent.count("bob@example.test") == 3 and sent.count("dave@example.test") == 2
        assert "carol@example.test" not in [x.to[0] for x in box.all[3:]]
        for c in (a1, a2, a3):
            c.close()
    finally:
        srv.stop()


def test_no_smtp_server_no_mail(sqlite_url: str) -> None:
    """Without CIVLITE_SMTP_HOST the opt-in is refused (nothing would ever be sent), and a
    turn-based table still plays: its clock is in days."""
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST).start()
    try:
        p = _profile(srv, "Alice")
        r = httpx.post(srv.url + "/api/profiles/me/mail", json={"key": p["key"], "address": "a@example.test"},
                       timeout=10)
        assert r.status_code == 422 and r.json()["code"] == "no_mail"
        r = httpx.post(srv.url + "/api/tables", json={"seats": [{}, {}], "clock_days": 3, "clock": 60}, timeout=10)
        assert r.status_code == 422 and r.json()["code"] == "bad_clock"
        r = httpx.post(srv.url + "/api/tables", json={"seats": [{}, {}], "clock_days": 8}, timeout=10)
        assert r.status_code == 422
        t = srv.create([{}, {}], clock_days=3)
        assert t["turn_based"] and t["clock"] == 3 * 86400
        c = Client(srv.ws_url)
        try:
            w = c.hello(t["id"], token_of(t, 0))
            # the clock runs at once (the other player has not come): three days from the table's start
            assert w["clock"] is not None and w["clock"]["seconds"] == 3 * 86400
        finally:
            c.close()
    finally:
        srv.stop()


def test_a_seat_that_keeps_timing_out_leaves(tmp_path: Path) -> None:
    """In one process: a turn-based seat whose clock runs out three times in a row while its
    player is away counts as having left (a bot plays on in it). The clock is shortened in
    memory to a second so that it runs out soon."""
    from civlite.server.bodies import CreateTable
    from civlite.server.storage import Store
    from civlite.server.tables import Manager
    from civlite.server.turnbased import TIMEOUTS_LEFT

    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'tb.db'}")
        m = Manager(store, bot_delay=0.0, bot_processes=0)
        await m.start()
        try:
            info, _tokens = await m.create_table(CreateTable.model_validate(
                {"seats": [{"kind": "bot", "bot": "random"}, {"name": "Away"}], "clock_days": 1}))
            t = await m.get(info.id)
            assert t is not None
            from dataclasses import replace

            async with t.lock:
                t.info = replace(t.info, clock=1)  # the away seat's decisions time out within a second
                t.acted = 0.0
                m.turns.schedule(t)
            for _ in range(2000):
                if t.info.seats[1].get("left"):
                    break
                await asyncio.sleep(0.01)
            assert t.info.seats[1].get("left") and t.info.seats[1]["kind"] == "bot", t.info.seats
            stored = await asyncio.to_thread(store.get_table, info.id)
            assert stored is not None and stored.seats[1].get("left")
            assert sum(1 for by in t.via.values() if by == "clock") >= TIMEOUTS_LEFT
        finally:
            await m.stop()
            store.close()

    asyncio.run(run())


def test_timeouts_in_a_row_survive_a_restart(tmp_path: Path) -> None:
    """The run of clock moves a seat has had since its player last moved is rebuilt from the
    stored moves: a restart (or another process taking the table over) does not forgive it."""
    from civlite.server.bodies import CreateTable
    from civlite.server.storage import Store
    from civlite.server.tables import Manager
    from civlite.server.turnbased import TIMEOUTS_LEFT

    url = f"sqlite:///{tmp_path / 'tb.db'}"

    async def play_until(m: Manager, table: str, away: int, clock_moves: int) -> None:
        """Moves for both seats: the away seat's by its clock, the other's by its player."""
        t = await m.get(table)
        assert t is not None
        while sum(1 for a in await asyncio.to_thread(m.store.load_actions, table)
                  if a.seat == away and a.by == "clock") < clock_moves:
            pending = t.game.pending
            assert pending is not None and not t.game.is_over
            by = "clock" if pending.player == away else "human"
            assert await m.moves.submit(t, pending.player, t.game.legal_actions()[0], client_id=None, by=by) is not None

    async def run() -> None:
        store = Store(url)
        m = Manager(store, bot_delay=0.0, bot_processes=0)
        await m.start()
        info, _tokens = await m.create_table(CreateTable.model_validate(
            {"seats": [{"name": "Away"}, {"name": "Here"}], "clock_days": 1}))
        # the player of seat 0 moves once, then is away for TIMEOUTS_LEFT - 1 of its decisions
        t = await m.get(info.id)
        assert t is not None
        while t.game.pending is not None and t.game.pending.player != 0:
            await m.moves.submit(t, 1, t.game.legal_actions()[0], client_id=None, by="human")
        await m.moves.submit(t, 0, t.game.legal_actions()[0], client_id=None, by="human")
        await play_until(m, info.id, 0, TIMEOUTS_LEFT - 1)
        await m.stop()
        store.close()

        store = Store(url)  # a restart: the table is rebuilt from storage
        m = Manager(store, bot_delay=0.0, bot_processes=0)
        await m.start()
        try:
            t = await m.get(info.id)
            assert t is not None and t.missed.get(0) == TIMEOUTS_LEFT - 1
            await play_until(m, info.id, 0, TIMEOUTS_LEFT)
            await m.turn_based.timed_out(t, 0)  # what the clock calls after each of its moves
            assert t.info.seats[0].get("left") and t.info.seats[0]["kind"] == "bot", t.info.seats
        finally:
            await m.stop()
            store.close()

    asyncio.run(run())


def test_no_vote_ends_a_turn_based_game_while_the_clock_runs(tmp_path: Path) -> None:
    """The vote to end a stalled game opens after the table's stall time; at a turn-based
    table a player may take the clock's days, so there it opens only when they have passed.
    The same stall at a table without days is voted out (the control)."""
    from civlite.server.bodies import CreateTable
    from civlite.server.protocol import ProtocolError
    from civlite.server.state import Conn
    from civlite.server.storage import Store
    from civlite.server.tables import Manager

    async def run() -> None:
        store = Store(f"sqlite:///{tmp_path / 'vote.db'}")
        m = Manager(store, bot_delay=0.0, bot_processes=0, stall_seconds=0.0)
        await m.start()
        try:
            for days, closes in ((1, False), (None, True)):
                info, _ = await m.create_table(CreateTable.model_validate(
                    {"seats": [{"name": "Here"}, {"name": "Away"}], "clock_days": days}))
                t = await m.get(info.id)
                assert t is not None and t.game.pending is not None
                voter = Conn()
                voter.table, voter.seat = t, 1 - t.game.pending.player
                if closes:
                    await m.leaving.vote_end(voter)
                    assert t.info.status == "closed"
                else:
                    with pytest.raises(ProtocolError) as e:
                        await m.leaving.vote_end(voter)
                    assert e.value.code == "not_stalled" and t.info.status == "playing"
        finally:
            await m.stop()
            store.close()

    asyncio.run(run())
