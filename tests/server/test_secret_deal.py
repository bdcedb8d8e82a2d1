"""Issue 13.1 and the table-creation checks of 13.4: online tables deal from a secret
128-bit seed, kept in storage and published with the record only once the game is over;
a chosen seed only on a practice table, which every seat sees marked; bot specs and
seeds are checked at creation (a 422 naming the problem)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from civlite.bots import decide, make_bot
from civlite.engine import GameRecord
from civlite.server.app import create_app
from civlite.server.botspecs import MAX_BOT_ITERATIONS, MAX_BOT_SECONDS, bot_for
from civlite.server.storage import Store


def client(db_url: str) -> TestClient:
    return TestClient(create_app(db_url, bot_delay=0, rate_limit=0, bot_processes=0, allow_hosts=["testserver"]))


def create(c: TestClient, **body: Any) -> Any:
    return c.post("/api/tables", json={"seats": [{"kind": "human"}, {"kind": "human"}], "victory_ct": 4, **body})


def token(table: dict[str, Any], seat: int) -> str:
    return str(table["seats"][seat]["invite"].split("#k=")[1])


def play_out(c: TestClient, table: dict[str, Any]) -> list[str]:
    """Both seats play random moves to the end; returns every frame's text."""
    texts: list[str] = []
    bot = make_bot("random", seed=3)
    with c.websocket_connect("/ws") as w0, c.websocket_connect("/ws") as w1:
        ws = [w0, w1]
        states = []
        for i, w in enumerate(ws):
            w.send_json({"v": 1, "type": "hello", "table": table["id"], "token": token(table, i)})
            t = w.receive_text()
            texts.append(t)
            states.append(json.loads(t)["state"])
        from civlite.engine import Game  # the server's game, rebuilt from what it published

        n = 0
        while not states[0]["over"]:
            seat = states[0]["pending"]["player"]
            # the client cannot know the game; ask the server's own copy through the app state
            game: Game = c.app.state.manager.tables[table["id"]].game  # type: ignore[attr-defined]
            n += 1
            ws[seat].send_json({"v": 1, "type": "action", "id": f"m{n}", "action": decide(bot, game).to_json()})
            for i, w in enumerate(ws):
                while True:
                    t = w.receive_text()
                    texts.append(t)
                    m = json.loads(t)
                    if m["type"] == "update" and m["seq"] == n:
                        states[i] = m["state"]
                        break
                    assert m["type"] in ("ack", "presence"), m
    return texts


def test_an_online_table_deals_from_a_secret_seed_published_once_the_game_is_over(db_url: str) -> None:
    with client(db_url) as c:
        made = create(c)
        assert made.status_code == 201, made.text
        t = made.json()
        assert t["practice"] is False and t["seed"] is None
        store: Store = c.app.state.manager.store  # type: ignore[attr-defined]
        info = store.get_table(t["id"])
        assert info is not None and not info.seeded
        secret = info.seed
        # stored as hex (too big for BIGINT); the game deals from it
        assert c.app.state.manager.tables[t["id"]].game.seed == secret  # type: ignore[attr-defined]
        others = [store.get_table(create(c).json()["id"]) for _ in range(3)]
        seeds = [secret, *(o.seed for o in others if o is not None)]
        assert len(set(seeds)) == 4 and max(s.bit_length() for s in seeds) > 100  # 128 random bits
        assert c.get(f"/api/tables/{t['id']}/record").status_code == 409  # not before the end
        texts = play_out(c, t)
        # no frame a seat received holds the secret (in decimal or hex)
        assert not [x for x in texts if str(secret) in x or format(secret, "x") in x]
        rec = c.get(f"/api/tables/{t['id']}/record")
        assert rec.status_code == 200
        record = GameRecord.from_json(rec.json())
        assert record.seed == secret
        g = record.replay()
        assert g.is_over and len(record.actions) == json.loads(texts[-1])["seq"]


def test_a_chosen_seed_only_on_a_practice_table_which_every_seat_sees(db_url: str) -> None:
    with client(db_url) as c:
        r = create(c, seed=7)
        assert r.status_code == 422 and r.json()["code"] == "seed_needs_practice" and "practice" in r.json()["detail"]
        r = create(c, seed=10**30, practice=True)
        assert r.status_code == 422 and "seed" in r.text
        r = create(c, seed=-1, practice=True)
        assert r.status_code == 422
        r = create(c, seed=7, practice=True)
        assert r.status_code == 201
        t = r.json()
        assert t["practice"] is True and t["seed"] == 7
        assert c.get(f"/api/tables/{t['id']}").json()["practice"] is True
        for seat in (0, 1, None):  # both seats and a spectator are told
            with c.websocket_connect("/ws") as w:
                w.send_json({"v": 1, "type": "hello", "table": t["id"], "token": token(t, seat) if seat is not None else None})
                m = w.receive_json()
                assert m["type"] == "welcome" and m["table"]["practice"] is True and m["table"]["seed"] == 7
        info = c.app.state.manager.store.get_table(t["id"])  # type: ignore[attr-defined]
        assert info.seed == 7 and info.seeded and info.ruleset() is not None
        r = create(c, practice=True)  # practice without a seed: one is drawn, and shown
        assert r.status_code == 201 and isinstance(r.json()["seed"], int)


@pytest.mark.parametrize(("spec", "says"), [
    (f"ismcts:iterations={10**9}", f"iterations={MAX_BOT_ITERATIONS}"),
    ("ismcts:seconds=3600", "seconds=5"),
    ("ismcts:itrations=100", "no option 'itrations'"),
    ("ismcts:iterations=0", "iterations must be"),
    ("heuristic:depth=3", "no option"),
    ("deep-blue", "unknown bot 'deep-blue'"),
])
def test_a_bad_or_unbounded_bot_spec_is_refused_at_creation(sqlite_url: str, spec: str, says: str) -> None:
    with client(sqlite_url) as c:
        r = c.post("/api/tables", json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": spec}]})
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "bad_bot" and says in r.json()["detail"] and "Seat 2" in r.json()["detail"]  # as the lobby numbers seats
        assert c.get("/api/tables").json() == []  # nothing was made


def test_a_search_bot_is_always_bounded_in_time() -> None:
    bot, _ = bot_for("ismcts:iterations=500", 1)
    assert getattr(bot, "seconds", None) == MAX_BOT_SECONDS and getattr(bot, "iterations", None) == 500
    # a table stored before the caps plays the capped default of its level, never the huge spec
    bot, _ = bot_for(f"ismcts:iterations={10**9}", 1)
    assert getattr(bot, "iterations", None) == 1000 and getattr(bot, "seconds", None) == MAX_BOT_SECONDS
    assert bot_for("random", 1)[1] == "random"
