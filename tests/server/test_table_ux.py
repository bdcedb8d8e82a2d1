"""What the browser table relies on: the clock waits for a seat's player, clock moves are marked
and told on return, the end of a game reveals every hand, a finished game replays as any seat,
and names are made safe."""

from __future__ import annotations

import time

import httpx

from civlite.engine import CARDS, GameRecord, action_from_json
from civlite.server.lobby import BOT_NAMES
from civlite.server.names import safe_name

from .conftest import Client, ServerProc, simple_action, token_of


def test_the_clock_waits_until_the_seat_has_connected(server: ServerProc) -> None:
    t = server.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=6, clock=1, seed=4)
    spec = Client(server.ws_url)
    w = spec.hello(t["id"], None)
    assert w["clock"] is None  # Ann is to move but has not come: no clock runs
    time.sleep(1.6)  # longer than the clock: nothing may have been decided for her
    assert httpx.get(server.url + f"/api/tables/{t['id']}").json()["turn"] == 1
    spec.send({"v": 1, "type": "ping"})
    assert spec.until(lambda m: m["type"] in ("pong", "update"))["type"] == "pong"
    a = Client(server.ws_url)
    w = a.hello(t["id"], token_of(t, 0))
    assert w["clock"] and w["clock"]["seat"] == 0  # her clock starts when she comes
    p = spec.until(lambda m: m["type"] == "presence")
    assert p["clock"] and p["clock"]["seat"] == 0  # and the others see it start
    # she is told once, in the second person; the others in the third; the move is the safest: a pass
    n = a.until(lambda m: m["type"] == "notice", timeout=15)
    assert n["text"] == "Your turn clock ran out: the safest move was made for you."
    u = a.until(lambda m: m["type"] == "update", timeout=15)
    assert u["by"] == {"seat": 0, "via": "clock"} and all(e["via"] == "clock" for e in u["events"])
    assert sum(f["type"] == "notice" for f in a.frames) == 1
    assert spec.until(lambda m: m["type"] == "notice")["text"] == "Ann's clock ran out: the safest move was made for them."
    a.close()
    spec.close()


def test_the_safest_move_is_a_pass_or_the_least_costly_discard() -> None:
    from civlite.bots.heuristic import evaluator, suit_counts
    from civlite.engine import DISCARD_BASE, PASS_ID, Game, Pass
    from civlite.server.clocks import safest

    g = Game(2, seed=3)
    first = safest(g)
    assert isinstance(first, Pass) and first.player == g.to_move
    discards = 0
    while not g.is_over and discards < 3:  # the largest legal move each time, until discards come
        ids = g.legal_ids()
        if PASS_ID not in ids and ids[0] >= DISCARD_BASE:
            discards += 1
            move = safest(g)
            lo = evaluator(g.rules, g.n).loss(suit_counts(g.hands[g.to_move]))
            least = min(lo[i - DISCARD_BASE] for i in ids)
            # its first card is one whose loss costs the hand least
            assert least in {lo[int(c.suit)] for c in move.cards}  # type: ignore[attr-defined]
            g.apply(move)  # and it is legal
        else:
            g.apply_id(ids[-1])
    assert discards >= 1


def test_a_table_may_choose_the_clocks_stand_in_bot(server: ServerProc) -> None:
    r = httpx.post(server.url + "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "bot"}], "stand_in": "nosuch"})
    assert r.status_code == 422 and "stand-in" in r.json()["detail"]
    t = server.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=6, clock=1,
                      seed=4, stand_in="easy")
    a = Client(server.ws_url)
    a.hello(t["id"], token_of(t, 0))
    n = a.until(lambda m: m["type"] == "notice", timeout=15)
    assert n["text"].startswith("Your turn clock ran out: the ") and n["text"].endswith(" bot decided for you.")
    assert "safest" not in n["text"]
    a.close()


def test_clock_moves_made_while_away_are_told_on_return(server: ServerProc) -> None:
    t = server.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=30, clock=1, seed=5)
    a = Client(server.ws_url)
    a.hello(t["id"], token_of(t, 0))
    a.close()  # she leaves with her clock running
    spec = Client(server.ws_url)
    spec.hello(t["id"], None)
    spec.until(lambda m: m["type"] == "update" and m["by"]["via"] == "clock", timeout=15)
    b = Client(server.ws_url)
    w = b.hello(t["id"], token_of(t, 0))
    assert w["missed_clock"] >= 1
    assert any(e.get("via") == "clock" for e in w["log"])  # and the log marks them
    b.close()
    again = Client(server.ws_url)
    assert "missed_clock" not in again.hello(t["id"], token_of(t, 0))  # told once
    again.close()
    spec.close()


def test_the_end_reveals_every_hand_and_the_game_replays_as_any_seat(server: ServerProc, suits: dict[str, int]) -> None:
    t = server.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=5, seed=11)
    r = httpx.get(server.url + f"/api/tables/{t['id']}/replay")
    assert r.status_code == 409 and "over" in r.json()["detail"]  # nothing before the end
    a = Client(server.ws_url)
    w = a.hello(t["id"], token_of(t, 0))
    assert "final" not in w
    last: dict = w
    while not (a.state and a.state["over"]):
        if a.my_turn():
            a.act(simple_action(a.state, suits))
        last = a.until(lambda m: m["type"] == "update", timeout=30)
    final = last["final"]
    assert len(final["hands"]) == 2 and final["ct"][final["winner"]] >= 5
    assert all(c in suits for h in final["hands"] for c in h)
    for seat, q in ((None, ""), (1, "?seat=1"), (0, "?seat=0")):
        rep = httpx.get(server.url + f"/api/tables/{t['id']}/replay{q}").json()
        assert rep["seat"] == seat and rep["steps"][0]["seq"] == 0
        assert len(rep["steps"]) == a.seq + 1 and rep["steps"][-1]["state"]["over"]
        hands = [s["state"]["hand"] for s in rep["steps"]]
        assert all(h == [] for h in hands) if seat is None else any(hands)  # a spectator sees no hand
        if seat is not None:  # a seat's replay holds only what that seat saw: never the other hand
            other = 1 - seat
            for s in rep["steps"]:
                assert all(p["seat"] == other for p in s["state"]["players"])
    assert httpx.get(server.url + f"/api/tables/{t['id']}/replay?seat=7").status_code == 422
    a.close()


def test_names_are_made_safe_and_bots_get_distinct_names(server: ServerProc) -> None:
    assert safe_name("\u202eevil\u202c  name\n") == "evil name"
    assert safe_name("\u2067x\u2069") == "x" and safe_name(None) == ""
    cards = {c.name for c in CARDS}
    assert not any(n in c or c in n for n in BOT_NAMES for c in cards)  # a bot name is never a card's
    t = server.create([{"kind": "human", "name": "\u202eAnn"}, {"kind": "bot"}, {"kind": "bot", "name": "Nefertiti"},
                       {"kind": "bot"}])
    names = [s["name"] for s in t["seats"]]
    assert names[0] == "Ann" and len(set(names)) == 4 and names[2] == "Nefertiti"
    assert set(names[1::2]) <= set(BOT_NAMES)


def test_the_record_keeps_who_played_each_action(server: ServerProc) -> None:
    """Bots' moves too: the replay credits each step to its seat (not all to seat 0)."""
    t = server.create([{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "heuristic"},
                       {"kind": "bot", "bot": "random"}], victory_ct=5)
    deadline = time.monotonic() + 240  # a bound on a loaded machine, not a speed check
    while httpx.get(server.url + f"/api/tables/{t['id']}").json()["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    rec = httpx.get(server.url + f"/api/tables/{t['id']}/record").json()
    assert all(isinstance(a.get("player"), int) for a in rec["actions"])
    steps = httpx.get(server.url + f"/api/tables/{t['id']}/replay").json()["steps"][1:]
    assert all(s["by"]["seat"] is not None and s["by"]["via"] == "bot" for s in steps)
    assert [s["by"]["seat"] for s in steps] == [a["player"] for a in rec["actions"]]
    # each credit is the seat the rules asked (a short game may end before the last seat's first
    # decision, so the seats are checked against a replay, not counted)
    game = GameRecord.from_json(rec).initial()
    for step, action in zip(steps, rec["actions"], strict=True):
        assert step["by"]["seat"] == game.to_move
        game.apply(action_from_json(action))
    assert game.over and len({s["by"]["seat"] for s in steps}) >= 2
