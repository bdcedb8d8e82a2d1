"""Leaving, voting, blocking, reporting and practice tables in a real browser: a player concedes
a two-player game (a dialog says what happens first; both players see the result), the players
vote to end a game stalled by one who is away, a practice table is made from the lobby (its mark
and its seed shown, a hint offered), and a chat line from a profile is reported and its profile
blocked. The new dialogs are audited with axe, and their tap targets measured on a phone.

Run on its own: ``pytest -p no:xdist -m browser tests/server/test_browser_fairplay.py``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import ServerProc, rated5_env
from .test_browser import DESKTOP, PHONE, audit, shot, step, tab_to, tap_targets, watch

pytestmark = pytest.mark.browser

FAST = ["--connections-per-address", "10000", "--tables-per-minute", "0"]


def _profile(srv: ServerProc, name: str) -> dict[str, Any]:
    r = httpx.post(srv.url + "/api/profiles", json={"name": name}, timeout=10)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def _signed_in(context: Any, p: dict[str, Any]) -> Any:
    """A page of ``context`` whose browser keeps profile ``p`` (as the profile page would)."""
    kept = json.dumps({"id": p["id"], "name": p["name"], "key": p["key"]})
    context.add_init_script(f"localStorage.setItem('civlite.profile', {json.dumps(kept)})")
    return context.new_page()


def test_concede_in_a_two_player_game_ends_it_and_both_players_see_the_result(browser: Any, tmp_path: Path) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'concede.db'}", rate_limit=0, args=FAST).start()
    try:
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bea"}], name="Duel")
        a = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        b = browser.new_context(viewport=DESKTOP).new_page()
        errs_a, errs_b = watch(a), watch(b)
        a.goto(srv.url + t["seats"][0]["invite"])
        b.goto(srv.url + t["seats"][1]["invite"])
        for p in (a, b):
            p.wait_for_selector("[data-testid=table]")
        assert a.locator("[data-testid=ended]").count() == 0
        # the control sits in the table's menu, reachable by keyboard; a dialog asks first
        a.click("details.menu summary")
        a.click("[data-testid=concede-open]")
        dialog = a.locator("[data-testid=concede-dialog]")
        dialog.wait_for(state="visible")
        text = dialog.inner_text()
        assert "The game ends now" in text and "Bea wins" in text and "not rated" in text, text
        assert audit(a, "concede dialog") == []
        assert tap_targets(a, "concede dialog") == []
        shot(a, "concede-dialog-phone")
        # "Keep playing" closes it and nothing happens
        a.click("[data-testid=concede-cancel]")
        dialog.wait_for(state="hidden")
        assert httpx.get(srv.url + f"/api/tables/{t['id']}").json()["status"] == "playing"
        # by keyboard alone: the menu, its button, the dialog (which opens on "Keep playing")
        a.click("details.menu summary")  # folds the menu again
        a.evaluate("document.activeElement && document.activeElement.blur()")
        tab_to(a, "details.menu summary")
        a.keyboard.press("Enter")
        tab_to(a, "[data-testid=concede-open]")
        a.keyboard.press("Enter")
        dialog.wait_for(state="visible")
        focused = "(s) => document.activeElement && document.activeElement.matches(s)"
        assert a.evaluate(focused, "[data-testid=concede-cancel]")  # the safe choice first
        a.keyboard.press("Shift+Tab")
        assert a.evaluate(focused, "[data-testid=concede-confirm]")
        a.keyboard.press("Enter")
        b.wait_for_selector("[data-testid=ended]")
        assert "You win" in b.inner_text("#ended-h")
        b.wait_for_selector("[data-testid=notice]:has-text('conceded')")
        a.wait_for_selector("[data-testid=ended]")
        assert "Bea" in a.inner_text("#ended-h") and "wins" in a.inner_text("#ended-h")
        assert "Ann" in a.inner_text("[data-testid=ended-why]")
        assert a.locator("[data-testid=concede-open]").count() == 0  # nothing left to concede
        table = httpx.get(srv.url + f"/api/tables/{t['id']}").json()
        assert table["status"] == "closed" and table["ended"] == "conceded" and table["left"] == [0]
        assert "left — bot playing" in b.inner_text("[data-testid=opp-0]")
        assert audit(b, "a game ended by a concession") == []
        shot(b, "conceded-desktop")
        assert errs_a == [] and errs_b == []
    finally:
        srv.stop()


def test_the_players_vote_to_end_a_game_stalled_by_a_player_who_is_away(browser: Any, tmp_path: Path) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'vote.db'}", rate_limit=0, args=FAST,
                     env={"CIVLITE_STALL_SECONDS": "4"}).start()
    try:
        # Cyd never comes: when it is Cyd's turn, Ann may vote the game to an end
        t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Cyd"}], name="Stalled")
        a = browser.new_context(viewport=DESKTOP).new_page()
        errs = watch(a)
        a.goto(srv.url + t["seats"][0]["invite"])
        a.wait_for_selector("[data-testid=table]")
        deadline = time.monotonic() + 60
        while not a.locator("[data-testid=vote-end]").count():
            assert time.monotonic() < deadline, "the vote was never offered"
            if not step(a, {}, "vote"):
                a.wait_for_timeout(50)
        assert "Cyd" in a.inner_text("[data-testid=vote]")
        assert audit(a, "the vote offered") == []
        a.click("[data-testid=vote-end]")
        a.wait_for_selector("[data-testid=leave-error], [data-testid=ended]")
        if a.locator("[data-testid=leave-error]").count():  # too early: the server's words are shown
            assert "vote to end the game opens" in a.inner_text("[data-testid=leave-error]")
            a.wait_for_timeout(4500)  # the stall's own length (4 s here), not a wait for an event
            a.click("[data-testid=vote-end]")
        a.wait_for_selector("[data-testid=ended]")
        assert "ended early" in a.inner_text("#ended-h")
        table = httpx.get(srv.url + f"/api/tables/{t['id']}").json()
        assert table["status"] == "closed" and table["ended"] == "closed"
        assert errs == []
    finally:
        srv.stop()


def test_a_practice_table_made_from_the_lobby_shows_its_mark_and_seed(browser: Any, tmp_path: Path) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'practice.db'}", bot_delay=0.05, rate_limit=0, args=FAST,
                     env=rated5_env(tmp_path)).start()
    try:
        cyd = _profile(srv, "Cyd")
        page = _signed_in(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), cyd)
        errs = watch(page)
        page.goto(srv.url + "/")
        page.wait_for_selector("[data-testid=create]")
        # a rated table cannot be a practice table, nor choose its target
        page.fill("#tname", "Ranked")
        page.check("#rated")
        assert page.is_disabled("#practice") and page.is_disabled("#victory")
        page.wait_for_selector("[data-testid=rated-note]")
        # the server names its rated rule set (/api/meta): the lobby locks the rules to it
        assert page.is_disabled("#rules") and page.input_value("#rules") == "rated5"
        assert page.input_value("#victory") == "5"
        page.click("[data-testid=create-table]")
        page.wait_for_selector("[data-testid=created]")
        assert page.locator("[data-testid=created-practice]").count() == 0
        ranked = [x for x in httpx.get(srv.url + "/api/tables").json() if x["name"] == "Ranked"]
        assert ranked and ranked[0]["rated"] and not ranked[0]["practice"] and ranked[0]["seed"] is None
        page.wait_for_selector("[data-testid=open-tables] li:has-text('Ranked') [data-testid=tag-rated]")
        assert page.locator("[data-testid=open-tables] li:has-text('Ranked') [data-testid=tag-practice]").count() == 0
        page.uncheck("#rated")
        assert page.is_enabled("#practice") and page.is_enabled("#victory")
        page.fill("#tname", "Drill")
        page.check("#practice")
        page.fill("#seed", "4242")
        assert audit(page, "lobby, practice chosen") == []
        assert tap_targets(page, "lobby, practice chosen") == []
        page.click("[data-testid=create-table]")
        page.wait_for_selector("[data-testid=created-practice]")
        assert page.inner_text("[data-testid=created-seed]") == "4242"
        info = httpx.get(srv.url + "/api/tables").json()
        mine = [x for x in info if x["name"] == "Drill"]
        assert mine and mine[0]["practice"] and mine[0]["seed"] == 4242 and not mine[0]["rated"]
        # the lobby's list marks it
        page.wait_for_selector("[data-testid=open-tables] li:has-text('Drill') [data-testid=tag-practice]")
        page.click("[data-testid=play-0]")
        page.wait_for_selector("[data-testid=table]")
        assert "seed 4242" in page.inner_text("[data-testid=practice]")
        page.wait_for_selector("[data-testid=decision][data-kind=action]")
        page.wait_for_selector("[data-testid=hint]")  # a hint is offered at a practice table
        assert errs == []
    finally:
        srv.stop()


def test_a_chat_line_is_reported_and_its_profile_blocked(browser: Any, tmp_path: Path) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 'report.db'}", bot_delay=0.2, rate_limit=0, args=FAST,
                     env={"CIVLITE_OPERATOR_TOKEN": "op-secret"}).start()
    try:
        ann, bea = _profile(srv, "Ann"), _profile(srv, "Bea")
        t = srv.create([{"kind": "human", "name": "Ann", "profile": ann["key"]}, {"kind": "bot", "bot": "random"}],
                       name="Chatty", victory_ct=60)
        a = _signed_in(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True), ann)
        b = _signed_in(browser.new_context(viewport=DESKTOP), bea)
        errs_a, errs_b = watch(a), watch(b)
        a.goto(srv.url + t["seats"][0]["invite"])
        b.goto(srv.url + f"/t/{t['id']}")
        for p in (a, b):
            p.wait_for_selector("[data-testid=chat]")
        # the spectator speaks under her profile's handle, never a typed name
        b.fill("[data-testid=chat-input]", "you play badly")
        b.click("[data-testid=chat-send]")
        line = a.locator("[data-testid=chat-log] li:has-text('you play badly')")
        line.wait_for()
        assert "Bea" in line.inner_text()
        # Ann's own lines offer no menu; Bea's line does
        a.fill("[data-testid=chat-input]", "hello all")
        a.click("[data-testid=chat-send]")
        a.wait_for_selector("[data-testid=chat-log] li:has-text('hello all')")
        assert a.locator("[data-testid=chat-log] li:has-text('hello all') [data-testid=line-menu]").count() == 0
        line.locator("[data-testid=line-menu]").click()
        dialog = a.locator("[data-testid=line-dialog]")
        dialog.wait_for(state="visible")
        assert "you play badly" in dialog.inner_text()
        assert audit(a, "a chat line's menu") == []
        a.click("[data-testid=report-open]")
        a.fill("[data-testid=report-reason]", "rude")
        assert audit(a, "the report form") == []
        assert tap_targets(a, "the report form") == []
        a.click("[data-testid=report-send]")
        a.wait_for_selector("[data-testid=line-done]:has-text('Reported')")
        a.click("[data-testid=line-close]")
        dialog.wait_for(state="hidden")
        reports = httpx.get(srv.url + "/api/reports", headers={"Authorization": "Bearer op-secret"}).json()
        assert [(r["text"], r["reason"], r["reporter_name"]) for r in reports] == [("you play badly", "rude", "Ann")]
        # then Ann blocks Bea: a confirmation first; then Bea's lines are hidden from Ann's chat
        line.locator("[data-testid=line-menu]").click()
        dialog.wait_for(state="visible")
        a.click("[data-testid=block-open]")
        a.wait_for_selector("[data-testid=block-confirm]")
        assert "never seated" in dialog.inner_text()
        assert audit(a, "the block confirmation") == []
        a.click("[data-testid=block-confirm]")
        a.wait_for_selector("[data-testid=line-done]:has-text('Blocked')")
        a.click("[data-testid=line-close]")
        a.wait_for_selector("[data-testid=chat-hidden]")
        assert a.locator("[data-testid=chat-log] li:has-text('you play badly')").count() == 0
        got = httpx.post(srv.url + "/api/profiles/me/blocks", json={"key": ann["key"]}).json()
        assert got["blocks"] == [bea["id"]]
        # Bea's next line does not show on Ann's page either (Ann's own line does)
        b.fill("[data-testid=chat-input]", "still here")
        b.click("[data-testid=chat-send]")
        b.wait_for_selector("[data-testid=chat-log] li:has-text('still here')")
        a.fill("[data-testid=chat-input]", "after the block")
        a.click("[data-testid=chat-send]")
        a.wait_for_selector("[data-testid=chat-log] li:has-text('after the block')")
        assert a.locator("[data-testid=chat-log] li:has-text('still here')").count() == 0
        # the profile page lists the block, and lifts it
        a.goto(srv.url + "/profile")
        a.wait_for_selector(f"[data-testid=unblock-{bea['id']}]")
        assert "Bea" in a.inner_text("[data-testid=blocks]")
        assert audit(a, "profile with a block") == []
        a.click(f"[data-testid=unblock-{bea['id']}]")
        a.wait_for_selector("[data-testid=blocks] >> text=Nobody")
        got = httpx.post(srv.url + "/api/profiles/me/blocks", json={"key": ann["key"]}).json()
        assert got["blocks"] == []
        assert errs_a == [] and errs_b == []
    finally:
        srv.stop()
