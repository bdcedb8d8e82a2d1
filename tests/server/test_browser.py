"""Real browser (Playwright + Debian's Chromium): two players create, join and play a full game.

Run on its own: ``pytest -m browser tests/server``. Screenshots go to artifacts/server/.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import ARTIFACTS, ServerProc

pytestmark = pytest.mark.browser

PREFERRED = ["Golden Age", "Pass the Torch", "Greatness", "Wisdom", "Raid", "Vision", "Foundations", "Culture", "Growth"]


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def step(page: Any, shots: dict[str, bool], who: str) -> bool:
    """Answer this page's pending decision by clicking, like a player would. True if it clicked."""
    kind = page.evaluate("document.body.dataset.decision || ''")
    if not kind or page.locator("[data-testid=decision] >> text=sending").count():
        return False
    if kind == "action":
        for name in PREFERRED:
            btn = page.locator(f'button.ability.ok[data-ability="{name}"]')
            if btn.count():
                btn.first.click()
                if page.locator("[data-target]").count():
                    if not shots.get("target"):
                        shots["target"] = True
                        shot(page, f"{who}-choose-target")
                    page.locator("[data-target]").first.click()
                return True
        page.click("[data-choice=pass]")
    elif kind == "meld":
        meld = page.locator("[data-choice=meld]:not([disabled])")
        if meld.count():
            shot(page, f"{who}-meld-possible")
            meld.click()
        else:
            page.click("[data-choice=pass]")
    elif kind in ("vision", "foundations"):
        if not shots.get(kind):
            shots[kind] = True
            shot(page, f"{who}-{kind}")
        page.locator("[data-take]").first.click()
    elif kind.endswith("_discard"):
        n = int(page.get_attribute("[data-testid=decision]", "data-count") or "1")
        for _ in range(n):
            page.locator("[data-hand]:not(.sel)").first.click()
        if not shots.get("discard"):
            shots["discard"] = True
            shot(page, f"{who}-discard-picker")
        page.click("[data-choice=discard]")
    else:
        return False
    return True


def test_two_players_create_join_and_play_to_the_end(browser: Any, tmp_path: Any) -> None:
    if ARTIFACTS.exists():
        for old_shot in ARTIFACTS.glob("*.png"):
            old_shot.unlink()
    srv = ServerProc(f"sqlite:///{tmp_path / 'b.db'}", bot_delay=0.05).start()
    try:
        desk = browser.new_context(viewport={"width": 1280, "height": 900})
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        a = desk.new_page()
        b = phone.new_page()
        errors: list[str] = []
        for p in (a, b):
            p.on("pageerror", lambda e: errors.append(str(e)))
        # the lobby: 3 seats, two humans and a bot, a low victory target
        a.goto(srv.url + "/")
        a.wait_for_selector("[data-testid=create-table]")
        a.select_option("#nseats", "3")
        a.fill(".seatrow[data-seat='0'] .sname", "Ann")
        a.select_option("[data-testid=seat-kind-1]", "human")
        a.fill(".seatrow[data-seat='1'] .sname", "Bob")
        a.select_option("[data-testid=seat-kind-2]", "bot:random")
        a.select_option("#rules", "quick")
        a.fill("#victory", "6")
        a.fill("#tname", "Browser test")
        shot(a, "01-lobby")
        a.click("[data-testid=create-table]")
        a.wait_for_selector("[data-testid=invite-1]")
        invite = a.input_value("[data-testid=invite-1]")
        assert "#k=" in invite
        assert a.locator("[data-testid=open-tables] >> text=Browser test").count() >= 0
        shot(a, "02-created")
        a.click("[data-testid=play-0]")
        a.wait_for_selector("[data-testid=hand]")
        b.goto(invite)
        b.wait_for_selector("[data-testid=hand]")
        assert b.evaluate("document.body.dataset.seat") == "1"
        shot(a, "03-table-desktop")
        shot(b, "04-table-phone")
        # a spectator in a third context sees no hand
        spec = browser.new_context(viewport={"width": 800, "height": 900}).new_page()
        spec.goto(srv.url + a.url.split("#")[0].split(srv.url)[1])
        spec.wait_for_selector("[data-testid=track-0]")
        assert spec.locator("[data-testid=hand]").count() == 0
        shots: dict[str, bool] = {}
        deadline = time.monotonic() + 240
        clicks = 0
        reloaded = False
        while not (a.evaluate("document.body.dataset.over") and b.evaluate("document.body.dataset.over")):
            assert time.monotonic() < deadline, "the game did not end in time"
            acted = False
            for page, who in ((a, "ann"), (b, "bob")):
                if step(page, shots, who):
                    acted = True
                    clicks += 1
            if clicks == 6 and not reloaded:  # reload the phone's page in mid-game: it resumes its seat
                reloaded = True
                before = b.evaluate("document.body.dataset.seq")
                b.reload()
                b.wait_for_selector("[data-testid=hand]")
                b.wait_for_function(f"+document.body.dataset.seq >= {before}")
            if clicks == 10 and not shots.get("mid"):
                shots["mid"] = True
                shot(a, "05-midgame-desktop")
                shot(b, "06-midgame-phone")
            a.wait_for_timeout(30 if acted else 60)
        a.wait_for_selector("[data-testid=winner]")
        b.wait_for_selector("[data-testid=winner]")
        spec.wait_for_selector("[data-testid=winner]")
        shot(a, "07-winner-desktop")
        shot(b, "08-winner-phone")
        assert clicks > 3
        assert errors == [], errors
        # the log cites rules
        assert a.locator("[data-testid=log] .rule").count() > 5
        # rematch: both end up at the new table, in their own seats
        old = a.url
        a.click("[data-testid=rematch]")
        a.wait_for_function(f"location.href !== {old!r}")
        a.wait_for_selector("[data-testid=hand]")
        assert a.evaluate("document.body.dataset.seat") == "0"
        b.locator("#gorematch").click()
        b.wait_for_selector("[data-testid=hand]")
        assert b.evaluate("document.body.dataset.seat") == "1"
        assert a.url.split("#")[0] == b.url.split("#")[0] != old.split("#")[0]
        shot(b, "09-rematch-phone")
        # closing the page and coming back: the lobby lists this browser's seats to resume
        b.goto(srv.url + "/")
        b.wait_for_selector("[data-testid=my-tables] >> text=resume")
        shot(b, "10-lobby-your-seats-phone")
        b.locator("[data-testid=my-tables] >> text=resume").first.click()
        b.wait_for_selector("[data-testid=hand]")
        assert b.evaluate("document.body.dataset.seat") == "1"
        # a forged seat token is refused with a clear message
        spec.goto(srv.url + b.url.split(srv.url)[1].split("#")[0] + "#k=forged-token")
        spec.wait_for_selector("[data-testid=join-error] >> text=not valid")
    finally:
        srv.stop()


def test_turn_clock_shows_and_the_table_says_a_bot_decided(browser: Any, tmp_path: Any) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'c.db'}", bot_delay=0.05).start()
    try:
        t = srv.create([{"kind": "human", "name": "Slow"}, {"kind": "bot", "bot": "heuristic"}], victory_ct=6, clock=2)
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(srv.url + t["seats"][0]["invite"])
        page.wait_for_selector("[data-testid=clock] >> text=Slow")  # the countdown of seat 1
        page.wait_for_selector("[data-testid=notice] >> text=clock ran out", timeout=20000)
        shot(page, "11-clock-ran-out-phone")
    finally:
        srv.stop()


def test_a_player_chooses_which_card_pays(browser: Any, tmp_path: Any) -> None:
    """Cards of one suit play alike (R1.2), but opponents may know some of them: a tapped card
    pays first. Seed 2 deals seat 0 Stonehenge and Oracle at Delphi (Stonehenge shown first)."""
    srv = ServerProc(f"sqlite:///{tmp_path / 'p.db'}", bot_delay=0.05).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], seed=2)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + t["seats"][0]["invite"])
        page.wait_for_selector("[data-testid=decision][data-kind=action]")
        wonders = page.eval_on_selector_all("[data-testid=hand] .card.s2", "els => els.map(e => e.dataset.hand)")
        assert wonders == ["Stonehenge", "Oracle at Delphi"]
        page.click('[data-hand="Oracle at Delphi"]')
        page.wait_for_selector("[data-testid=pay-hint] >> text=Oracle at Delphi")
        assert page.locator('[data-testid=hand] .card.sel[data-hand="Oracle at Delphi"]').count() == 1
        shot(page, "12-choose-the-card-that-pays")
        page.click('button.ability.ok[data-ability="Greatness"]')
        page.wait_for_selector("text=Greatness: Ann paid Oracle at Delphi")
        assert page.locator('[data-testid=hand] [data-hand="Stonehenge"]').count() == 1  # the other one stays
        assert not errors, errors
    finally:
        srv.stop()
