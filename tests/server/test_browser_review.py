"""Real Chromium: a hint at a practice table, then the end screen's "Review my game": the replay
viewer shows the review's progress, then the win-probability chart and every decision's mark,
and the mark of the step on screen; an axe audit of the review screen.

Run on its own: ``pytest -p no:xdist -m browser tests/server/test_browser_review.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerProc
from .test_browser import CSP_WATCH, DESKTOP, PHONE, audit, play_out, shot, watch

pytestmark = pytest.mark.browser


def test_a_hint_then_the_review_of_my_game_with_its_chart_and_marks(browser: Any, tmp_path: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CIVLITE_REVIEW_BUDGET", "10")  # the server's search iterations per decision
    monkeypatch.setenv("CIVLITE_HINT_BUDGET", "30")
    srv = ServerProc(f"sqlite:///{tmp_path / 'r.db'}", bot_delay=0.02).start()
    try:
        found: list[str] = []
        for vp in (DESKTOP, PHONE):
            page = browser.new_context(viewport=vp, bypass_csp=True).new_page()
            errors = watch(page)
            t = srv.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], victory_ct=4, seed=3)
            page.goto(srv.url + t["seats"][0]["invite"])
            page.wait_for_selector("[data-testid=decision][data-kind=action]")
            page.click("[data-testid=hint] button")
            hint = page.wait_for_selector("[data-testid=hint-text]", timeout=60_000).text_content() or ""
            assert "%" in hint and "next best" in hint, hint
            play_out(page, f"review-{vp['width']}")
            page.wait_for_selector("[data-testid=winner]")
            page.click("[data-testid=review-open]")
            page.wait_for_selector("[data-testid=replay]")
            page.wait_for_selector("[data-testid=review]", timeout=120_000)
            marks = page.locator("[data-testid=review-mark]")
            assert marks.count() > 0
            texts = set(marks.all_text_contents())
            assert texts <= {"best", "good", "inaccuracy?!", "mistake?", "blunder??", "only option"}, texts
            chart = page.locator("[data-testid=review-chart] svg")
            assert chart.count() == 1 and "chance of winning" in (chart.get_attribute("aria-label") or "")
            assert page.locator("[data-testid=review-chart] circle").count() == marks.count()
            # a decision of the table goes to its step, where the replay shows its mark and options
            page.locator("[data-testid=review-marks] tbody button").first.click()
            page.wait_for_selector("[data-testid=replay-mark]")
            shot(page, f"review-{vp['width']}")
            found += audit(page, f"review {vp['width']}")
            assert errors == [], errors
        assert found == [], "\n".join(found)
    finally:
        srv.stop()


def test_a_spectator_reviews_any_seat_once_the_game_is_over_under_the_csp(browser: Any, tmp_path: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CIVLITE_REVIEW_BUDGET", "6")
    srv = ServerProc(f"sqlite:///{tmp_path / 's.db'}", bot_delay=0.0).start()
    try:
        t = srv.create([{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}], victory_ct=4, seed=4)
        page = browser.new_context(viewport=DESKTOP, bypass_csp=False).new_page()  # under the server's CSP
        page.add_init_script(CSP_WATCH)
        errors = watch(page)
        page.goto(srv.url + f"/t/{t['id']}")
        page.wait_for_selector("[data-testid=winner]", timeout=60_000)
        page.click("[data-testid=review-open]")
        page.wait_for_selector("[data-testid=review]", timeout=120_000)
        page.select_option("[data-testid=replay-seat]", "1")
        page.click("[data-testid=review-start]")
        page.wait_for_selector("[data-testid=review-marks]", timeout=120_000)
        assert "Review of" in (page.locator("#review-h").text_content() or "")
        assert page.locator("[data-testid=review-chart] svg").count() == 1
        assert page.evaluate("window.__csp") == [] and errors == [], (page.evaluate("window.__csp"), errors)
    finally:
        srv.stop()


def test_the_tutorial_from_the_lobby_with_the_coach(browser: Any, tmp_path: Any) -> None:
    srv = ServerProc(f"sqlite:///{tmp_path / 't.db'}", bot_delay=0.02).start()
    try:
        page = browser.new_context(viewport=DESKTOP, bypass_csp=True).new_page()
        errors = watch(page)
        page.goto(srv.url + "/")
        page.click("[data-testid=tutorial-start]")
        page.wait_for_selector("[data-testid=decision][data-kind=action]")
        page.wait_for_selector("[data-testid=coach] li[data-note=rise]")
        notes = page.locator("[data-testid=coach] li").all_text_contents()
        assert any(n.startswith("Action") for n in notes) and any(n.startswith("You can use") for n in notes)
        assert "practice table" in (page.locator("[data-testid=practice]").text_content() or "")
        found = audit(page, "tutorial")
        assert found == [] and errors == [], (found, errors)
    finally:
        srv.stop()
