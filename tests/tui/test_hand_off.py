"""The hot-seat hand-off never loses a turn: bursts of enter at the hand-off screens are
swallowed until the next player's table has been shown for a short grace, and a fresh
decision never starts with Pass highlighted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import OptionList

from civlite.tui import CivliteApp, SeatSpec, Session, dialogs
from civlite.tui.screens import PassScreen, TableScreen, TurnOverScreen
from civlite.tui.widgets import DecisionPanel

from .helpers import SIZE, action_app, burst, run_async

GRACE = 0.3


@pytest.fixture(autouse=True)
def with_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dialogs, "HANDOFF_GRACE", GRACE)


async def wait_for(pilot: Pilot[Any], ready: Any, limit: int = 400) -> None:
    """Let the app run until ``ready()`` holds (events, not a timed assertion)."""
    for _ in range(limit):
        if ready():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"the app never got there: {pilot.app.screen_stack}")


def decisions(s: Session) -> int:
    return s.game.decision_number


async def late_enters(pilot: Pilot[Any], n: int, typed_at: float) -> None:
    """``n`` enters typed at ``typed_at`` (the event clock) but handled now: what a loaded
    machine does with keys typed while it was still drawing the table."""
    app = pilot.app
    for _ in range(n):
        event = events.Key("enter", "\r")
        event.time = typed_at
        event.set_sender(app)
        app._driver.send_message(event)  # type: ignore[union-attr]
    for _ in range(3):
        await pilot.pause()


async def take_the_screen(pilot: Pilot[Any], s: Session, seat: int) -> None:
    """At a hand-off: enters typed too early are dropped; then the player takes the screen,
    pressing enter several times, while the table appears and just after it appears."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, PassScreen) and app.screen.keys_open_at < float("inf"))
    before = decisions(s)
    assert isinstance(app.screen, PassScreen)
    await late_enters(pilot, 5, app.screen.keys_open_at - 0.01)  # typed as the hand-off screen appeared
    assert isinstance(app.screen, PassScreen) and app.screen.seat == seat
    await wait_for(pilot, lambda: isinstance(app.screen, PassScreen) and app.screen.armed)
    await burst(pilot, *["enter"] * 8)  # the first shows the table; the rest are dropped
    await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.table.viewer == seat)
    table = app.table
    await wait_for(pilot, lambda: table.keys_open_at < float("inf"))  # the table is drawn: its grace runs
    await late_enters(pilot, 8, table.keys_open_at - 0.01)  # typed within the grace, handled late
    assert decisions(s) == before, f"an enter at the hand-off answered seat {seat}'s decision"
    await wait_for(pilot, lambda: not table.keys_closed)
    assert decisions(s) == before


@run_async
async def test_bursts_of_enter_at_the_hand_off_never_apply_an_action() -> None:
    s = Session.new([SeatSpec("human", "Ann"), SeatSpec("human", "Bob")], seed=4)
    s.auto_pass_meld.clear()
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await take_the_screen(pilot, s, 0)
        # Ann passes her action and her meld, then hands over with enter pressed all along
        await pilot.press("p")
        await wait_for(pilot, lambda: s.game.pending is not None and s.game.pending.kind == "meld")
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, (TurnOverScreen, PassScreen)))
        assert s.game.to_move == 1
        ann_done = decisions(s)
        if isinstance(app.screen, TurnOverScreen):
            await burst(pilot, *["enter"] * 12)  # closes "your turn is over"; the rest are dropped
            assert isinstance(app.screen, PassScreen) and decisions(s) == ann_done
        await take_the_screen(pilot, s, 1)
        assert decisions(s) == ann_done, "Bob lost his action to an enter typed at the hand-off"
        # once the grace is over, enter acts again, and the highlighted choice is never Pass
        panel = app.table.query_one(DecisionPanel)
        highlighted = panel.query_one("#choices", OptionList).highlighted
        assert highlighted is None or panel.choices[highlighted].key != "pass"
        if highlighted is not None:
            await pilot.press("enter")
            await wait_for(pilot, lambda: decisions(s) == ann_done + 1)
            assert s.game.actions[-1].to_json() != {"do": "pass"}


@run_async
async def test_a_fresh_decision_never_starts_on_pass() -> None:
    s, app = action_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.table.query_one(DecisionPanel)
        keys = [c.key for c in panel.choices]
        assert keys[0] == "pass" and len(keys) > 1
        highlighted = panel.query_one("#choices", OptionList).highlighted
        assert highlighted is not None and panel.choices[highlighted].key != "pass"
        before = decisions(s)
        await pilot.press("enter")  # answers the highlighted ability, not a pass
        await asyncio.sleep(0)
        await pilot.pause()
        assert decisions(s) > before
        assert s.game.actions[-1].to_json()["do"] != "pass"


@run_async
async def test_the_quit_question_promises_only_what_continue_does(tmp_path: Any) -> None:
    """Before anyone has moved, --continue would pass the game over: the question names
    --resume FILE only; after a move it names --continue too."""
    from civlite.tui.dialogs import QuitScreen

    from .helpers import screen_text

    s, app = action_app()
    s.save_path = tmp_path / "game.json"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not s.begun
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
        text = " ".join(screen_text(app).split())
        assert "Nobody has moved yet" in text and "--resume" in text and "--continue" not in text
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("p")  # a move: now --continue offers this game
        await wait_for(pilot, lambda: s.begun)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitScreen))
        assert "civlite play --continue" in " ".join(screen_text(app).split())
