"""The terminal's review and hint, driven with Pilot: the replay's ``e`` rates the watched seat
(marks in a table, the graph as a sparkline, the mark beside each step), the end screen's ``e``
reviews the game just played, and the table's ``H`` says the best option with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Sparkline

import civlite.tui.review as tui_review
from civlite.engine import GameRecord
from civlite.tui import CivliteApp, Replay, ReplayApp, SeatSpec, Session
from civlite.tui.review import ReviewScreen
from civlite.tui.screens import ReplayScreen, ResultsScreen

from .helpers import SIZE, action_app, run_async, screen_text

RECORD = Path(__file__).parents[1] / "review" / "data" / "seeded-record.json"


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tui_review, "BUDGET", 8)
    monkeypatch.setattr(tui_review, "HINT", 40)
    monkeypatch.setattr(tui_review, "WORKERS", 1)


async def _reviewed(pilot: object, app: object) -> ReviewScreen:
    for _ in range(200):
        await app.workers.wait_for_complete()  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        screen = app.screen  # type: ignore[attr-defined]
        if isinstance(screen, ReviewScreen) and screen.review is not None:
            return screen
    raise AssertionError("the review did not finish")


@run_async
async def test_the_replay_reviews_the_watched_seat_and_marks_each_step() -> None:
    app = ReplayApp(Replay.load(RECORD))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w", "w")  # watch as seat 1
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and replay.viewer == 1
        await pilot.press("e")
        screen = await _reviewed(pilot, app)
        review = screen.review
        assert review is not None and review.seat == 1
        table = screen.query_one(DataTable)
        assert table.row_count == len(review.decisions) > 0
        assert screen.query_one(Sparkline).data == [round(100 * w) for w in review.win]
        text = screen_text(app)
        assert "Review of bob (seat 1)" in text and "Chance of winning after each decision" in text
        assert any(m in text for m in ("best", "good", "inaccuracy", "mistake", "blunder"))
        # choosing a row goes to that decision in the replay, with its mark beside the step
        target = review.decisions[1]
        table.move_cursor(row=1)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is replay and replay.replay.step == target.index
        await pilot.press("right")
        assert "Review: " in screen_text(app)
        await pilot.press("e")  # computed once: shown again at once
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and app.screen.review is review


@run_async
async def test_the_end_screen_reviews_the_game_just_played() -> None:
    record = GameRecord.load(RECORD)
    session = Session(record.replay(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(session, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if not isinstance(app.screen, ResultsScreen):
            await pilot.press("r")  # the results (the end screen)
            await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("e")
        screen = await _reviewed(pilot, app)
        assert screen.seat == 0 and screen.review is not None
        assert screen.query_one(DataTable).row_count == len(screen.review.decisions)


@run_async
async def test_the_hint_key_says_the_best_option_and_why() -> None:
    session, app = action_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = session.game.decision_number
        await pilot.press("H")
        for _ in range(100):
            await app.workers.wait_for_complete()
            await pilot.pause()
            notes = [n for n in app._notifications if (n.title or "").startswith("Hint: ")]
            if notes:
                break
        assert notes, [n.message for n in app._notifications]
        assert "wins" in notes[-1].message and session.game.decision_number == before  # nothing played
