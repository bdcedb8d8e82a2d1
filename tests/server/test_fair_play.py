"""Rated play that cannot be gamed, tested against real servers (issue findings 1-5, 14):
a rated table is never a practice table; one profile holds one seat however many takes race
(SQLite and PostgreSQL); conceding, being voted out or abandoning a rated game loses it; a
second profile cannot feed a rating; handles are unique; a new profile key takes back seats."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from civlite.server.social_store import MU, SIGMA, Result, SocialStore
from civlite.server.storage import Store

from .conftest import Client, ServerProc, rated5_env, simple_action, token_of

FAST = ["--connections-per-address", "10000", "--tables-per-minute", "0"]


def _profile(srv: ServerProc, name: str) -> dict[str, Any]:
    r = httpx.post(srv.url + "/api/profiles", json={"name": name}, timeout=10)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def _take(srv: ServerProc, table: str, **body: Any) -> httpx.Response:
    return httpx.post(srv.url + f"/api/tables/{table}/take", json=body, timeout=30)


def _create(srv: ServerProc, **body: Any) -> httpx.Response:
    return httpx.post(srv.url + "/api/tables", json=body, timeout=30)


def _ratings(srv: ServerProc, *profiles: dict[str, Any]) -> list[dict[str, Any]]:
    return [httpx.get(srv.url + f"/api/profiles/{p['id']}", timeout=10).json() for p in profiles]


def _wait_rated(srv: ServerProc, *profiles: dict[str, Any], timeout: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        got = _ratings(srv, *profiles)
        if all(p["games"] >= 1 for p in got):
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.1)


def _seated_pair(srv: ServerProc, a: dict[str, Any], b: dict[str, Any], seats: int = 2) -> tuple[str, list[str]]:
    t = srv.create([{"kind": "open"}] * seats, rules="rated5", rated=True)
    tokens = []
    for p in (a, b):
        r = _take(srv, t["id"], profile=p["key"])
        assert r.status_code == 200, r.text
        tokens.append(r.json()["invite"].split("#k=")[1])
    return t["id"], tokens


def test_a_rated_table_is_never_a_practice_table(sqlite_url: str, tmp_path: Path) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        seats = [{"kind": "open"}, {"kind": "open"}]
        for extra, code in (({"practice": True}, "rated_practice"), ({"practice": True, "seed": 7}, "rated_practice"),
                            ({"victory_ct": 1}, "rated_rules"), ({"rules": "default"}, "rated_rules"),
                            ({"rules": "quick"}, "rated_rules")):
            r = _create(srv, seats=seats, rated=True, **{"rules": "rated5", **extra})
            assert r.status_code == 422 and r.json()["code"] == code, (extra, r.text)
        ok = _create(srv, seats=seats, rated=True, rules="rated5").json()
        assert ok["rated"] and not ok["practice"] and ok["seed"] is None
        # the lobby lists the options a rated table plays with, and a practice table as practice
        practice = _create(srv, seats=seats, practice=True, seed=3).json()
        listed = {x["id"]: x for x in httpx.get(srv.url + "/api/tables?status=open").json()}
        assert listed[ok["id"]]["rated"] and not listed[ok["id"]]["practice"]
        assert listed[ok["id"]]["rules"]["victory_ct"] == 5
        assert listed[practice["id"]]["practice"] and not listed[practice["id"]]["rated"]
        # so a rated game never serves a hint
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        tid, tokens = _seated_pair(srv, ann, bea)
        hint = httpx.post(srv.url + f"/api/tables/{tid}/hint", json={"token": tokens[0]}, timeout=30)
        assert hint.status_code in (403, 409), hint.text
        assert "hint" not in hint.json()
    finally:
        srv.stop()


def test_a_rule_set_refused_for_its_name_or_its_seats(sqlite_url: str, tmp_path: Path) -> None:
    long = tmp_path / "long.toml"
    long.write_text(f'name = "{"x" * 41}"\n')
    bad = ServerProc(sqlite_url, rate_limit=0, args=FAST, env={"CIVLITE_RULES": str(long)})
    with pytest.raises(RuntimeError, match="at most 40"):
        bad.start(timeout=60)
    bad.stop()
    three = tmp_path / "three.toml"
    three.write_text('name = "three up"\nmin_players = 3\n')
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env={"CIVLITE_RULES": str(three)}).start()
    try:
        r = _create(srv, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}], rules="three up")
        assert r.status_code == 422 and r.json()["code"] == "bad_seats" and "3 to 8" in r.text
        ok = _create(srv, seats=[{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2, rules="three up")
        assert ok.status_code == 201
        assert httpx.get(srv.url + f"/api/tables/{ok.json()['id']}").status_code == 200
    finally:
        srv.stop()


def _race(fn: Any, n: int) -> list[Any]:
    """``fn`` called ``n`` times at once (threads released together)."""
    gate = threading.Barrier(n)
    out: list[Any] = [None] * n

    def run(i: int) -> None:
        gate.wait()
        out[i] = fn(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def test_one_profile_holds_one_seat_however_many_takes_race(db_url: str, tmp_path: Path) -> None:
    srv = ServerProc(db_url, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        ann = _profile(srv, "Ann")
        for rated in (True, False):
            t = srv.create([{"kind": "open"}] * 4, rules="rated5", rated=rated)
            got = _race(lambda i, t=t: _take(srv, t["id"], profile=ann["key"]), 8)
            ok = [r for r in got if r.status_code == 200]
            assert len(ok) == 1, [r.text for r in got]
            assert {r.json()["code"] for r in got if r.status_code != 200} <= {"already_seated"}
            seats = httpx.get(srv.url + f"/api/tables/{t['id']}").json()["seats"]
            assert [s["profile"] for s in seats].count(ann["id"]) == 1
    finally:
        srv.stop()


@pytest.mark.postgres
def test_one_profile_holds_one_seat_when_two_processes_race(pg_url: str, tmp_path: Path) -> None:
    env = rated5_env(tmp_path)
    s1 = ServerProc(pg_url, rate_limit=0, args=FAST, env=env).start()
    s2 = ServerProc(pg_url, rate_limit=0, args=FAST, env=env).start()
    try:
        ann = _profile(s1, "Ann")
        t = s1.create([{"kind": "open"}] * 4, rules="rated5", rated=True)
        got = _race(lambda i: _take(s1 if i % 2 else s2, t["id"], profile=ann["key"]), 8)
        assert sum(r.status_code == 200 for r in got) == 1, [r.text for r in got]
        for srv in (s1, s2):  # each process learns of the seat (the other's through its notice)
            deadline = time.monotonic() + 30
            while [s["profile"] for s in httpx.get(srv.url + f"/api/tables/{t['id']}").json()["seats"]] \
                    .count(ann["id"]) != 1:
                assert time.monotonic() < deadline, (httpx.get(srv.url + f"/api/tables/{t['id']}").json()["seats"],
                                                     [r.text for r in got], srv.log_path.read_text()[-3000:])
                time.sleep(0.1)
    finally:
        s1.stop()
        s2.stop()


def test_conceding_a_rated_game_loses_it_and_a_bot_plays_on(sqlite_url: str, tmp_path: Path,
                                                             suits: dict[str, int]) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        # two players: a concession ends the table, the other seat wins
        tid, tokens = _seated_pair(srv, ann, bea)
        a, b = Client(srv.ws_url), Client(srv.ws_url)
        a.hello(tid, tokens[0])
        b.hello(tid, tokens[1])
        spec = Client(srv.ws_url)
        spec.hello(tid, None)
        spec.send({"v": 1, "type": "concede"})
        assert spec.until(lambda m: m["type"] == "error")["code"] == "spectator"
        a.send({"v": 1, "type": "concede"})
        note = b.until(lambda m: m["type"] == "notice" and m["kind"] == "left")
        assert note["seat"] == 0 and "conceded" in note["text"]
        table = httpx.get(srv.url + f"/api/tables/{tid}").json()
        assert table["status"] == "closed" and table["ended"] == "conceded" and table["left"] == [0]
        after = _wait_rated(srv, ann, bea)
        assert after[0]["history"][0]["rank"] == 2 and after[1]["history"][0]["rank"] == 1
        assert after[0]["mu"] < MU < after[1]["mu"]
        r = b.act_wait({"do": "pass"})
        assert r["type"] == "error" and r["code"] == "closed"
        for c in (a, b, spec):
            c.close()
        # three players: the one who concedes is replaced by a bot, and the game goes on
        t = srv.create([{"kind": "human", "name": "Dee"}, {"kind": "human", "name": "Eve"},
                        {"kind": "bot", "bot": "random"}], victory_ct=4)
        d, e = Client(srv.ws_url), Client(srv.ws_url)
        d.hello(t["id"], token_of(t, 0))
        e.hello(t["id"], token_of(t, 1))
        d.send({"v": 1, "type": "concede"})
        w = d.until(lambda m: m["type"] == "welcome" and m["seat"] is None)  # watching now
        assert w["table"]["seats"][0]["kind"] == "bot" and w["table"]["status"] == "playing"
        seq = e.seq
        # the bot in seat 0 moves when it is its turn: the game is played to its end
        deadline = time.monotonic() + 120
        while not (e.state and e.state["over"]):
            assert time.monotonic() < deadline
            if e.my_turn():
                e.play(simple_action(e.state, suits))
            else:
                e.recv(timeout=30)
        assert e.seq > seq
        assert httpx.get(srv.url + f"/api/tables/{t['id']}").json()["left"] == [0]
        for c in (d, e):
            c.close()
    finally:
        srv.stop()


def test_the_players_vote_out_a_player_who_stalls_and_it_loses(sqlite_url: str, tmp_path: Path) -> None:
    env = {**rated5_env(tmp_path), "CIVLITE_STALL_SECONDS": "1"}
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env=env).start()
    try:
        ann, bea, cyd = _profile(srv, "Ann"), _profile(srv, "Bea"), _profile(srv, "Cyd")
        t = srv.create([{"kind": "open"}] * 3, rules="rated5", rated=True)
        tokens = [_take(srv, t["id"], profile=p["key"]).json()["invite"].split("#k=")[1] for p in (ann, bea, cyd)]
        conns = [Client(srv.ws_url) for _ in range(3)]
        for c, tok in zip(conns, tokens, strict=True):
            c.hello(t["id"], tok)
        staller = next(i for i, c in enumerate(conns) if c.my_turn())
        others = [i for i in range(3) if i != staller]
        # while the staller is connected, there is no vote
        conns[others[0]].send({"v": 1, "type": "vote_end"})
        assert conns[others[0]].until(lambda m: m["type"] == "error")["code"] == "not_stalled"
        conns[staller].close()
        time.sleep(1.2)  # the stall's own length (1 s here), not a wait for an event
        conns[others[0]].send({"v": 1, "type": "vote_end"})
        got = conns[others[0]].until(lambda m: m["type"] in ("error", "notice"))
        assert got["type"] == "notice" and got["kind"] == "vote", got
        conns[others[1]].until(lambda m: m["type"] == "notice" and m["kind"] == "vote")
        conns[others[1]].send({"v": 1, "type": "vote_end"})
        conns[others[0]].until(lambda m: m["type"] == "notice" and m["kind"] == "closed")
        assert httpx.get(srv.url + f"/api/tables/{t['id']}").json()["status"] == "closed"
        profiles = [ann, bea, cyd]
        after = _wait_rated(srv, *profiles)
        assert after[staller]["history"][0]["rank"] == 3
        assert all(after[i]["history"][0]["rank"] < 3 for i in others)
        for i in others:
            conns[i].close()
    finally:
        srv.stop()


def test_walking_away_from_a_rated_game_loses_it(sqlite_url: str, tmp_path: Path) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, env=rated5_env(tmp_path),
                     args=[*FAST, "--abandoned-seconds", "0.5", "--close-seconds", "1"]).start()
    try:
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        tid, tokens = _seated_pair(srv, ann, bea)
        a, b = Client(srv.ws_url), Client(srv.ws_url)
        a.hello(tid, tokens[0])
        b.hello(tid, tokens[1])
        walker = 0 if a.my_turn() else 1
        (a if walker == 0 else b).close()
        stayer = b if walker == 0 else a
        stayer.until(lambda m: m["type"] == "notice" and m["kind"] == "closed", timeout=60)
        after = _wait_rated(srv, ann, bea)
        assert after[walker]["history"][0]["rank"] == 2 and after[1 - walker]["history"][0]["rank"] == 1
        stayer.close()
    finally:
        srv.stop()


def _seed_rated_games(url: str, a: str, b: str, n: int) -> None:
    """``n`` rated games between profiles ``a`` and ``b`` in the store (as a finished table rates them)."""
    store = Store(url)
    social = SocialStore(store)
    try:
        for i in range(n):
            tid = f"seeded{i}"
            store.create_table(id=tid, name="old", rules={}, seed=1, clock=None, rated=True,
                               seats=[{"kind": "human", "name": "x", "profile": a},
                                      {"kind": "human", "name": "y", "profile": b}])
            social.rate(tid, [Result(0, 1, a, MU, SIGMA), Result(1, 2, b, MU, SIGMA)], [(MU + 1, SIGMA), (MU - 1, SIGMA)])
    finally:
        store.close()


def test_a_second_profile_cannot_feed_a_rating(sqlite_url: str, tmp_path: Path) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        farmer, alt, other = _profile(srv, "Farmer"), _profile(srv, "Alt"), _profile(srv, "Other")
    finally:
        srv.stop()
    _seed_rated_games(sqlite_url, farmer["id"], alt["id"], 3)
    srv.start()
    try:
        t = srv.create([{"kind": "open"}, {"kind": "open"}], rules="rated5", rated=True)
        assert _take(srv, t["id"], profile=farmer["key"]).status_code == 200
        r = _take(srv, t["id"], profile=alt["key"])
        assert r.status_code == 409 and r.json()["code"] == "rated_pair_limit", r.text
        assert _take(srv, t["id"], profile=other["key"]).status_code == 200  # someone else may
        # an unrated table seats them together as before
        u = srv.create([{"kind": "open"}, {"kind": "open"}])
        assert _take(srv, u["id"], profile=farmer["key"]).status_code == 200
        assert _take(srv, u["id"], profile=alt["key"]).status_code == 200
        # three games against one opponent do not rank: the leaderboard stays empty
        assert httpx.get(srv.url + "/api/leaderboard").json() == []
    finally:
        srv.stop()


def test_handles_are_unique_and_no_seat_or_spectator_wears_another_name(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST).start()
    try:
        alice = _profile(srv, "Alice")
        for same in ("Alice", "alice", "ALICE ", "Ａｌｉｃｅ", "Al ice", "Alice\u200b"):
            r = httpx.post(srv.url + "/api/profiles", json={"name": same})
            assert r.status_code == 409 and r.json()["code"] == "name_taken", (same, r.text)
        for reserved in ("Player 1", "spectator", "Nefertiti", "\u3164"):
            r = httpx.post(srv.url + "/api/profiles", json={"name": reserved})
            assert r.status_code == 422 and r.json()["code"] == "bad_name", (reserved, r.text)
        # a seat without Alice's profile cannot be called Alice; with it, it shows her handle
        r = _create(srv, seats=[{"kind": "human", "name": "alice"}, {"kind": "bot", "bot": "random"}])
        assert r.status_code == 409 and r.json()["code"] == "name_taken"
        t = srv.create([{"kind": "open"}, {"kind": "open"}])
        assert _take(srv, t["id"], name="ALICE").json()["code"] == "name_taken"
        mine = _take(srv, t["id"], name="Mallory", profile=alice["key"]).json()
        seats = httpx.get(srv.url + f"/api/tables/{t['id']}").json()["seats"]
        assert seats[mine["seat"]]["name"] == "Alice"
        # a spectator speaks under its profile's handle or as "Spectator", never a typed name
        spec = Client(srv.ws_url)
        spec.hello(t["id"], None)
        spec.send({"v": 1, "type": "chat", "text": "hi", "name": "Alice"})
        assert spec.until(lambda m: m["type"] == "chat")["line"]["name"] == "Spectator"
        bob = _profile(srv, "Bob")
        spec.send({"v": 1, "type": "chat", "text": "hi again", "name": "Alice", "profile": bob["key"]})
        line = spec.until(lambda m: m["type"] == "chat")["line"]
        assert line["name"] == "Bob" and line["profile"] == bob["id"]
        spec.close()
    finally:
        srv.stop()


def test_a_new_profile_key_takes_back_the_seats_of_the_old_one(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST).start()
    try:
        ann = _profile(srv, "Ann")
        t = srv.create([{"kind": "open"}, {"kind": "human", "name": "Bob"}])
        old = _take(srv, t["id"], profile=ann["key"]).json()
        thief = Client(srv.ws_url)
        thief.hello(t["id"], old["invite"].split("#k=")[1])
        new = httpx.post(srv.url + "/api/profiles/me/key", json={"key": ann["key"]}, timeout=30).json()
        assert thief.until(lambda m: m["type"] == "error")["code"] == "revoked"
        again = Client(srv.ws_url)
        again.send({"v": 1, "type": "hello", "table": t["id"], "token": old["invite"].split("#k=")[1]})
        assert again.until(lambda m: m["type"] == "error")["code"] == "bad_token"
        seat = next(s for s in new["seats"] if s["table"] == t["id"])
        assert again.hello(t["id"], seat["invite"].split("#k=")[1])["seat"] == old["seat"]
        for c in (thief, again):
            c.close()
    finally:
        srv.stop()


def test_blocked_players_are_never_seated_together_and_reports_reach_the_operator(sqlite_url: str) -> None:
    srv = ServerProc(sqlite_url, rate_limit=0, args=FAST, env={"CIVLITE_OPERATOR_TOKEN": "s3cret"}).start()
    try:
        ann, bob = _profile(srv, "Ann"), _profile(srv, "Bob")
        r = httpx.post(srv.url + "/api/profiles/me/blocks", json={"key": ann["key"], "block": [bob["id"]]}).json()
        assert r["blocks"] == [bob["id"]]
        mutes = httpx.post(srv.url + "/api/profiles/me/mutes", json={"key": ann["key"]}).json()["mutes"]
        assert f"p:{bob['id']}" in mutes  # the block hides Bob's chat on Ann's devices
        t = srv.create([{"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
        assert _take(srv, t["id"], profile=ann["key"]).status_code == 200
        r2 = _take(srv, t["id"], profile=bob["key"])
        assert r2.status_code == 403 and r2.json()["code"] == "blocked"
        # a line reported by a player reaches the operator's list, and nobody else's
        c = Client(srv.ws_url)
        c.hello(t["id"], None)
        c.send({"v": 1, "type": "chat", "text": "rude words", "profile": bob["key"]})
        line = c.until(lambda m: m["type"] == "chat")["line"]
        rep = httpx.post(srv.url + "/api/reports", json={"key": ann["key"], "line": line["n"], "reason": "rude"})
        assert rep.status_code == 201 and rep.json()["new"]
        assert httpx.post(srv.url + "/api/reports", json={"key": ann["key"], "line": 10**6}).status_code == 404
        assert httpx.get(srv.url + "/api/reports").status_code == 403
        assert httpx.get(srv.url + "/api/reports", headers={"Authorization": "Bearer nope"}).status_code == 403
        listed = httpx.get(srv.url + "/api/reports", headers={"Authorization": "Bearer s3cret"}).json()
        assert listed[0]["text"] == "rude words" and listed[0]["reporter_name"] == "Ann"
        assert "<script>" in httpx.get(srv.url + "/operator").text  # the page reads them with the token
        c.close()
    finally:
        srv.stop()


def test_the_pair_limit_and_the_leaderboard_rule_on_the_store(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'x.db'}")
    social = SocialStore(store)
    try:
        ps = [social.create_profile(n)[0].id for n in ("A", "B", "C", "D")]
        assert social.pair_games(ps) == 0
        for i, (x, y) in enumerate([(0, 1), (0, 1), (0, 2), (0, 3), (0, 1)]):
            tid = f"t{i}"
            store.create_table(id=tid, name="t", rules={}, seed=1, clock=None, rated=True,
                               seats=[{"kind": "human", "profile": ps[x]}, {"kind": "human", "profile": ps[y]}])
            social.rate(tid, [Result(0, 1, ps[x], MU, SIGMA), Result(1, 2, ps[y], MU, SIGMA)],
                        [(MU + 1, SIGMA - 1), (MU - 1, SIGMA - 1)])
        assert social.pair_games([ps[0], ps[1]]) == 3 and social.pair_games([ps[0], ps[2]]) == 1
        assert social.opponents(ps) == {ps[0]: 3, ps[1]: 1, ps[2]: 1, ps[3]: 1}
        # A: 5 games against 3 opponents ranks; the others do not
        assert [p.id for p in social.leaderboard()] == [ps[0]]
    finally:
        store.close()


@pytest.mark.postgres
def test_a_seat_a_start_a_chat_line_and_a_concession_in_one_process_reach_the_other(
        pg_url: str, suits: dict[str, int]) -> None:
    s1 = ServerProc(pg_url, rate_limit=0, args=FAST).start()
    s2 = ServerProc(pg_url, rate_limit=0, args=FAST).start()
    try:
        # the creator waits on process 1; the second seat is taken through process 2
        t = s1.create([{"kind": "human", "name": "Ann"}, {"kind": "open"}], victory_ct=5)
        a = Client(s1.ws_url)
        a.hello(t["id"], token_of(t, 0))
        taken = _take(s2, t["id"], name="Bea").json()
        a.until(lambda m: m["type"] == "welcome" and m["table"]["status"] == "playing", timeout=30)
        b = Client(s2.ws_url)
        b.hello(t["id"], taken["invite"].split("#k=")[1])
        mover = a if a.my_turn() else b
        r = mover.play(simple_action(mover.state, suits))
        assert r["type"] == "ack", r  # not "not_started": both processes know the game started
        # a chat line said on process 2 reaches the player on process 1
        b.send({"v": 1, "type": "chat", "text": "hello from two"})
        assert a.until(lambda m: m["type"] == "chat", timeout=30)["line"]["text"] == "hello from two"
        # a concession on process 2 reaches process 1
        b.send({"v": 1, "type": "concede"})
        a.until(lambda m: m["type"] == "welcome" and m["table"]["status"] == "closed", timeout=30)
        for c in (a, b):
            c.close()
        # a table with open seats started through process 2 with bots: its bots move
        t2 = s1.create([{"kind": "human", "name": "Cyd"}, {"kind": "open"}, {"kind": "open"}], victory_ct=5)
        c = Client(s1.ws_url)
        c.hello(t2["id"], token_of(t2, 0))
        started = httpx.post(s2.url + f"/api/tables/{t2['id']}/start", json={"token": t2["host"], "bot": "random"})
        assert started.status_code == 200, started.text
        c.until(lambda m: m["type"] == "welcome" and m["table"]["status"] == "playing", timeout=30)
        deadline = time.monotonic() + 60
        while not any(m["type"] == "update" and m["by"]["seat"] != 0 for m in c.frames):
            assert time.monotonic() < deadline, "the bots made no move"
            if c.my_turn():
                c.play(simple_action(c.state, suits))
            else:
                try:
                    c.recv(timeout=1)
                except TimeoutError:
                    pass
        c.close()
    finally:
        s1.stop()
        s2.stop()
    for s in (s1, s2):
        log = s.log_path.read_text()
        assert "Traceback" not in log and "ERROR" not in log, log[-2000:]


def test_spectators_flooding_from_many_connections_cannot_silence_the_players(sqlite_url: str) -> None:
    # behind a trusted proxy (this test's loopback), X-Forwarded-For names each client's address
    srv = ServerProc(sqlite_url, rate_limit=0, args=[*FAST, "--trust-proxy", "127.0.0.1"]).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bea"}])
        a = Client(srv.ws_url, headers={"X-Forwarded-For": "198.51.100.1"})
        a.hello(t["id"], token_of(t, 0))
        flooder = {"X-Forwarded-For": "203.0.113.7"}
        for i in range(12):  # connection after connection: a fresh one buys no fresh budget
            c = Client(srv.ws_url, headers=flooder)
            c.hello(t["id"], None)
            for k in range(4):
                c.send({"v": 1, "type": "chat", "text": f"spam {i} {k}"})
            c.send({"v": 1, "type": "ping"})
            c.until(lambda m: m["type"] == "pong")  # every line of this connection was answered
            c.close()
        # one address said at most a spectator's burst at this table; the player still speaks
        a.send({"v": 1, "type": "chat", "text": "still here"})
        line = a.until(lambda m: m["type"] == "chat" and m["line"]["seat"] == 0)["line"]
        assert line["text"] == "still here"
        w = Client(srv.ws_url).hello(t["id"], None)
        spam = [x for x in w["chat"] if x["seat"] is None]
        assert 1 <= len(spam) <= 3, len(spam)
        a.close()
    finally:
        srv.stop()
