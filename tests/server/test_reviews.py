"""Game reviews and hints on the server: a finished table's review of any seat, computed once
in the bot workers and stored with the table; hints only at practice tables, only for the
seat whose decision it is, refused elsewhere while the game runs."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

import civlite.server.reviews as reviews
from civlite.review import MARKS

from .test_secret_deal import client, create, play_out, token


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reviews, "REVIEW_BUDGET", 6)
    monkeypatch.setattr(reviews, "HINT_BUDGET", 20)


def wait_review(c: TestClient, table_id: str, seat: int) -> dict[str, Any]:
    seen = []
    for _ in range(600):
        r = c.get(f"/api/tables/{table_id}/reviews/{seat}")
        assert r.status_code == 200, r.text
        out = r.json()
        seen.append(out["status"])
        if out["status"] == "done":
            assert "running" in seen or len(seen) == 1
            return dict(out["review"])
        assert out["status"] == "running" and out["done"] <= max(out["total"], 1), out
        time.sleep(0.05)
    raise AssertionError(f"the review did not finish: {seen[-5:]}")


def test_a_finished_table_is_reviewed_once_and_stored(db_url: str) -> None:
    with client(db_url) as c:
        t = create(c, practice=True, seed=5).json()
        assert c.post(f"/api/tables/{t['id']}/reviews/0").status_code == 409  # not over yet
        play_out(c, t)
        started = c.post(f"/api/tables/{t['id']}/reviews/1")
        assert started.status_code == 200 and started.json()["status"] in ("running", "done")
        review = wait_review(c, t["id"], 1)
        assert review["seat"] == 1 and len(review["win"]) == len(review["decisions"]) > 0
        for d in review["decisions"]:
            assert d["mark"] in MARKS and d["loss"] >= 0 and d["options"] and "do" in d["chosen"]
        assert c.post(f"/api/tables/{t['id']}/reviews/1").json() == {"status": "done", "review": review}
        assert c.post(f"/api/tables/{t['id']}/reviews/2").status_code == 422
        assert c.get(f"/api/tables/{t['id']}/reviews/0").status_code == 404  # not asked for
    with client(db_url) as c:  # another process: read back, not computed again
        r = c.get(f"/api/tables/{t['id']}/reviews/1")
        assert r.status_code == 200 and r.json() == {"status": "done", "review": review}


def test_hints_at_practice_tables_only_for_the_seat_to_decide(db_url: str) -> None:
    with client(db_url) as c:
        practice = create(c, practice=True, seed=5).json()
        to_move = c.app.state.manager.tables[practice["id"]].game.to_move  # type: ignore[attr-defined]
        ok = c.post(f"/api/tables/{practice['id']}/hint", json={"token": token(practice, to_move)})
        assert ok.status_code == 200, ok.text
        h = ok.json()["hint"]
        assert "do" in h["action"] and h["reason"] and 0 <= h["win"] <= 1
        other = c.post(f"/api/tables/{practice['id']}/hint", json={"token": token(practice, 1 - to_move)})
        assert other.status_code == 409 and "whose decision" in other.text
        assert c.post(f"/api/tables/{practice['id']}/hint", json={"token": "nope"}).status_code == 403
        ranked = create(c).json()
        refused = c.post(f"/api/tables/{ranked['id']}/hint", json={"token": token(ranked, 0)})
        assert refused.status_code == 403 and "practice tables only" in refused.text


def test_the_tutorial_table_and_its_coach(db_url: str) -> None:
    from civlite.review.tutorial import SEED

    with client(db_url) as c:
        made = c.post("/api/tutorial")
        assert made.status_code == 201, made.text
        t = made.json()
        assert t["name"] == "Tutorial" and t["practice"] and t["seed"] == SEED
        tok = token(t, 0)
        first = c.post(f"/api/tables/{t['id']}/coach", json={"token": tok}).json()["notes"]
        keys = [n["key"] for n in first]
        if c.app.state.manager.tables[t["id"]].game.to_move == 0:  # type: ignore[attr-defined]
            assert keys[:2] == ["rise", "action"]
        assert c.post(f"/api/tables/{t['id']}/coach", json={"token": tok}).json()["notes"] == []  # once each
        other = create(c).json()
        refused = c.post(f"/api/tables/{other['id']}/coach", json={"token": token(other, 0)})
        assert refused.status_code == 403 and "tutorial tables only" in refused.text
