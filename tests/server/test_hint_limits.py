"""Hints are limited per client address (a token bucket: 429 with Retry-After and a sentence
saying why) and per server (at most ``HINTS_RUNNING`` computed at once, ``HINTS_WAITING``
waiting; past that 429), so many askers cannot take the workers other tables' bots think in."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import civlite.server.reviews as reviews
from civlite.server.app import create_app

from .test_secret_deal import create, token

PATIENCE = 60.0  # a bound on waiting for an event, not a timing assertion


class FakeHint:
    def to_json(self) -> dict[str, Any]:
        return {"action": {"do": "pass"}, "label": "Pass", "reason": "a test", "win": 0.5}


PROXY = "10.0.0.9"  # the test client stands for a reverse proxy, whose X-Forwarded-For names the asker


def client(db_url: str) -> TestClient:
    app = create_app(db_url, bot_delay=0, rate_limit=0, bot_processes=0, allow_hosts=["testserver"],
                     trusted_proxies=[PROXY])
    return TestClient(app, client=(PROXY, 50000))


def ask(c: TestClient, table: dict[str, Any], address: str = "10.0.0.1") -> httpx.Response:
    to_move = c.app.state.manager.tables[table["id"]].game.to_move  # type: ignore[attr-defined]
    r: httpx.Response = c.post(f"/api/tables/{table['id']}/hint", json={"token": token(table, to_move)},
                               headers={"X-Forwarded-For": address})
    return r


def test_hints_are_limited_per_address(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reviews, "hint", lambda *a: FakeHint())
    monkeypatch.setattr(reviews, "HINTS_PER_MINUTE", 0.01)  # nothing comes back during the test
    monkeypatch.setattr(reviews, "HINT_BURST", 3)
    with client(db_url) as c:
        t = create(c, practice=True, seed=5).json()
        for _ in range(3):
            assert ask(c, t).status_code == 200
        refused = ask(c, t)
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        body = refused.json()
        assert body["code"] == "rate_limited" and "too many hints asked from your address" in body["detail"]
        assert ask(c, t, "10.0.0.2").status_code == 200  # another address has a budget of its own
        assert ask(c, t).status_code == 429


def test_hints_computed_at_once_are_bounded(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reviews, "HINTS_PER_MINUTE", 0)  # no limit per address: many askers at once
    monkeypatch.setattr(reviews, "HINTS_RUNNING", 1)
    monkeypatch.setattr(reviews, "HINTS_WAITING", 2)
    lock, release, started = threading.Lock(), threading.Event(), threading.Event()
    running, most = 0, 0

    def slow_hint(*args: Any) -> FakeHint:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        started.set()
        release.wait(PATIENCE)
        with lock:
            running -= 1
        return FakeHint()

    monkeypatch.setattr(reviews, "hint", slow_hint)
    with client(db_url) as c:
        t = create(c, practice=True, seed=5).json()
        answers: list[httpx.Response] = []

        def asker() -> None:
            r = ask(c, t)
            with lock:
                answers.append(r)

        threads = [threading.Thread(target=asker) for _ in range(6)]
        for th in threads:
            th.start()
        deadline = time.monotonic() + PATIENCE
        while not (started.is_set() and len(answers) >= 3):  # 1 running, 2 waiting, 3 refused
            assert time.monotonic() < deadline, f"only {len(answers)} answers"
            time.sleep(0.02)
        refused = list(answers)
        assert [r.status_code for r in refused] == [429, 429, 429]
        for r in refused:
            assert r.json()["code"] == "busy" and int(r.headers["Retry-After"]) >= 1
        release.set()
        for th in threads:
            th.join(PATIENCE)
        assert sorted(r.status_code for r in answers) == [200, 200, 200, 429, 429, 429]
        assert most == 1
        assert c.app.state.hints.asked == 0  # type: ignore[attr-defined]
