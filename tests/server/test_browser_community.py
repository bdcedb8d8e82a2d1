"""Around the table in a real browser: two strangers meet in the lobby, each takes an open seat,
and they play to the end, chatting (hostile lines shown as text); a profile made on one browser
context is restored on another by its link; a rated game moves both ratings once; the turn's
notification when the tab is hidden; the new pages audited with axe; tap targets on a phone.

Run on its own: ``pytest -p no:xdist -m browser tests/server``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Client, ServerProc, rated5_env, token_of
from .test_browser import DESKTOP, PHONE, audit, shot, step, watch

pytestmark = pytest.mark.browser

FAST = ["--connections-per-address", "10000", "--tables-per-minute", "0"]


def _take_from_lobby(page: Any, srv: ServerProc, table: str, name: str | None) -> None:
    page.goto(srv.url + "/")
    page.wait_for_selector(f"[data-testid=waiting-tables] li[data-table='{table}']")
    if name is not None:
        page.fill("#join-name", name)
    page.click(f"[data-testid=waiting-tables] li[data-table='{table}'] [data-testid=take-seat]")
    page.wait_for_url(lambda url: f"/t/{table}" in url)


def _play_both(pages: list[Any], seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not all(p.evaluate("document.body.dataset.over") for p in pages):
        assert time.monotonic() < deadline, "the game did not end in time"
        moved = False
        for i, p in enumerate(pages):
            moved = step(p, {f"pay-{i}": True, "discard": True}, f"s{i}") or moved
        if not moved:
            pages[0].wait_for_timeout(50)


def test_two_strangers_meet_in_the_lobby_take_open_seats_and_play_chatting(browser: Any, tmp_path: Any) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'meet.db'}", bot_delay=0.05, rate_limit=0, args=FAST).start()
    try:
        t = srv.create([{"kind": "open"}, {"kind": "open"}], victory_ct=5, name="Meet")
        a = browser.new_context(viewport=DESKTOP).new_page()
        b = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        errs_a, errs_b = watch(a), watch(b)
        a.goto(srv.url + "/")
        a.wait_for_selector(f"[data-testid=waiting-tables] li[data-table='{t['id']}']")
        assert audit(a, "lobby with open seats") == []
        _take_from_lobby(a, srv, t["id"], "Ann")
        a.wait_for_selector("[data-testid=waiting-room]")
        assert "1 more player" in a.inner_text("[data-testid=waiting-room]")
        assert audit(a, "waiting room") == []
        # a chat line before the game: markup and a direction override stay mere text
        a.fill("[data-testid=chat-input]", "hi <b id=bold>there</b> \u202eevil")
        a.click("[data-testid=chat-send]")
        a.wait_for_selector("[data-testid=chat-log] li .chat-text")
        # the phone: tap targets of the lobby's seat button, measured before taking it
        b.goto(srv.url + "/")
        b.wait_for_selector("[data-testid=take-seat]")
        box = b.locator("[data-testid=take-seat]").first.bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 44, box
        _take_from_lobby(b, srv, t["id"], "Bea")
        for p in (a, b):
            p.wait_for_selector("[data-testid=table]")
        line = b.locator("[data-testid=chat-log] li").first
        line.wait_for()
        assert line.locator(".chat-text").inner_text() == "hi <b id=bold>there</b> evil"
        assert b.locator("#bold").count() == 0 and a.locator("#bold").count() == 0
        assert "Ann" in line.inner_text()
        for sel in ("[data-testid=chat-send]", "[data-testid=chat-input]"):
            box = b.locator(sel).bounding_box()
            assert box and box["height"] >= 44, (sel, box)
        b.fill("[data-testid=chat-input]", "good luck!")
        b.press("[data-testid=chat-input]", "Enter")
        a.wait_for_selector("[data-testid=chat-log] li:has-text('good luck!')")
        # Ann mutes Bea: her lines are hidden on Ann's page (a count says so)
        a.click("[data-testid=chat] details.mute summary")
        a.check("[data-testid=mute-1]")
        assert a.locator("[data-testid=chat-log] li:has-text('good luck!')").count() == 0
        a.uncheck("[data-testid=mute-1]")
        shot(a, "chat-desktop")
        shot(b, "chat-phone")
        assert audit(a, "table with chat") == [] and audit(b, "phone table with chat") == []
        _play_both([a, b])
        b.fill("[data-testid=chat-input]", "gg")
        b.click("[data-testid=chat-send]")
        a.wait_for_selector("[data-testid=chat-log] li:has-text('gg')")
        assert httpx.get(srv.url + f"/api/tables/{t['id']}").json()["status"] == "over"
        assert errs_a == [] and errs_b == []
    finally:
        srv.stop()
    log = srv.log_path.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-2000:]


def _make_profile(page: Any, srv: ServerProc, name: str) -> dict[str, Any]:
    page.goto(srv.url + "/profile")
    page.wait_for_selector("#profile-name")
    page.fill("#profile-name", name)
    page.click("[data-testid=make-profile]")
    page.wait_for_selector("[data-testid=restore-link]")
    stored: dict[str, Any] = page.evaluate("JSON.parse(localStorage.getItem('civlite.profile'))")
    return stored


@pytest.mark.postgres
def test_a_profile_is_restored_by_its_link_and_a_rated_game_moves_both_ratings_once(
        browser: Any, pg_url: str, tmp_path: Path) -> None:
    srv = ServerProc(pg_url, bot_delay=0.05, rate_limit=0, args=FAST, env=rated5_env(tmp_path)).start()
    try:
        a = browser.new_context(viewport=DESKTOP).new_page()
        errs = watch(a)
        ann = _make_profile(a, srv, "Ann")
        assert audit(a, "profile") == []
        link = a.input_value("[data-testid=restore-link]")
        # another device: the link restores the same profile
        other = browser.new_context(viewport=DESKTOP).new_page()
        other.goto(link)
        other.wait_for_selector("[data-testid=restore-link]")
        assert other.evaluate("JSON.parse(localStorage.getItem('civlite.profile')).id") == ann["id"]
        assert "Ann" in other.inner_text("[data-testid=profile-page]")
        b = browser.new_context(viewport=DESKTOP).new_page()
        bea = _make_profile(b, srv, "Bea")
        t = srv.create([{"kind": "open"}, {"kind": "open"}], rules="rated5", name="Rated", rated=True)
        _take_from_lobby(a, srv, t["id"], None)
        _take_from_lobby(b, srv, t["id"], None)
        for p in (a, b):
            p.wait_for_selector("[data-testid=table]")
        seats = httpx.get(srv.url + f"/api/tables/{t['id']}").json()["seats"]
        assert {s["profile"] for s in seats} == {ann["id"], bea["id"]} and {s["name"] for s in seats} == {"Ann", "Bea"}
        _play_both([a, b])

        def ratings() -> list[tuple[int, float]]:
            got = [httpx.get(srv.url + f"/api/profiles/{p['id']}").json() for p in (ann, bea)]
            return [(g["games"], g["rating"]) for g in got]

        deadline = time.monotonic() + 20
        while any(g == 0 for g, _ in ratings()):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        moved = ratings()
        fresh = httpx.post(srv.url + "/api/profiles", json={"name": "New"}).json()["rating"]
        assert all(g == 1 and r != fresh for g, r in moved), moved
        # the same record replayed (in the browser, and the table rebuilt after a restart): no second rating
        a.click("[data-testid=replay-open]")
        a.wait_for_selector("[data-testid=replay]")
        srv.stop()
        srv.start()
        assert httpx.get(srv.url + f"/api/tables/{t['id']}/replay").status_code == 200
        time.sleep(0.5)
        assert ratings() == moved
        # the pages: the leaderboard and a profile's history
        a.goto(srv.url + "/leaderboard")
        a.wait_for_selector("[data-testid=board-empty]")  # one game against one opponent ranks nobody
        assert audit(a, "leaderboard") == []
        a.goto(srv.url + f"/p/{ann['id']}")
        a.wait_for_selector("[data-testid=history] tbody tr")
        assert audit(a, "public profile") == []
        # revoked: a new key, and the old restore link no longer works
        a.goto(srv.url + "/profile")
        a.click("[data-testid=new-key]")
        a.wait_for_function(f"document.querySelector('[data-testid=restore-link]').value !== {link!r}")
        third = browser.new_context(viewport=DESKTOP).new_page()
        third.goto(link)
        third.wait_for_selector("[data-testid=profile-error]:has-text('does not work')")
        assert errs == []
    finally:
        srv.stop()


SPY = """
window.__notes = [];
const Real = window.Notification;
class Spy extends Real { constructor(title, opts) { window.__notes.push([title, opts && opts.body]); super(title, opts); } }
window.Notification = Spy;
Object.defineProperty(document, 'hidden', { get: () => window.__hidden === true });
"""


def test_a_notification_is_raised_when_the_tab_is_hidden(browser: Any, tmp_path: Any) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'note.db'}", bot_delay=0.3).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=30, seed=3)
        ctx = browser.new_context(viewport=DESKTOP, permissions=["notifications"])
        ctx.add_init_script(SPY)
        page = ctx.new_page()
        errors = watch(page)
        page.goto(srv.url + t["seats"][0]["invite"])
        page.wait_for_selector("[data-testid=decision]")
        # off until the player turns it on (the title is told always)
        assert page.evaluate("localStorage.getItem('civlite.turnNotify')") is None
        page.click("details.menu summary")
        page.check("[data-testid=turn-notify]")
        page.wait_for_function("localStorage.getItem('civlite.turnNotify') === '1'")
        assert page.is_checked("[data-testid=turn-notify]") and not page.is_checked("[data-testid=turn-sound]")
        page.click("details.menu summary")
        deadline = time.monotonic() + 60
        while page.evaluate("document.body.dataset.decision") == "":
            assert time.monotonic() < deadline
            page.wait_for_timeout(50)
        assert "Your move" in page.title()
        page.evaluate("window.__hidden = true")  # the player looks elsewhere
        # play until it becomes this seat's turn again, with the bot moving in between
        while not page.evaluate("window.__notes.length"):
            assert time.monotonic() < deadline
            if not step(page, {"pay-n": True, "discard": True}, "n"):
                page.wait_for_timeout(50)
        title, body = page.evaluate("window.__notes[0]")
        assert title == "Civ Lite: your turn" and body
        assert errors == []
    finally:
        srv.stop()


def _say(srv: ServerProc, table: str, token: str | None, text: str, name: str | None = None) -> Client:
    c = Client(srv.ws_url)
    assert c.hello(table, token)["type"] == "welcome"
    c.send({"v": 1, "type": "chat", "text": text, **({"name": name} if name else {})})
    got = c.until(lambda m: m["type"] == "error" or (m["type"] == "chat" and m["line"]["text"] == text))
    assert got["type"] == "chat", got
    return c


def _server_mutes(srv: ServerProc, key: str) -> set[str]:
    return set(httpx.post(srv.url + "/api/profiles/me/mutes", json={"key": key}, timeout=10).json()["mutes"])


def _lines(page: Any) -> list[str]:
    return [x.strip() for x in page.locator("[data-testid=chat-log] li .chat-text").all_inner_texts()]


@pytest.mark.postgres
def test_mutes_follow_the_profile_to_another_device_and_work_without_one(browser: Any, pg_url: str) -> None:
    """Ann mutes Bea (who has a profile: muted at every table) and Cy (no profile: that seat);
    the mutes are kept with Ann's profile, so on a second device restored by her link Bea's
    lines are hidden at another table too; a player may hide spectators' lines everywhere
    (Settings); without a profile, mutes are kept by the browser alone."""
    srv = ServerProc(pg_url, rate_limit=0, args=FAST).start()
    clients: list[Client] = []
    try:
        a = browser.new_context(viewport=DESKTOP).new_page()
        errs = watch(a)
        ann = _make_profile(a, srv, "Ann")
        link = a.input_value("[data-testid=restore-link]")
        bea = httpx.post(srv.url + "/api/profiles", json={"name": "Bea"}).json()
        t1 = srv.create([{"kind": "human", "name": "Ann", "profile": ann["key"]},
                         {"kind": "human", "name": "Bea", "profile": bea["key"]}, {"kind": "human", "name": "Cy"}],
                        victory_ct=30, name="One")
        clients += [_say(srv, t1["id"], token_of(t1, 1), "bea here"), _say(srv, t1["id"], token_of(t1, 2), "cy here"),
                    _say(srv, t1["id"], None, "just watching", "Wes")]
        a.goto(srv.url + t1["seats"][0]["invite"])
        a.wait_for_function("document.querySelectorAll('[data-testid=chat-log] li').length === 3")
        a.click("[data-testid=chat] details.mute summary")
        assert "at every table" in a.inner_text("[data-testid=chat] details.mute label:has([data-testid=mute-1])")
        a.check("[data-testid=mute-1]")
        a.check("[data-testid=mute-2]")
        assert _lines(a) == ["just watching"]
        assert "2 lines from muted players hidden" in a.inner_text("[data-testid=chat-hidden]")
        deadline = time.monotonic() + 10
        while _server_mutes(srv, ann["key"]) != {f"p:{bea['id']}", f"t:{t1['id']}:2"}:
            assert time.monotonic() < deadline, _server_mutes(srv, ann["key"])
            time.sleep(0.1)
        # another device, restored by the link: the profile's mutes are loaded with it
        b = browser.new_context(viewport=DESKTOP).new_page()
        errs_b = watch(b)
        b.goto(link)
        b.wait_for_selector("[data-testid=mute-count]:has-text('Muted in chat: 2')")
        t2 = srv.create([{"kind": "human", "name": "Ann", "profile": ann["key"]},
                         {"kind": "human", "name": "Bea", "profile": bea["key"]}], victory_ct=30, name="Two")
        clients += [_say(srv, t2["id"], token_of(t2, 1), "bea again"), _say(srv, t2["id"], None, "hi all", "Wes")]
        b.goto(srv.url + t2["seats"][0]["invite"])
        b.wait_for_selector("[data-testid=chat-log] li:has-text('hi all')")
        assert _lines(b) == ["hi all"]  # Bea is muted at this table too
        b.click("[data-testid=chat] details.mute summary")
        assert b.is_checked("[data-testid=mute-1]")
        # a player's own setting hides spectators' lines at every table
        b.click("details.menu summary")
        b.check("[data-testid=hide-spectators]")
        assert _lines(b) == [] and b.is_disabled("[data-testid=mute-spectators]")
        assert audit(b, "table with muted players") == []
        b.uncheck("[data-testid=hide-spectators]")
        assert _lines(b) == ["hi all"]
        # unmuted on this device: unmuted for the profile
        b.uncheck("[data-testid=mute-1]")
        b.wait_for_selector("[data-testid=chat-log] li:has-text('bea again')")
        deadline = time.monotonic() + 10
        while _server_mutes(srv, ann["key"]) != {f"t:{t1['id']}:2"}:
            assert time.monotonic() < deadline, _server_mutes(srv, ann["key"])
            time.sleep(0.1)
        a.reload()  # the first device loads the change when the table opens again
        a.wait_for_selector("[data-testid=chat-log] li:has-text('bea here')")
        assert _lines(a) == ["bea here", "just watching"]
        # no profile (Cy's browser): a mute kept by this browser only, and it holds after a reload
        c = browser.new_context(viewport=DESKTOP).new_page()
        errs_c = watch(c)
        c.goto(srv.url + t1["seats"][2]["invite"])
        c.wait_for_selector("[data-testid=chat-log] li:has-text('bea here')")
        c.click("[data-testid=chat] details.mute summary")
        c.check("[data-testid=mute-1]")
        assert "bea here" not in _lines(c)
        assert c.evaluate("JSON.parse(localStorage.getItem('civlite.mutes'))") == [f"p:{bea['id']}"]
        c.reload()
        c.wait_for_selector("[data-testid=chat-log] li:has-text('cy here')")
        assert "bea here" not in _lines(c)
        assert _server_mutes(srv, ann["key"]) == {f"t:{t1['id']}:2"} and _server_mutes(srv, bea["key"]) == set()
        assert errs == [] and errs_b == [] and errs_c == []
    finally:
        for cl in clients:
            cl.close()
        srv.stop()
    log = srv.log_path.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-2000:]
