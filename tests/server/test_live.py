"""Against a real uvicorn server in a subprocess: REST lobby, play, idempotent resend, errors,
hostile input, kill -9 and restart, turn clock."""

from __future__ import annotations

import contextlib
import json
import random
import time
from typing import Any

import httpx
import pytest

from civlite.engine import GameRecord
from civlite.server.storage import Store

from .conftest import Client, ServerProc, simple_action, token_of


def test_rest_lobby(server: ServerProc) -> None:
    meta = httpx.get(server.url + "/api/meta").json()
    assert meta["protocol"] == 1 and set(meta["rulesets"]) >= {"default", "quick", "balanced"}
    # every card a deck may hold: the 112 of R1.1 first, then the extras a [deck] may add (R10)
    assert len(meta["cards"]) == 256 and [c["name"] for c in meta["cards"][:2]] == ["Sumerians", "Egyptians"]
    assert meta["rulesets"]["default"]["deck"] == [16, 16, 16, 16, 16, 16, 8, 8]
    r = httpx.post(server.url + "/api/tables", json={"seats": [{"kind": "human"}]})
    assert r.status_code == 422  # fewer than 2 seats
    r = httpx.post(server.url + "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": "nosuch"}]})
    assert r.status_code == 422 and "nosuch" in r.text
    r = httpx.post(server.url + "/api/tables", json={"seats": [{"kind": "human"}] * 2, "rules": "chess"})
    assert r.status_code == 422 and "chess" in r.text
    t = server.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "ismcts"}], rules="quick", clock=60)
    assert t["seats"][0]["invite"].startswith(f"/t/{t['id']}#k=") and t["seats"][1]["invite"] is None
    assert t["rules"]["victory_ct"] == 10 and t["clock"] == 60
    listed = httpx.get(server.url + "/api/tables").json()
    assert t["id"] in [x["id"] for x in listed]
    assert token_of(t, 0) not in json.dumps(listed)  # no tokens in the public list
    assert token_of(t, 0) not in httpx.get(server.url + f"/api/tables/{t['id']}").text
    assert httpx.get(server.url + f"/api/tables/{t['id']}/record").status_code == 409  # not over: secret
    assert httpx.get(server.url + "/api/tables/nosuch").status_code == 404
    page = httpx.get(server.url + f"/t/{t['id']}")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert httpx.get(server.url + "/static/app.js").status_code == 200


def test_two_humans_and_a_bot_play_to_the_end_with_a_spectator(server: ServerProc, suits: dict[str, int]) -> None:
    t = server.create([{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "human"}], victory_ct=6)
    a, b, spec = Client(server.ws_url), Client(server.ws_url), Client(server.ws_url)
    assert a.hello(t["id"], token_of(t, 0))["seat"] == 0
    assert b.hello(t["id"], token_of(t, 2))["seat"] == 2
    w = spec.hello(t["id"], None)
    assert w["seat"] is None and w["state"]["hand"] == [] and all(p["known"] == [] for p in w["state"]["players"])
    deadline = time.monotonic() + 120
    while not (a.state and a.state["over"]):
        assert time.monotonic() < deadline
        for c in (a, b):
            if c.my_turn():
                r = c.play(simple_action(c.state, suits))  # waits for the update too (a loaded machine is slow)
                assert r["type"] == "ack", r
        for c in (a, b):
            try:
                while True:
                    c.recv(timeout=0.02)
            except TimeoutError:
                pass
    spec.until(lambda m: m["type"] == "update" and m["state"]["over"], timeout=30)
    rec = httpx.get(server.url + f"/api/tables/{t['id']}/record").json()
    game = GameRecord.from_json(rec).replay()
    assert game.is_over and game.winner == a.state["winner"]
    assert len(rec["actions"]) == a.seq
    # rematch: same tokens, a new table
    a.send({"v": 1, "type": "rematch"})
    m = a.until(lambda m: m["type"] == "rematch")
    c2 = Client(server.ws_url)
    assert c2.hello(m["table"], token_of(t, 2))["seat"] == 2
    for c in (a, b, spec, c2):
        c.close()


def test_resend_is_applied_once_and_errors_change_nothing(server: ServerProc, suits: dict[str, int]) -> None:
    t = server.create([{"kind": "human"}, {"kind": "human"}], victory_ct=6, seed=11)
    a, b = Client(server.ws_url), Client(server.ws_url)
    a.hello(t["id"], token_of(t, 0))
    b.hello(t["id"], token_of(t, 1))
    act = simple_action(a.state, suits)
    first = a.act_wait(act, id="same-id")
    assert first["type"] == "ack" and not first["duplicate"]
    again = a.act_wait(act, id="same-id")  # a resend after a network drop
    assert again == {**first, "duplicate": True}
    # from another connection of the same seat too (a reload)
    a2 = Client(server.ws_url)
    w = a2.hello(t["id"], token_of(t, 0))
    assert w["seq"] == first["seq"]
    assert a2.act_wait(act, id="same-id")["duplicate"] is True
    errors = {
        "not_your_turn": (b if a2.my_turn() else a2, {"do": "pass"}),
        "bad_action": (a2, {"do": "fly"}),
        "wrong_seat": (a2, {"do": "pass", "player": 1}),
    }
    for code, (c, action) in errors.items():
        r = c.act_wait(action)
        assert r["type"] == "error" and r["code"] == code and r["message"], r
    c = a2 if a2.my_turn() else b
    r = c.act_wait({"do": "basic", "cards": ["Greeks"] if "Greeks" not in c.state["hand"] else ["Romans"]})
    assert r["type"] == "error" and r["code"] in ("illegal", "bad_action")
    assert a2.hello(t["id"], "forged-token")["code"] == "bad_token"
    assert a2.hello("nosuch", None)["code"] == "no_table"
    w2 = Client(server.ws_url).hello(t["id"], token_of(t, 0))
    assert w2["seq"] == first["seq"] and w2["state"] == w["state"]


def test_hostile_input_10000_messages(server: ServerProc, suits: dict[str, int]) -> None:
    t = server.create([{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}], victory_ct=20, seed=3)
    a, b = Client(server.ws_url), Client(server.ws_url)
    a.hello(t["id"], token_of(t, 0))
    b.hello(t["id"], token_of(t, 1))
    acked: list[tuple[Client, str]] = []
    for _ in range(3):  # a few real moves, so replays have something to replay
        c = a if a.my_turn() else b
        if not c.my_turn():
            break
        aid = c.act(simple_action(c.state, suits))
        r = c.until(lambda m, aid=aid: m.get("id") == aid)
        assert r["type"] == "ack"
        acked.append((c, aid))
        c.until(lambda m: m["type"] == "update")
        time.sleep(0.05)
        for x in (a, b):
            try:
                while True:
                    x.recv(timeout=0.05)
            except TimeoutError:
                pass
    assert acked
    store = Store(server.db_url, migrate=False)
    before_rows = store.load_actions(t["id"])
    before = {s: Client(server.ws_url).hello(t["id"], token_of(t, s)) for s in (0, 1)}
    mover = a if a.my_turn() else b
    waiter = b if mover is a else a
    rng = random.Random(1)
    card_names = list(suits)
    hostile: list[tuple[Client, str | bytes, str]] = []  # (connection, frame, expected reply)
    for i in range(10000):
        k = i % 10
        if k == 0:
            if i % 30 == 10:  # valid JSON nested 1,000 deep
                hostile.append((mover, "[" * 1000 + "]" * 1000, "error"))
            elif i % 30 == 20:  # a deep action
                deep = "[" * 900 + "]" * 900
                hostile.append((mover, f'{{"v": 1, "type": "action", "id": "d{i}", "action": {{"do": {deep}}}}}', "error"))
            else:
                hostile.append((mover, "{" * rng.randint(1, 50), "error"))
        elif k == 1:
            hostile.append((mover, json.dumps({"v": rng.choice([0, 2, "1", None]), "type": "ping"}), "error"))
        elif k == 2:
            hostile.append((waiter, json.dumps({"v": 1, "type": "action", "id": f"h{i}", "action": {"do": "pass"}}), "error"))
        elif k == 3:  # a replay of an acknowledged action, by the seat that sent it
            who, aid = rng.choice(acked)
            hostile.append((who, json.dumps({"v": 1, "type": "action", "id": aid, "action": {"do": "pass"}}), "ack"))
        elif k == 4:
            hostile.append((mover, json.dumps({"v": 1, "type": "hello", "table": t["id"], "token": f"x{i}"}), "error"))
        elif k == 5:
            cards = rng.sample(card_names, rng.randint(1, 7))
            do = rng.choice(["basic", "advanced", "meld", "discard"])
            if do in ("basic", "advanced") and set(cards) & set(mover.state["hand"]):
                cards = [c for c in cards if c not in mover.state["hand"]][:1] or ["Greeks"]
            hostile.append((mover, json.dumps({"v": 1, "type": "action", "id": f"h{i}", "action": {"do": do, "cards": cards, "target": rng.randint(-1, 9)}}), "maybe"))
        elif k == 6:
            hostile.append((mover, json.dumps({"v": 1, "type": "action", "id": f"h{i}", "action": {"do": "pass", "player": 7}}), "error"))
        elif k == 7:
            hostile.append((mover, bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40))), "error"))
        elif k == 8 and i % 20 == 8:  # 'do' of the wrong type
            bad = rng.choice([[], {}, 5, None, True, ["pass"]])
            hostile.append((mover, json.dumps({"v": 1, "type": "action", "id": f"h{i}", "action": {"do": bad}}), "error"))
        elif k == 8:
            hostile.append((mover, json.dumps({"v": 1, "type": rng.choice(["hello", "action", "x", 5]), "id": i}), "error"))
        else:
            hostile.append((mover, json.dumps([1, 2, {"v": 1}]) if i % 20 == 9 else "x" * 17000, "error"))
    log_from = server.log_path.stat().st_size
    replies: dict[Client, list[dict]] = {a: [], b: []}
    for start in range(0, len(hostile), 500):  # in bursts: a client that never reads gets dropped
        sent = {a: 0, b: 0}
        for c, frame, _exp in hostile[start:start + 500]:
            c.send(frame)
            sent[c] += 1
        for c in (a, b):
            got = 0
            while got < sent[c]:
                m = c.recv(timeout=30)
                if m["type"] in ("error", "ack"):
                    replies[c].append(m)
                    got += 1
                else:
                    assert m["type"] == "presence", m  # no update: nothing changed
    kinds = [m["type"] for c in (a, b) for m in replies[c]]
    assert kinds.count("ack") == 1000 and all(m["duplicate"] for c in (a, b) for m in replies[c] if m["type"] == "ack")
    errs = [m for c in (a, b) for m in replies[c] if m["type"] == "error"]
    assert len(errs) == 9000 and all(m["code"] and m["message"] for m in errs)
    assert server.alive()
    logged = server.log_path.read_bytes()[log_from:].decode(errors="replace")
    assert "Traceback" not in logged and "ERROR" not in logged and "internal error" not in logged, logged[-3000:]
    after_rows = store.load_actions(t["id"])
    assert after_rows == before_rows
    after = {s: Client(server.ws_url).hello(t["id"], token_of(t, s)) for s in (0, 1)}
    for s in (0, 1):
        assert after[s]["state"] == before[s]["state"] and after[s]["seq"] == before[s]["seq"]
    # and the game goes on
    c = a if a.my_turn() else b
    assert c.act_wait(simple_action(c.state, suits))["type"] == "ack"
    store.close()


def test_kill_9_restart_reconnect_continue(db_url: str, suits: dict[str, int]) -> None:
    """On SQLite and (marked postgres) on PostgreSQL."""
    url = db_url
    srv = ServerProc(url).start()
    port = srv.port
    try:
        t = srv.create([{"kind": "human"}, {"kind": "bot", "bot": "random"}], victory_ct=8, seed=21)
        tok = token_of(t, 0)
        a = Client(srv.ws_url)
        a.hello(t["id"], tok)
        for _ in range(12):
            a.until(lambda m: a.my_turn(), timeout=20) if not a.my_turn() else None
            assert a.play(simple_action(a.state, suits))["type"] == "ack"
            if a.state["over"]:
                break
        assert not a.state["over"]
        a.until(lambda m: a.my_turn(), timeout=20) if not a.my_turn() else None
        last_state, last_seq = a.state, a.seq
        # one more action, sent just before the crash: its ack may or may not have been sent
        pending_action = simple_action(a.state, suits)
        pending_id = a.act(pending_action, id="in-flight")
        srv.kill9()
        a.close()
        srv2 = ServerProc(url, port=port).start()
        srv = srv2
        b = Client(srv.ws_url)  # the page reloads and reconnects with its token
        w = b.hello(t["id"], tok)
        assert w["seq"] in (last_seq, last_seq + 1) or w["seq"] > last_seq  # bots may have moved after it
        if w["seq"] == last_seq:  # the in-flight action was not committed: the position is the last acknowledged one
            assert w["state"] == last_state
        # the client resends what was never acknowledged: applied exactly once
        r = b.play(pending_action, id=pending_id)
        assert r["type"] == "ack" and r["seq"] == last_seq + 1
        assert r["duplicate"] == (w["seq"] > last_seq)
        # play to the end
        while not (b.state and b.state["over"]):
            if b.my_turn():
                assert b.play(simple_action(b.state, suits))["type"] == "ack"
            else:
                b.until(lambda m: m["type"] == "update", timeout=20)
        rec = GameRecord.from_json(httpx.get(srv.url + f"/api/tables/{t['id']}/record").json())
        assert rec.replay().is_over
        assert sum(1 for x in rec.actions) == b.seq
    finally:
        srv.stop()


def test_turn_clock_lets_a_bot_decide(server: ServerProc) -> None:
    t = server.create([{"kind": "human"}, {"kind": "bot", "bot": "random"}], victory_ct=6, clock=1, seed=4)
    a = Client(server.ws_url)
    w = a.hello(t["id"], token_of(t, 0))
    assert w["clock"] and w["clock"]["seat"] == 0 and w["clock"]["seconds"] == 1
    n = a.until(lambda m: m["type"] == "notice", timeout=15)
    assert "clock ran out" in n["text"] and n["seat"] == 0
    u = a.until(lambda m: m["type"] == "update", timeout=15)
    assert u["by"] == {"seat": 0, "via": "clock"}


@pytest.mark.parametrize("n", [2])
def test_bots_only_table_plays_itself(server: ServerProc, n: int) -> None:
    t = server.create([{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "heuristic"}], victory_ct=6)
    spec = Client(server.ws_url)
    m = spec.hello(t["id"], None)  # the bots may even have finished already
    if not m["state"]["over"]:
        m = spec.until(lambda m: m["type"] == "update" and m["state"]["over"], timeout=60)
    assert m["state"]["winner"] in (0, 1, None)
    spec.close()


def test_a_restarted_server_resumes_its_tables_without_clients(tmp_path_factory: pytest.TempPathFactory) -> None:
    """After kill -9 and a restart, an unfinished table's clock and bots go on by themselves (for
    a seat whose player has come and moved: a clock never runs before its player came)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('resume') / 'r.db'}"
    srv = ServerProc(url).start()
    t = srv.create([{"kind": "human"}, {"kind": "bot", "bot": "random"}], victory_ct=6, clock=1, seed=8)
    a = Client(srv.ws_url)
    a.hello(t["id"], token_of(t, 0))
    assert a.act_wait({"do": "pass"})["type"] == "ack"
    a.close()
    srv.kill9()  # the player has gone too
    store = Store(url, migrate=False)
    assert store.count_actions(t["id"]) >= 1
    srv = ServerProc(url, port=srv.port).start()
    try:
        deadline = time.monotonic() + 30
        while store.count_actions(t["id"]) < 4:  # the clock decided for seat 0, then the bot moved, ...
            assert time.monotonic() < deadline, "the table did not resume"
            time.sleep(0.2)
        by = {a.by for a in store.load_actions(t["id"])[1:]}
        assert by <= {"clock", "bot"} and "clock" in by
    finally:
        srv.stop()
        store.close()


def test_rate_limit_by_default_drops_a_flood_but_keeps_the_player(tmp_path: Any) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'rl.db'}").start()  # the default limit: 20 a second, bursts of 40
    try:
        t = srv.create([{"kind": "human"}, {"kind": "human"}])
        c = Client(srv.ws_url)
        assert c.hello(t["id"], token_of(t, 0))["type"] == "welcome"
        for _ in range(200):
            c.send({"v": 1, "type": "ping"})
        got: list[dict[str, Any]] = []
        with contextlib.suppress(TimeoutError):
            while True:
                got.append(c.recv(timeout=1.0))
        kinds = [m["type"] for m in got if m["type"] != "presence"]
        assert 35 <= kinds.count("pong") <= 60 and kinds.count("error") >= 1  # the burst, then a notice
        assert {m["code"] for m in got if m["type"] == "error"} == {"rate_limited"}
        time.sleep(1.0)
        c.send({"v": 1, "type": "ping"})
        assert c.until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"  # served again
        c.close()
    finally:
        srv.stop()
