"""Around the table, against a real server (SQLite and PostgreSQL): open seats taken first come
and a table started with bots; the lobby's figures for a table evicted from memory; abandoned
tables marked, then closed; chat (bounded, cleaned, players only, hostile input); profiles
(a key, a new key revokes the old), their mutes (stored, bounded) and ratings (a rated game
moves them once)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from .conftest import Client, ServerProc, rated5_env, simple_action, token_of

FAST = ["--connections-per-address", "10000", "--tables-per-minute", "0"]


def _drain(c: Client) -> None:
    try:
        while True:
            c.recv(timeout=0.05)
    except TimeoutError:
        pass


def _play_out(clients: list[Client], suits: dict[str, int], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not all(c.state and c.state["over"] for c in clients):
        assert time.monotonic() < deadline, "the game did not end in time"
        moved = False
        for c in clients:
            if c.my_turn():
                r = c.play(simple_action(c.state or {}, suits))
                assert r["type"] == "ack", r
                moved = True
        for c in clients:
            _drain(c)
        if not moved:
            time.sleep(0.02)


def _take(srv: ServerProc, table: str, **body: Any) -> httpx.Response:
    return httpx.post(srv.url + f"/api/tables/{table}/take", json=body, timeout=10)


def test_open_seats_are_taken_first_come_and_the_game_starts_when_full(db_url: str, suits: dict[str, int]) -> None:
    srv = ServerProc(db_url, rate_limit=0, args=FAST).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}],
                       victory_ct=6)
        assert t["status"] == "waiting" and t["seats"][1]["kind"] == "open" and t["seats"][1]["invite"] is None
        assert t["host"]
        listed = httpx.get(srv.url + "/api/tables?status=open").json()
        assert t["id"] in [x["id"] for x in listed] and t["host"] not in str(listed)
        ann = Client(srv.ws_url)
        assert ann.hello(t["id"], token_of(t, 0))["table"]["status"] == "waiting"
        refused = ann.act_wait({"do": "pass"})
        assert refused["type"] == "error" and refused["code"] == "not_started"
        got = _take(srv, t["id"], name="Bea")
        assert got.status_code == 200, got.text
        assert got.json()["seat"] == 1
        again = _take(srv, t["id"], seat=1, name="Cy")  # first come: the seat is gone
        assert again.status_code == 409 and again.json()["code"] == "not_open"
        info = httpx.get(srv.url + f"/api/tables/{t['id']}").json()
        assert info["status"] == "playing" and info["seats"][1]["name"] == "Bea"
        assert t["id"] not in [x["id"] for x in httpx.get(srv.url + "/api/tables?status=open").json()]
        bea = Client(srv.ws_url)
        w = bea.hello(t["id"], got.json()["invite"].split("#k=")[1])
        assert w["seat"] == 1
        _play_out([ann, bea], suits)
        # the creator starts another table early: bots take the open seats
        t2 = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}], victory_ct=4)
        bad = httpx.post(srv.url + f"/api/tables/{t2['id']}/start", json={"token": "nope"})
        assert bad.status_code == 403 and bad.json()["code"] == "not_host"
        ok = httpx.post(srv.url + f"/api/tables/{t2['id']}/start", json={"token": t2["host"], "bot": "random"})
        assert ok.status_code == 200, ok.text
        assert ok.json()["status"] == "playing" and [s["kind"] for s in ok.json()["seats"]] == ["human", "bot", "bot"]
        assert _take(srv, t2["id"]).status_code == 409
        for c in (ann, bea):
            c.close()
    finally:
        srv.stop()


def test_the_lobby_shows_the_turn_of_a_table_that_left_memory(db_url: str, suits: dict[str, int]) -> None:
    srv = ServerProc(db_url, rate_limit=0, args=[*FAST, "--idle-seconds", "0.2"]).start()
    try:
        t = srv.create([{"kind": "human"}, {"kind": "human"}], victory_ct=60)
        a, b = Client(srv.ws_url), Client(srv.ws_url)
        a.hello(t["id"], token_of(t, 0))
        b.hello(t["id"], token_of(t, 1))
        while (a.state or {}).get("turn", 0) < 4:
            for c in (a, b):
                if c.my_turn():
                    c.play(simple_action(c.state or {}, suits))
                _drain(c)
        turn = (a.state or {})["turn"]
        a.close()
        b.close()
        deadline = time.monotonic() + 20
        while True:  # nobody watches and nothing runs: the table leaves memory; the lobby reads storage
            row = next(x for x in httpx.get(srv.url + "/api/tables").json() if x["id"] == t["id"])
            if not any(s["connected"] for s in row["seats"]):
                break
            assert time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(1.0)
        row = next(x for x in httpx.get(srv.url + "/api/tables").json() if x["id"] == t["id"])
        assert row["turn"] == turn >= 4
    finally:
        srv.stop()


def test_abandoned_tables_are_marked_then_closed(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=[*FAST, "--abandoned-seconds", "2", "--close-seconds", "8"]).start()
    try:
        t = srv.create([{"kind": "human"}, {"kind": "human"}], victory_ct=30)
        row = next(x for x in httpx.get(srv.url + "/api/tables").json() if x["id"] == t["id"])
        assert row["abandoned"] is False
        c = Client(srv.ws_url)
        c.hello(t["id"], token_of(t, 0))
        deadline = time.monotonic() + 6
        while not row["abandoned"]:  # marked after 2 s without a move, still playing
            assert time.monotonic() < deadline and row["status"] == "playing", row
            time.sleep(0.2)
            row = next(x for x in httpx.get(srv.url + "/api/tables").json() if x["id"] == t["id"])
        assert row["status"] == "playing"
        note = c.until(lambda m: m["type"] == "notice" and m["kind"] == "closed", timeout=30)
        assert "closed" in note["text"]
        assert httpx.get(srv.url + f"/api/tables/{t['id']}").json()["status"] == "closed"
        assert t["id"] not in [x["id"] for x in httpx.get(srv.url + "/api/tables").json()]
        r = c.act_wait({"do": "pass"})
        assert r["type"] == "error" and r["code"] == "closed"
        c.close()
    finally:
        srv.stop()


def test_hostile_chat_is_refused_or_neutralised_and_nothing_is_logged_as_an_error(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bea"}], victory_ct=30,
                       chat="players")
        a, b, spec = Client(srv.ws_url), Client(srv.ws_url), Client(srv.ws_url)
        a.hello(t["id"], token_of(t, 0))
        b.hello(t["id"], token_of(t, 1))
        spec.hello(t["id"], None)

        def say(c: Client, text: str, **kw: Any) -> dict[str, Any]:
            c.send({"v": 1, "type": "chat", "text": text, **kw})
            return c.until(lambda m: m["type"] in ("chat", "error"))

        line = say(a, "good luck \u202eevil\u202c <img src=x onerror=alert(1)>", name="Mallory")["line"]
        # the seat's own name (not the one given), bidi overrides gone, markup kept as mere text
        assert line["name"] == "Ann" and line["seat"] == 0
        assert line["text"] == "good luck evil <img src=x onerror=alert(1)>"
        assert b.until(lambda m: m["type"] == "chat")["line"]["n"] == line["n"]
        assert spec.until(lambda m: m["type"] == "chat")["line"]["n"] == line["n"]
        assert say(a, "x" * 301)["code"] == "chat_too_long"
        assert say(a, "\u202e\u200b \n")["code"] == "chat_empty"
        assert say(a, "y" * 3000)["code"] == "malformed"  # past the frame's own bound
        codes = [say(b, f"flood {i}")["type"] for i in range(12)]
        assert codes[:5] == ["chat"] * 5 and "error" in codes[5:]
        assert [m["code"] for m in b.frames if m["type"] == "error"] == ["chat_rate"] * codes.count("error")
        # players only: a spectator's line reaches spectators, not the players
        _drain(spec)
        mine = say(spec, "hello from the stands", name="  Ann\u2067  ")["line"]
        assert mine["seat"] is None and mine["name"] == "Spectator"  # never a typed name
        _drain(a)
        assert not [m for m in a.frames if m["type"] == "chat" and m["line"]["n"] == mine["n"]]
        # stored with the table: a new connection gets the lines it may read
        late = Client(srv.ws_url)
        w = late.hello(t["id"], token_of(t, 0))
        assert line["n"] in [x["n"] for x in w["chat"]] and mine["n"] not in [x["n"] for x in w["chat"]]
        for c in (a, b, spec, late):
            c.close()
    finally:
        srv.stop()
    log = srv.log_path.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-2000:]


def _profile(srv: ServerProc, name: str) -> dict[str, Any]:
    r = httpx.post(srv.url + "/api/profiles", json={"name": name})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_a_rated_game_moves_both_ratings_once(db_url: str, suits: dict[str, int], tmp_path: Path) -> None:
    srv = ServerProc(db_url, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        assert ann["key"] not in httpx.get(srv.url + f"/api/profiles/{ann['id']}").text
        refused = httpx.post(srv.url + "/api/tables", json={"seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"}],
                                                            "rules": "rated5", "rated": True})
        assert refused.status_code == 422 and "ladder" in refused.text
        t = srv.create([{"kind": "open"}, {"kind": "open"}], rules="rated5", rated=True)
        assert _take(srv, t["id"], name="Nobody").json()["code"] == "needs_profile"
        sa = _take(srv, t["id"], profile=ann["key"]).json()
        assert _take(srv, t["id"], profile=ann["key"]).json()["code"] == "already_seated"
        sb = _take(srv, t["id"], profile=bea["key"]).json()
        a, b = Client(srv.ws_url), Client(srv.ws_url)
        assert a.hello(t["id"], sa["invite"].split("#k=")[1])["table"]["seats"][0]["profile"] == ann["id"]
        b.hello(t["id"], sb["invite"].split("#k=")[1])
        _play_out([a, b], suits)
        a.close()
        b.close()

        def ratings() -> list[dict[str, Any]]:
            return [httpx.get(srv.url + f"/api/profiles/{p['id']}").json() for p in (ann, bea)]

        deadline = time.monotonic() + 20
        while any(p["games"] == 0 for p in ratings()):
            assert time.monotonic() < deadline, ratings()
            time.sleep(0.1)
        after = ratings()
        assert all(p["games"] == 1 and p["rating"] != ann["rating"] for p in after)
        assert after[0]["history"][0]["table"] == t["id"] and after[0]["tables"][0]["table"] == t["id"]
        # one game against one opponent does not make a rating the leaderboard lists
        assert httpx.get(srv.url + "/api/leaderboard").json() == []
        # the same record again: a restart reloads and replays the finished table: no second rating
        srv.stop()
        srv.start()
        assert httpx.get(srv.url + f"/api/tables/{t['id']}/replay").status_code == 200
        time.sleep(0.5)
        assert [(p["games"], p["rating"]) for p in ratings()] == [(p["games"], p["rating"]) for p in after]
    finally:
        srv.stop()


def test_a_profile_key_can_be_replaced_and_the_old_one_stops_working(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST).start()
    try:
        p = _profile(srv, "Ann \u202eX")
        assert p["name"] == "Ann X" and p["restore"] == f"/restore#key={p['key']}"
        # a handle is chosen once
        fixed = httpx.post(srv.url + "/api/profiles/me", json={"key": p["key"], "name": "Annie"})
        assert fixed.status_code == 409 and fixed.json()["code"] == "name_fixed"
        me = httpx.post(srv.url + "/api/profiles/me", json={"key": p["key"]}).json()
        assert me["id"] == p["id"] and me["name"] == "Ann X"
        new = httpx.post(srv.url + "/api/profiles/me/key", json={"key": p["key"]}).json()
        assert new["id"] == p["id"] and new["key"] != p["key"]
        old = httpx.post(srv.url + "/api/profiles/me", json={"key": p["key"]})
        assert old.status_code == 403 and old.json()["code"] == "bad_key"
        assert httpx.post(srv.url + "/api/profiles/me", json={"key": new["key"]}).json()["name"] == "Ann X"
        assert httpx.get(srv.url + "/api/profiles/nosuch").status_code == 404
    finally:
        srv.stop()


def _mutes(srv: ServerProc, key: str, **change: list[str]) -> httpx.Response:
    return httpx.post(srv.url + "/api/profiles/me/mutes", json={"key": key, **change}, timeout=10)


def test_mutes_follow_the_profile_bounded_and_proved_by_its_key(db_url: str) -> None:
    """A profile's mutes are stored with it (so every device signed in with it reads them), are
    changed only with its key, name a profile, a seat or a table's spectators, and stop at 200:
    a change past that is refused whole, even two sent at once."""
    from concurrent.futures import ThreadPoolExecutor

    srv = ServerProc(db_url, rate_limit=0, args=FAST).start()
    try:
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        assert _mutes(srv, ann["key"]).json() == {"mutes": [], "max": 200}
        got = _mutes(srv, ann["key"], mute=[f"p:{bea['id']}", "t:abc123:2", "t:abc123:w"])
        assert got.status_code == 200, got.text
        assert got.json()["mutes"] == sorted([f"p:{bea['id']}", "t:abc123:2", "t:abc123:w"])
        # muted again: kept once; unmute and mute in one change
        got = _mutes(srv, ann["key"], mute=[f"p:{bea['id']}", "t:x9:0"], unmute=["t:abc123:2"])
        assert got.json()["mutes"] == sorted([f"p:{bea['id']}", "t:abc123:w", "t:x9:0"])
        assert _mutes(srv, bea["key"]).json()["mutes"] == []  # each profile its own
        # the key proves the profile: a wrong or replaced key changes nothing
        assert _mutes(srv, "nosuchkey", mute=["t:x9:1"]).status_code == 403
        new = httpx.post(srv.url + "/api/profiles/me/key", json={"key": ann["key"]}).json()["key"]
        old = _mutes(srv, ann["key"], unmute=[f"p:{bea['id']}"])
        assert old.status_code == 403 and old.json()["code"] == "bad_key"
        assert len(_mutes(srv, new).json()["mutes"]) == 3
        # what a mute names is checked, and nothing is stored from a refused request
        for bad in ("bea", "p:", "p:<b>", "t:abc:", "t:abc:spectators", "t:abc:123", "x" * 65, "p:a\u202eb"):
            r = _mutes(srv, new, mute=["t:ok:1", bad])
            assert r.status_code == 422, (bad, r.text)
        assert _mutes(srv, new, mute=[f"t:t{i}:1" for i in range(201)]).status_code == 422
        assert len(_mutes(srv, new).json()["mutes"]) == 3
        # the bound: 197 more fill it, one more is refused whole (with the unmute it came with)
        assert _mutes(srv, new, mute=[f"t:t{i}:1" for i in range(197)]).json()["mutes"].__len__() == 200
        full = _mutes(srv, new, mute=["t:more:1", "t:more:2"], unmute=["t:t0:1"])
        assert full.status_code == 409 and full.json()["code"] == "too_many_mutes", full.text
        assert "200" in full.json()["detail"] and "nothing changed" in full.json()["detail"]
        now = _mutes(srv, new).json()["mutes"]
        assert len(now) == 200 and "t:t0:1" in now
        assert len(_mutes(srv, new, mute=["t:more:1"], unmute=["t:t0:1", "t:t1:1"]).json()["mutes"]) == 199
        # two changes at once, each within the bound alone but not together: one of them is refused
        bea_key = bea["key"]
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda side: _mutes(srv, bea_key, mute=[f"t:{side}{i}:0" for i in range(150)]),
                                    ("a", "b")))
        assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
        assert len(_mutes(srv, bea_key).json()["mutes"]) == 150
    finally:
        srv.stop()
    # a restart keeps them (they are stored, not in memory)
    again = ServerProc(db_url, rate_limit=0, args=FAST).start()
    try:
        assert len(_mutes(again, new).json()["mutes"]) == 199
    finally:
        again.stop()
    for s in (srv, again):
        log = s.log_path.read_text()
        assert "ERROR" not in log and "Traceback" not in log, log[-2000:]
